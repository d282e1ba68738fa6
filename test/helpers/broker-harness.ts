/**
 * Test harness: a real broker on an ephemeral port plus raw socket.io-client sockets that behave
 * exactly like the stock tyo-mq clients (spec §1.3). Everything opened through a harness is closed
 * by `harness.close()`; `useBroker()` wires that into `beforeEach`/`afterEach`.
 */
import pino from 'pino';
import { io, type Socket } from 'socket.io-client';
import { afterEach, beforeEach } from 'vitest';
import { createBroker } from '../../broker/index';
import {
  ClientEvent,
  consumeEvent,
  Protocol,
  subscriptionKey,
  type PeerNotice,
} from '../../shared/protocol-events';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
  type ProduceOptions,
  type SubscribeOptions,
} from './stock-clients';
import { DEFAULT_WAIT_MS, delay, waitUntil } from './wait';

export type Broker = Awaited<ReturnType<typeof createBroker>>;
export type BrokerSettings = Parameters<typeof createBroker>[0];
export type BrokerOptions = NonNullable<Parameters<typeof createBroker>[1]>;
export type { Socket };

/** `getStats()` as §15 documents it. */
export interface RealmCounts {
  producers: { total: number; online: number };
  consumers: { total: number; online: number };
  subscriptions: number;
}
export interface BrokerStats {
  realms: Record<string, RealmCounts | undefined>;
  connections_current: number;
}

const EMPTY_REALM: RealmCounts = {
  producers: { total: 0, online: 0 },
  consumers: { total: 0, online: 0 },
  subscriptions: 0,
};

export interface ConnectOptions {
  /**
   * `websocket` (default): what raw test sockets and the Python client use.
   * `polling-upgrade`: socket.io's default, which the stock JS `Factory` gets (§1.1).
   */
  transport?: 'websocket' | 'polling-upgrade';
  /** Stock clients reconnect automatically; raw test sockets do not unless asked. */
  reconnection?: boolean;
}

/** One event received by a recorder: its name and arguments. */
export interface Recorded {
  event: string;
  args: unknown[];
}

/** Records every event a socket receives, in order (socket.io `onAny`). */
export interface Recorder {
  readonly all: Recorded[];
  /** First arguments of every recorded `event`. */
  of(event: string): unknown[];
  names(): string[];
  clear(): void;
  stop(): void;
}

export function record(socket: Socket): Recorder {
  const all: Recorded[] = [];
  const listener = (event: string, ...args: unknown[]): void => {
    all.push({ event, args });
  };
  socket.onAny(listener);
  return {
    all,
    of: (event) => all.filter((r) => r.event === event).map((r) => r.args[0]),
    names: () => all.map((r) => r.event),
    clear: () => {
      all.length = 0;
    },
    stop: () => {
      socket.offAny(listener);
    },
  };
}

/**
 * Barrier: a `PING` round trip on `socket`. socket.io hands a connection's packets to the broker in
 * order, so once the PING reply is back every earlier event of this socket has been dispatched. A
 * short pause then covers handlers that finish after a microtask or two. If PING itself is broken
 * the barrier degrades to a plain pause rather than hanging every test.
 */
export async function sync(...sockets: Socket[]): Promise<void> {
  await pingBarrier(sockets);
  await delay(20);
}

/** A PING round trip on each socket: the events each sent before it have been handled. */
async function pingBarrier(sockets: Socket[]): Promise<void> {
  await Promise.all(
    sockets.map(async (s) => {
      try {
        await s.timeout(1_000).emitWithAck(ClientEvent.PING, { sync: true });
      } catch {
        // PING is tested on its own (§3.7); here it is only a barrier.
      }
    }),
  );
}

export interface Harness {
  readonly broker: Broker;
  readonly port: number;
  readonly url: string;
  /** A raw socket, connected. */
  connect(opts?: ConnectOptions): Promise<Socket>;
  /** A raw socket that is *not* waited for (for refused connections). */
  socket(opts?: ConnectOptions): Socket;
  /** Connect and identify like the stock consumer: `CONSUMER {name, id, consumer_id}` (§1.3). */
  consumer(name: string, opts?: ConnectOptions & { consumerId?: string }): Promise<Socket>;
  /** Connect and identify like the stock JS producer: `PRODUCER {name}` (§1.3). */
  producer(name: string, opts?: ConnectOptions): Promise<Socket>;
  /** Default realm counts from `getStats()` (zeros if the realm is not listed). */
  stats(): RealmCounts;
  rawStats(): BrokerStats;
  /** `freeze(socket)`, with the frozen TCP socket destroyed before the broker is closed. */
  freeze(socket: Socket): void;
  /**
   * A barrier: each socket's events so far handled (a PING round trip), then the broker's
   * work in progress settled (durable writes, confirms; `Broker.settled`).
   */
  settle(...sockets: Socket[]): Promise<void>;
  /**
   * Disconnects `socket` and resolves once the broker has dropped it and finished the work
   * its disconnect started (the registration is offline then, §15).
   */
  disconnect(socket: Socket): Promise<void>;
  /**
   * Resolves once the broker no longer holds socket `id` (closed by either side, or timed out
   * by its heartbeat) and the work its disconnect started has settled.
   */
  dropped(id: string, timeoutMs?: number): Promise<void>;
  /** Registers extra cleanup (e.g. a non-socket.io client). */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export async function startBroker(
  settings?: BrokerSettings,
  options: BrokerOptions = {},
): Promise<Harness> {
  // Quiet by default (the fuzz test alone would log thousands of lines); SWB_LOG_LEVEL overrides.
  const logger = options.logger ?? pino({ level: process.env.SWB_LOG_LEVEL ?? 'silent' });
  const broker = await createBroker(settings ?? {}, { ...options, logger });
  const { port } = await broker.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const sockets = new Set<Socket>();
  const closers: (() => void | Promise<void>)[] = [];

  const socket = (opts: ConnectOptions = {}): Socket => {
    const s = io(url, {
      forceNew: true,
      reconnection: opts.reconnection ?? false,
      ...(opts.transport === 'polling-upgrade' ? {} : { transports: ['websocket'] }),
    });
    sockets.add(s);
    return s;
  };

  const connect = (opts: ConnectOptions = {}): Promise<Socket> =>
    new Promise<Socket>((resolve, reject) => {
      const s = socket(opts);
      const timer = setTimeout(() => reject(new Error('socket did not connect within 5 s')), 5_000);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once('connect_error', (err: Error) => {
        clearTimeout(timer);
        reject(err);
      });
    });

  const rawStats = (): BrokerStats => broker.getStats() as unknown as BrokerStats;

  const harness: Harness = {
    broker,
    port,
    url,
    connect,
    socket,
    async consumer(name, opts = {}) {
      const s = await connect(opts);
      s.emit(ClientEvent.CONSUMER, consumerPayload(name, opts.consumerId ?? name));
      await sync(s);
      return s;
    },
    async producer(name, opts = {}) {
      const s = await connect(opts);
      s.emit(ClientEvent.PRODUCER, jsProducerPayload(name));
      await sync(s);
      return s;
    },
    stats: () => rawStats().realms[Protocol.DEFAULT_REALM] ?? EMPTY_REALM,
    rawStats,
    async settle(...targets) {
      await pingBarrier(targets);
      await broker.settled(DEFAULT_WAIT_MS);
    },
    async disconnect(s) {
      const id = s.id;
      s.disconnect();
      if (id !== undefined) await harness.dropped(id);
    },
    async dropped(id, timeoutMs = DEFAULT_WAIT_MS) {
      await waitUntil(
        () => broker.bufferedBytes(id) === null,
        `the broker dropped ${id}`,
        timeoutMs,
      );
      await broker.settled(DEFAULT_WAIT_MS);
    },
    freeze(s) {
      closers.unshift(freeze(s));
    },
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      for (const s of sockets) {
        s.removeAllListeners();
        s.offAny();
        s.disconnect();
      }
      sockets.clear();
      for (const fn of closers.splice(0)) await fn();
      await Promise.race([
        broker.close(),
        delay(10_000).then(() => {
          throw new Error('broker.close() did not resolve within 10 s');
        }),
      ]);
    },
  };
  return harness;
}

/**
 * Starts a fresh broker before each test (`startBroker(settings, options)`) and closes it (and
 * every socket) after it. Read the harness as `ctx.h` inside tests.
 */
export function useBroker(
  settings?: BrokerSettings,
  options?: BrokerOptions,
): { readonly h: Harness } {
  const ctx: { h: Harness | undefined } = { h: undefined };
  beforeEach(async () => {
    ctx.h = await startBroker(settings, options);
  });
  afterEach(async () => {
    const h = ctx.h;
    ctx.h = undefined;
    if (h) await h.close();
  });
  return {
    get h(): Harness {
      if (!ctx.h) throw new Error('broker not started (use inside a test)');
      return ctx.h;
    },
  };
}

/** Emits a JS-client `SUBSCRIBE` for `(producer, event)` and waits for the broker to process it. */
export async function subscribe(
  socket: Socket,
  consumer: string,
  producer: string,
  event: string,
  opts: SubscribeOptions = {},
): Promise<void> {
  socket.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload(consumer, producer, event, opts));
  await sync(socket);
}

/** Emits a `PRODUCE` with `from` = `producer` (as every stock client sets it). */
export function produce(
  socket: Socket,
  producer: string,
  event: unknown,
  message: unknown,
  opts: Omit<ProduceOptions, 'from'> = {},
): void {
  socket.emit(ClientEvent.PRODUCE, producePayload(event, message, { ...opts, from: producer }));
}

/** `event` values of `CONNECT-…`/`DISCONNECT-…` payloads (§4), checked against the shared type. */
export const PeerNoticeKind = {
  CONNECT: 'CONNECT',
  DISCONNECT: 'DISCONNECT',
} as const satisfies Record<string, PeerNotice['event']>;

/** The delivery event of an exact `(producer, event)` subscription: `CONSUME-lc(P-E)` (§2.2). */
export function exactConsumeEvent(producer: string, event: string): string {
  return consumeEvent(subscriptionKey(producer, event));
}

/** Resolves when the broker reports `online` consumers in the default realm (server-side view). */
export async function waitForConsumersOnline(h: Harness, online: number): Promise<void> {
  await waitUntil(
    () => h.stats().consumers.online === online,
    `consumers.online === ${online} (now ${h.stats().consumers.online})`,
  );
}

/** Resolves when the broker reports `online` producers in the default realm. */
export async function waitForProducersOnline(h: Harness, online: number): Promise<void> {
  await waitUntil(
    () => h.stats().producers.online === online,
    `producers.online === ${online} (now ${h.stats().producers.online})`,
  );
}

/** The client-side TCP socket under a socket.io-client websocket transport (Node only). */
function tcpOf(socket: Socket): { pause(): void; destroy(): void } {
  const transport = socket.io.engine.transport as unknown as {
    ws?: { _socket?: { pause(): void; destroy(): void } };
  };
  const tcp = transport.ws?._socket;
  if (!tcp) throw new Error('needs a connected websocket transport');
  return tcp;
}

/**
 * Simulates a half-open connection (Note 5.2-A): the client's TCP socket stops being read, so it
 * never answers the server's heartbeat and sends nothing more, while nothing is closed. Returns a
 * function that destroys the TCP socket (the harness calls it on close).
 */
export function freeze(socket: Socket): () => void {
  const tcp = tcpOf(socket);
  tcp.pause();
  return () => tcp.destroy();
}

/** Resolves when the server has disconnected `socket` (reason `io server disconnect`). */
export function waitForServerDisconnect(socket: Socket, timeoutMs = 5_000): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    if (!socket.connected) {
      resolve('already disconnected');
      return;
    }
    const timer = setTimeout(
      () => reject(new Error(`server did not disconnect the socket within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.once('disconnect', (reason: string) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}
