/**
 * Benchmark clients: raw socket.io-client sockets that speak the tyo-mq client protocol the
 * way the stock clients do (spec §1.3, §3.1–§3.5). The same code drives the broker and the
 * bare relay, so any difference in the numbers comes from the server.
 *
 * Client options (`ClientProfile`):
 *   - `stock` (default): socket.io-client's defaults, what users run — polling first, then the
 *     WebSocket upgrade, and per-message deflate offered with the client's default threshold
 *     (packets of 1,024 bytes or more are deflated when the server accepts the extension);
 *   - `websocket-no-deflate`: `transports: ['websocket']` and a client deflate threshold of
 *     infinity — what this benchmark used before issue 7. It hid the cost of compression
 *     negotiated with every client (its 1→10 1 KiB ratio read 0.86 where stock clients saw
 *     0.33), so it is kept only as a labelled comparison row.
 * Every socket uses `forceNew` (one Engine.IO connection per client, as separate processes
 * would) and no automatic reconnection (a dropped connection during a benchmark is an error,
 * not something to paper over).
 *
 * Times are in milliseconds.
 */
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import { ClientEvent, Protocol } from '../../shared/protocol-events';

export type { Socket };

export type ClientProfile = 'stock' | 'websocket-no-deflate';

/** `BENCH_CLIENT_PROFILE` (default `stock`): the profile of every client not told otherwise. */
export const defaultClientProfile: ClientProfile =
  process.env.BENCH_CLIENT_PROFILE === 'websocket-no-deflate' ? 'websocket-no-deflate' : 'stock';

const PROFILE_OPTIONS: Record<ClientProfile, Partial<ManagerOptions & SocketOptions>> = {
  stock: {},
  'websocket-no-deflate': {
    transports: ['websocket'],
    perMessageDeflate: { threshold: Number.POSITIVE_INFINITY },
  },
};

/** Connects one client socket; rejects after `timeoutMs` (ms) or on a connection error. */
export function connectClient(
  url: string,
  timeoutMs = 10_000,
  profile: ClientProfile = defaultClientProfile,
): Promise<Socket> {
  const socket = io(url, {
    ...PROFILE_OPTIONS[profile],
    forceNew: true,
    reconnection: false,
    timeout: timeoutMs,
  });
  return new Promise<Socket>((resolve, reject) => {
    // A stock client connects over polling and upgrades; wait for the upgrade so a measured
    // phase runs over WebSocket, as a long-lived client does.
    const ready = () => {
      const engine = socket.io.engine;
      if (engine.transport.name === 'websocket') return resolve(socket);
      const timer = setTimeout(() => {
        socket.close();
        reject(new Error(`${url}: no WebSocket upgrade after ${timeoutMs} ms`));
      }, timeoutMs);
      engine.once('upgrade', () => {
        clearTimeout(timer);
        resolve(socket);
      });
    };
    socket.once('connect', ready);
    socket.once('connect_error', (err) => {
      socket.close();
      reject(new Error(`connect to ${url} failed: ${err.message}`));
    });
  });
}

/**
 * Connects `count` sockets, at most `concurrency` handshakes at a time (1,000 simultaneous
 * WebSocket handshakes from one process only slow each other down).
 */
export async function connectMany(
  url: string,
  count: number,
  profile: ClientProfile = defaultClientProfile,
  concurrency = 50,
): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += concurrency) {
    const batch = Math.min(concurrency, count - i);
    const connect = () => connectClient(url, 10_000, profile);
    sockets.push(...(await Promise.all(Array.from({ length: batch }, connect))));
  }
  return sockets;
}

/** `CONSUMER {name, id, consumer_id}` with `id = consumer_id = name`, as the JS client (§1.3). */
export function registerConsumer(socket: Socket, name: string): void {
  socket.emit(ClientEvent.CONSUMER, { name, id: name, consumer_id: name });
}

/**
 * `SUBSCRIBE` to `event` from one `producer` (§3.3); delivered on `CONSUME-<lc(P-E)>`. With
 * `durable`, the stock JS client's `durable: true` subscription: the broker stores the copies
 * of `consumer` while it is offline and replays them on its next `SUBSCRIBE`.
 */
export function subscribeExact(
  socket: Socket,
  consumer: string,
  producer: string,
  event: string,
  options: { durable?: boolean } = {},
) {
  const durable = options.durable ? { durable: true } : {};
  socket.emit(ClientEvent.SUBSCRIBE, {
    event,
    producer,
    consumer,
    consumer_id: consumer,
    ...durable,
  });
}

/**
 * Topic `SUBSCRIBE` to `pattern` from any producer (§3.3, §11); delivered on
 * `CONSUME-<lc(TYO-MQ-ALL-pattern)>`.
 */
export function subscribeTopic(socket: Socket, consumer: string, pattern: string): void {
  socket.emit(ClientEvent.SUBSCRIBE, {
    event: pattern,
    producer: Protocol.ALL_PUBLISHERS,
    mode: 'topic',
    consumer,
    consumer_id: consumer,
  });
}

/** `PRODUCER {name}`, as the JS client (§1.3, §3.2). */
export function registerProducer(socket: Socket, name: string): void {
  socket.emit(ClientEvent.PRODUCER, { name });
}

/**
 * Broker-only barrier: a `PING` round trip (§3.7). socket.io hands one connection's packets to
 * the server in order, so when the reply arrives every earlier event of `socket` (say its
 * 100 `SUBSCRIBE`s) has been handled. Rejects after `timeoutMs` (ms).
 */
export async function pingBarrier(socket: Socket, timeoutMs = 30_000): Promise<void> {
  await socket.timeout(timeoutMs).emitWithAck(ClientEvent.PING, { bench: true });
}

/** Disconnects every socket. */
export function closeAll(sockets: readonly Socket[]): void {
  for (const socket of sockets) socket.close();
}

/** The application message of every benchmark `PRODUCE`. */
export interface BenchMessage {
  /** Sequence number, unique within one load session. */
  s: number;
  /** Send time, `performance.now()` of the client process, ms. */
  t: number;
  /** Padding that brings the JSON text of the message to the nominal payload size. */
  p: string;
}

/**
 * Padding for a message whose JSON text (`JSON.stringify(message)`) is about `bytes` long
 * (within a few bytes: the digits of `s` and `t` vary). The message is an object, as real
 * clients send, rather than a bare string.
 */
export function paddingFor(bytes: number): string {
  const skeleton = JSON.stringify({ s: 100_000, t: 123_456.123_456, p: '' } satisfies BenchMessage);
  return 'x'.repeat(Math.max(0, bytes - skeleton.length));
}
