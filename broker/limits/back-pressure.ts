/**
 * Back-pressure for slow consumers (Switchboard hardening, issue 11): a consumer that stops
 * reading must not grow the broker's memory without bound.
 *
 * The bytes queued to a socket are engine.io's write buffer (packets waiting while the transport
 * is busy) plus the WebSocket's own buffer (`ws.bufferedAmount`: frames handed to a TCP socket
 * the peer does not drain). Past `back_pressure.max_buffered_bytes` (default 8 MiB):
 * - plain copies to that socket are dropped and counted
 *   (`tyo_mq_slow_consumer_drops_total{realm}`);
 * - durable / ACK copies stay in the store for replay and are not emitted (see `writable`);
 * - a socket over the cap for longer than `back_pressure.disconnect_after_ms` (default 30 s) is
 *   disconnected and its transport destroyed, which frees what it had buffered.
 * Healthy sockets pay a few property reads per copy; the write-buffer size is counted
 * incrementally (engine.io appends to the array and replaces it when it flushes).
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
interface EngineConn {
  writeBuffer?: Packet[];
  transport?: { socket?: { bufferedAmount?: number; terminate?: () => void } };
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
}

function packetBytes(data: unknown): number {
  if (typeof data === 'string') return data.length;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

export class BackPressure implements SendGate {
  private readonly state = new WeakMap<BrokerSocket, BufferState>();
  private turn = 0;
  private turnEnding = false;

  constructor(
    private readonly settings: () => BackPressureSettings,
    private readonly metrics: LimitMetrics,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bytes queued to `socket` for writing (engine.io write buffer + WebSocket buffer). */
  bufferedBytes(socket: BrokerSocket): number {
    const conn = socket.conn as unknown as EngineConn;
    let st = this.state.get(socket);
    if (!st) {
      st = { buffer: undefined, counted: 0, bytes: 0, overSince: null, turn: -1, backlog: 0 };
      this.state.set(socket, st);
    }
    const buffer = conn.writeBuffer;
    if (st.buffer !== buffer) {
      st.buffer = buffer;
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
   * What `socket` had not drained when this event-loop turn began (measured at its first check
   * in the turn). Writes made during the turn wait, corked, for the turn's end (see
   * `transport/write-coalescing.ts`) and are not a backlog: a burst is not a slow consumer.
   */
  private backlog(socket: BrokerSocket): number {
    if (!this.turnEnding) {
      this.turnEnding = true;
      setImmediate(() => {
        this.turn++;
        this.turnEnding = false;
      });
    }
    const st = this.state.get(socket);
    if (st && st.turn === this.turn) return st.backlog;
    const bytes = this.bufferedBytes(socket);
    const fresh = this.state.get(socket)!;
    fresh.turn = this.turn;
    fresh.backlog = bytes;
    return bytes;
  }

  writable(socket: BrokerSocket): boolean {
    const s = this.settings();
    if (!s.enabled) return true;
    const over = this.backlog(socket) > s.max_buffered_bytes;
    const st = this.state.get(socket)!;
    if (!over) {
      st.overSince = null;
      return true;
    }
    const now = this.now();
    st.overSince ??= now;
    if (now - st.overSince > s.disconnect_after_ms) this.drop(socket, st);
    return false;
  }

  admit(realm: string, socket: BrokerSocket): boolean {
    if (this.writable(socket)) return true;
    this.metrics.slowConsumerDrop(realm);
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
