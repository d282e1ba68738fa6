/**
 * Back-pressure for slow consumers (Switchboard hardening, issue 11): a consumer that stops
 * reading must not grow the broker's memory without bound.
 *
 * The bytes queued to a socket are engine.io's write buffer (packets waiting while the transport
 * is busy) plus the WebSocket's own buffer (`ws.bufferedAmount`: frames handed to a TCP socket
 * the peer does not drain). A socket is *slow* when that backlog is over
 * `back_pressure.max_buffered_bytes` (default 8 MiB) and either it has not drained a byte for
 * `back_pressure.stall_after_ms` (default 1 s), or the backlog is past the ceiling
 * `max_buffered_bytes + max_http_buffer_size` (58 MiB by default). To a slow socket:
 * - plain copies are dropped, counted (`tyo_mq_slow_consumer_drops_total{realm}`) and logged
 *   (one line per socket and 10 s window, with the count: see `DropLog`);
 * - durable / ACK copies stay in the store for replay and are not emitted (see `writable`).
 * A socket over the cap for longer than `back_pressure.disconnect_after_ms` (default 30 s) is
 * disconnected and its transport destroyed, which frees what it had buffered.
 *
 * Why the ceiling (issue 21 item 10): one inbound frame or polling POST may carry up to
 * `max_http_buffer_size` of PRODUCEs (a stock polling client flushes everything it buffered while
 * disconnected in POSTs that size), all handled in one event-loop turn. A consumer that reads at
 * any normal speed still holds most of that burst when the next POST arrives, so a fixed 8 MiB
 * cap dropped copies to live, reading subscribers. A subscriber that is reading (its TCP send
 * queue moved within `stall_after_ms`) may hold one such burst on top of the cap; a stalled one
 * is still held to the cap.
 *
 * Healthy sockets pay a few property reads per copy; the write-buffer size is counted
 * incrementally (engine.io appends to the array and replaces it when it flushes), and drain
 * progress is only looked at for a socket over the cap, once per turn.
 */
import type { Logger } from '../logging/logger';
import { backlogBytes } from '../transport/write-coalescing';
import type { BrokerSocket } from '../transport/socket-types';
import type { LimitMetrics } from './limit-metrics';
import type { BackPressureSettings } from './limits-schema';

/** What `Delivery` asks before emitting a copy to a socket. */
export interface SendGate {
  /** Whether a plain copy may be emitted to `socket`; a refusal is counted as a drop. */
  admit(realm: string, socket: BrokerSocket): boolean;
  /** Whether `socket` is under its cap (for copies that otherwise stay in the store). */
  writable(socket: BrokerSocket): boolean;
}

/** The gate of a broker without back-pressure: everything passes. */
export const OPEN_GATE: SendGate = { admit: () => true, writable: () => true };

interface Packet {
  data?: unknown;
}
/** The TCP socket under `ws` (private `_socket`) and its libuv handle (`writeQueueSize`). */
interface RawTcp {
  writableLength?: number;
  _handle?: { writeQueueSize?: number } | null;
}
interface EngineConn {
  writeBuffer?: Packet[];
  transport?: {
    socket?: { bufferedAmount?: number; terminate?: () => void; _socket?: RawTcp };
  };
  close(discard?: boolean): void;
}

interface BufferState {
  buffer: Packet[] | undefined;
  counted: number;
  bytes: number;
  overSince: number | null;
  /** The event-loop turn `backlog` was measured in, and its value then. */
  turn: number;
  backlog: number;
  /** Write buffers engine.io has flushed to the transport (a polling consumer's progress). */
  flushes: number;
  /** Drain marks seen at the last over-cap measure (`-1`: none yet), and when they last moved. */
  markFlushes: number;
  markQueue: number;
  markLength: number;
  progressAt: number;
}

function packetBytes(data: unknown): number {
  if (typeof data === 'string') return data.length;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

const DROP_MSG = 'slow consumer: plain copies dropped';

/**
 * Rate-limited log of dropped plain copies, per socket: the first drop in a window is logged at
 * once (`dropped: 1`, with the socket's backlog); further drops are counted and written as one
 * line per socket at the end of the window (`dropped: n`). A socket with no drop for a whole
 * window is forgotten. One entry per socket that dropped recently, so memory follows connections.
 */
export class DropLog {
  private readonly pending = new Map<string, { realm: string; count: number; seen: boolean }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  drop(realm: string, socket: BrokerSocket, fields: Record<string, unknown>): void {
    const entry = this.pending.get(socket.id);
    if (entry) {
      entry.count++;
      entry.seen = true;
      return;
    }
    this.pending.set(socket.id, { realm, count: 0, seen: true });
    this.timer ??= setInterval(() => this.flush(), this.intervalMs).unref();
    this.logger.warn({ socket: socket.id, realm, dropped: 1, ...fields }, DROP_MSG);
  }

  /** Writes one line per socket with drops not logged yet, and starts a new window. */
  flush(): void {
    for (const [socket, entry] of this.pending) {
      if (entry.count > 0) {
        this.logger.warn(
          { socket, realm: entry.realm, dropped: entry.count, window_ms: this.intervalMs },
          `${DROP_MSG} (${entry.count} more in the last ${this.intervalMs / 1_000} s)`,
        );
        entry.count = 0;
      }
      if (entry.seen) entry.seen = false;
      else this.pending.delete(socket);
    }
    if (this.pending.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  close(): void {
    this.flush();
    this.pending.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

export class BackPressure implements SendGate {
  private readonly state = new WeakMap<BrokerSocket, BufferState>();
  private turn = 0;
  private turnEnding = false;
  private readonly drops: DropLog;
  /** Ends the turn `judge` measured in; one function, not a closure per turn. */
  private readonly endTurn = (): void => {
    this.turn++;
    this.turnEnding = false;
  };
  /** Told of each dropped plain copy (the client's history, issue 27). */
  onDrop?: (socket: BrokerSocket) => void;

  /**
   * @param maxInboundBurst the largest burst one inbound frame or POST may carry
   *   (`max_http_buffer_size`): how far past the cap a socket that is draining may go.
   */
  constructor(
    private readonly settings: () => BackPressureSettings,
    private readonly metrics: LimitMetrics,
    private readonly logger: Logger,
    private readonly maxInboundBurst = 0,
    private readonly now: () => number = Date.now,
  ) {
    this.drops = new DropLog(logger);
  }

  /** Writes the pending drop summaries (the broker is closing). */
  close(): void {
    this.drops.close();
  }

  /** Bytes queued to `socket` for writing (engine.io write buffer + WebSocket buffer). */
  bufferedBytes(socket: BrokerSocket): number {
    const conn = socket.conn as unknown as EngineConn;
    let st = this.state.get(socket);
    if (!st) {
      st = {
        buffer: undefined,
        counted: 0,
        bytes: 0,
        overSince: null,
        turn: -1,
        backlog: 0,
        flushes: 0,
        markFlushes: -1,
        markQueue: 0,
        markLength: 0,
        progressAt: 0,
      };
      this.state.set(socket, st);
    }
    const buffer = conn.writeBuffer;
    if (st.buffer !== buffer) {
      st.buffer = buffer;
      st.flushes++;
      st.counted = 0;
      st.bytes = 0;
    }
    if (buffer) {
      for (let i = st.counted; i < buffer.length; i++) st.bytes += packetBytes(buffer[i]!.data);
      st.counted = buffer.length;
    }
    return st.bytes + backlogBytes(socket, conn.transport?.socket?.bufferedAmount ?? 0);
  }

  /**
   * `socket`'s state with `backlog`: what it had not drained when this event-loop turn began
   * (measured at its first check in the turn). Writes made during the turn wait, corked, for the
   * turn's end (see `transport/write-coalescing.ts`) and are not a backlog: a burst is not a slow
   * consumer. Over the cap, the same first check looks for drain progress (`progressAt`).
   */
  private judge(socket: BrokerSocket, s: BackPressureSettings): BufferState {
    if (!this.turnEnding) {
      this.turnEnding = true;
      setImmediate(this.endTurn);
    }
    const known = this.state.get(socket);
    if (known && known.turn === this.turn) return known;
    const bytes = this.bufferedBytes(socket);
    const st = known ?? this.state.get(socket)!;
    st.turn = this.turn;
    st.backlog = bytes;
    if (bytes <= s.max_buffered_bytes) {
      st.overSince = null;
      st.markFlushes = -1;
    } else {
      const now = this.now();
      st.overSince ??= now;
      if (this.progressed(socket, st)) st.progressAt = now;
    }
    return st;
  }

  /**
   * Whether `socket` drained anything since the last over-cap measure: engine.io flushed a write
   * buffer (polling), or the TCP send queue moved (libuv's `writeQueueSize` shrinks as the kernel
   * takes a partial write; Node's own socket timeout uses the same sign of life), or a write
   * completed. The first measure over the cap counts as progress.
   */
  private progressed(socket: BrokerSocket, st: BufferState): boolean {
    const raw = (socket.conn as unknown as EngineConn).transport?.socket?._socket;
    const queue = raw?._handle?.writeQueueSize ?? 0;
    const length = raw?.writableLength ?? 0;
    const moved =
      st.markFlushes < 0 ||
      st.flushes !== st.markFlushes ||
      queue !== st.markQueue ||
      length < st.markLength;
    st.markFlushes = st.flushes;
    st.markQueue = queue;
    st.markLength = length;
    return moved;
  }

  /** Whether `socket` is slow (see the header). Under the cap: one lookup and a comparison. */
  private slow(st: BufferState, socket: BrokerSocket, s: BackPressureSettings): boolean {
    if (st.backlog <= s.max_buffered_bytes) return false;
    const now = this.now();
    if (now - st.overSince! > s.disconnect_after_ms) this.drop(socket, st);
    return (
      now - st.progressAt > s.stall_after_ms ||
      st.backlog > s.max_buffered_bytes + this.maxInboundBurst
    );
  }

  writable(socket: BrokerSocket): boolean {
    const s = this.settings();
    return !s.enabled || !this.slow(this.judge(socket, s), socket, s);
  }

  admit(realm: string, socket: BrokerSocket): boolean {
    const s = this.settings();
    if (!s.enabled) return true;
    const st = this.judge(socket, s);
    if (!this.slow(st, socket, s)) return true;
    this.metrics.slowConsumerDrop(realm);
    this.onDrop?.(socket);
    this.drops.drop(realm, socket, {
      address: socket.handshake.address,
      buffered_bytes: st.backlog,
      max_buffered_bytes: s.max_buffered_bytes,
    });
    return false;
  }

  private drop(socket: BrokerSocket, st: BufferState): void {
    if (!socket.connected) return;
    this.logger.warn(
      {
        socket: socket.id,
        address: socket.handshake.address,
        buffered_bytes: st.bytes,
        over_cap_ms: this.now() - (st.overSince ?? this.now()),
      },
      'slow consumer disconnected: write buffer over its cap for too long',
    );
    socket.disconnect(true);
    // A graceful close would wait for the peer to drain the buffer it is not reading.
    const conn = socket.conn as unknown as EngineConn;
    conn.transport?.socket?.terminate?.();
    conn.close(true);
  }
}
