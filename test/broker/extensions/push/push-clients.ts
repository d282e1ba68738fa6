/**
 * What a stock client's `registerPush` / `unregisterPush` send (`spec/protocol-extensions.md`
 * §6.2–§6.3), a broker with push configured from its `env` (§6.1), and a local HTTP sink that
 * records POSTs (the UnifiedPush stub of §6.9).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'socket.io-client';
import { ClientEvent } from '../../../../shared/protocol-events';
import { NullTransport } from '../../../../broker/extensions/push/null-transport';
import { startBroker, type BrokerOptions, type Harness } from '../../../helpers/broker-harness';
import { call, type KeyReply } from '../key-clients';

export interface PushReply extends KeyReply {
  transport?: string;
  count?: number;
  removed?: number;
}

export function registerPush(socket: Socket, payload: unknown): Promise<PushReply> {
  return call(socket, ClientEvent.PUSH_REGISTER, payload);
}

export function unregisterPush(socket: Socket, payload: unknown): Promise<PushReply> {
  return call(socket, ClientEvent.PUSH_UNREGISTER, payload);
}

/** A broker with `TYO_MQ_PUSH_*` from `env` and the null transport exposed as `nul`. */
export async function startPushBroker(
  env: Record<string, string>,
  options: BrokerOptions = {},
): Promise<{ h: Harness; nul: NullTransport }> {
  const nul = new NullTransport();
  const h = await startBroker(
    { http_api: { enabled: true } },
    { ...options, env: { ...env }, push: { nullTransport: nul, ...options.push } },
  );
  return { h, nul };
}

export interface SinkRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local HTTP server answering `status` (or never, when `status` is null). */
export interface Sink {
  url: string;
  readonly requests: SinkRequest[];
  status: number | null;
  close(): Promise<void>;
}

export async function startSink(status: number | null = 200): Promise<Sink> {
  const requests: SinkRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (sink.status === null) return;
      res.writeHead(sink.status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sink: Sink = {
    url: `http://127.0.0.1:${port}/wake/abc`,
    requests,
    status,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return sink;
}

/** `tyo_mq_push_registrations` from /api/metrics: every endpoint held by the broker. */
export async function registrations(h: Harness, adminToken?: string): Promise<number> {
  const headers: Record<string, string> = adminToken
    ? { authorization: `Bearer ${adminToken}` }
    : {};
  const text = await (await fetch(`${h.url}/api/metrics`, { headers })).text();
  const line = text.split('\n').find((l) => l.startsWith('tyo_mq_push_registrations '));
  if (!line) throw new Error('no push registrations gauge');
  return Number(line.split(' ')[1]);
}
