/**
 * The MQTT listener's sockets (issue 14): a TCP server, or TLS when `mqtt.tls` is set (key and
 * certificate read from their files at bind time), and optionally MQTT over WebSocket
 * (`mqtt.ws_port`, `mqtt.ws_path`, RFC 6455 upgrades checked by the broker's request policy).
 * Every accepted connection is passed to `handle` as a duplex stream.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer } from 'node:tls';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { portInUse } from './mqtt-port-in-use';
import type { MqttSettings } from './mqtt-schema';

/** The bound sockets; `wsPort` null without a WebSocket listener. */
export interface MqttTransports {
  server: Server;
  wss: WebSocketServer | null;
  wsPort: number | null;
}

/**
 * The broker's request policy for WebSocket upgrades (`http/request-policy.ts`: Host and
 * Origin, issue 19), as `ws`' `verifyClient`; refused upgrades get 403.
 */
export type VerifyWebSocket = (
  info: { req: IncomingMessage },
  callback: (ok: boolean, code?: number, message?: string) => void,
) => void;

export interface BindOptions {
  /** Undefined = every upgrade accepted. */
  verifyWebSocket?: VerifyWebSocket;
  /**
   * Called as soon as each server exists, before it is bound, so a caller whose bind fails
   * half-way can close what was opened.
   */
  opened: (server: Server, wss: WebSocketServer | null) => void;
}

/**
 * Binds the TCP (or TLS) server on `settings.port` and, when `settings.ws_port` is set, the
 * WebSocket server, both on `host`.
 * @throws PortInUseError (mqtt-port-in-use.ts) naming the listener whose port is taken; other
 *   bind errors or a TLS file read error as Node raises them. What was opened is left to the
 *   caller (`opened`).
 */
export async function bindMqttTransports(
  settings: MqttSettings,
  host: string,
  handle: (conn: Duplex, req?: IncomingMessage) => void,
  options: BindOptions,
): Promise<MqttTransports> {
  const server = settings.tls
    ? createTlsServer(
        { key: readFileSync(settings.tls.key), cert: readFileSync(settings.tls.cert) },
        (conn) => handle(conn),
      )
    : createNetServer((conn) => handle(conn));
  options.opened(server, null);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(portInUse(err, settings.port, 'tcp')));
    server.listen(settings.port, host, () => resolve());
  });
  if (settings.ws_port === undefined) return { server, wss: null, wsPort: null };
  const wss = new WebSocketServer({
    port: settings.ws_port,
    host,
    path: settings.ws_path,
    ...(options.verifyWebSocket && { verifyClient: options.verifyWebSocket }),
  });
  options.opened(server, wss);
  await new Promise<void>((resolve, reject) => {
    wss.once('error', (err) => reject(portInUse(err, settings.ws_port ?? 0, 'ws')));
    wss.once('listening', () => resolve());
  });
  wss.on('connection', (ws, req) => handle(createWebSocketStream(ws), req));
  return { server, wss, wsPort: (wss.address() as AddressInfo).port };
}
