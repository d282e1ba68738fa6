/**
 * The web host's event stream: a WebSocket at `ConsoleChannel.EVENTS_PATH` that pushes ConsoleApi
 * events (`{type:'event', event, payload}`) once the client has proven it holds the per-launch
 * secret with a first frame `{type:'hello', token}` (answered `{type:'ready'}`). Events naming a
 * `connectionId` are sent only for the connections the client watches: a later frame
 * `{type:'watch', connectionIds}` replaces that list (default: the local broker).
 *
 * The secret is sent in a frame rather than the URL so it never lands in logs or history.
 * Close codes: 4401 wrong/missing hello (or none within `helloTimeoutMs`), 1009 frame too large.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { z } from 'zod';
import {
  CONSOLE_EVENT_NAMES,
  ConsoleChannel,
  type ConsoleService,
  type ConsoleSocketFrame,
} from '../../shared/console-api';
import { ErrorCatalogue, errorInfo } from '../../shared/error-catalogue';
import { ConnectionWatch, WatchListSchema } from '../services/connection-watch';
import { secretsEqual, type HostPolicy } from './web-security';

export const CLOSE_UNAUTHORIZED = 4401;

const HelloFrame = z
  .object({ type: z.literal('hello'), token: z.string().min(1).max(512) })
  .strict();
const WatchFrame = z.object({ type: z.literal('watch'), connectionIds: WatchListSchema }).strict();

/** Frames are dropped for a client whose unsent backlog exceeds this (it is too slow to keep up). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface EventSocketOptions {
  service: ConsoleService;
  secret: string;
  /** Known once the HTTP server listens. */
  policy: () => HostPolicy | null;
  /** Default 5000 ms. */
  helloTimeoutMs?: number;
}

/** Attaches the event socket to `server`; returns a function that closes every client. */
export function attachEventSocket(server: Server, options: EventSocketOptions): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const policy = options.policy();
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname !== ConsoleChannel.EVENTS_PATH) return refuse(socket, 'SWB_ERR_NOT_FOUND');
    // Browsers always send Origin on WebSocket handshakes: this blocks cross-site pages.
    if (!policy?.hostAllowed(req.headers.host) || !policy.originAllowed(req.headers.origin)) {
      return refuse(socket, 'SWB_ERR_FORBIDDEN_ORIGIN');
    }
    wss.handleUpgrade(req, socket, head, (ws) => handleClient(ws, options));
  };
  server.on('upgrade', onUpgrade);
  return () => {
    server.off('upgrade', onUpgrade);
    for (const client of wss.clients) client.terminate();
    wss.close();
  };
}

function handleClient(ws: WebSocket, options: EventSocketOptions): void {
  const unsubscribers: (() => void)[] = [];
  const watch = new ConnectionWatch();
  const helloTimer = setTimeout(
    () => ws.close(CLOSE_UNAUTHORIZED, 'hello expected'),
    options.helloTimeoutMs ?? 5_000,
  );
  const send = (frame: ConsoleSocketFrame): void => {
    if (ws.readyState === WebSocket.OPEN && ws.bufferedAmount < MAX_BUFFERED_BYTES) {
      ws.send(JSON.stringify(frame));
    }
  };
  ws.once('message', (data: RawData, isBinary: boolean) => {
    clearTimeout(helloTimer);
    const hello = isBinary ? null : HelloFrame.safeParse(safeJson(data.toString())).data;
    if (!hello || !secretsEqual(hello.token, options.secret)) {
      ws.close(CLOSE_UNAUTHORIZED, 'unauthorized');
      return;
    }
    send({ type: 'ready' });
    for (const event of CONSOLE_EVENT_NAMES) {
      unsubscribers.push(
        options.service.on(event, (payload) => {
          if (watch.wants(payload)) send({ type: 'event', event, payload });
        }),
      );
    }
    // After the hello the only client frame is `watch`; anything else is ignored.
    ws.on('message', (next: RawData, binary: boolean) => {
      if (binary) return;
      const frame = WatchFrame.safeParse(safeJson(next.toString())).data;
      if (frame) watch.set(frame.connectionIds);
    });
  });
  ws.on('error', () => ws.terminate());
  ws.on('close', () => {
    clearTimeout(helloTimer);
    unsubscribers.splice(0).forEach((unsubscribe) => unsubscribe());
  });
}

function refuse(socket: Duplex, code: 'SWB_ERR_NOT_FOUND' | 'SWB_ERR_FORBIDDEN_ORIGIN'): void {
  const { status } = ErrorCatalogue[code];
  const body = JSON.stringify({ ok: false, error: errorInfo(code) });
  const reason = status === 404 ? 'Not Found' : 'Forbidden';
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
