/**
 * Open-loop traffic for the catch-up scenario (`scenarios/cluster-catchup.ts`): a producer
 * that publishes at a fixed rate whatever happens to the consumers, and a log of what one
 * consumer received (counts, duplicates, order, arrival times).
 *
 * Messages are the benchmark's `{s, t, p}` objects (`clients.ts`): `s` numbers them from 0
 * across every `start`/`stop` of one producer, so a consumer can tell which of them it got.
 *
 * Units: rates in messages per second, times in ms (`performance.now()` of this process).
 */
import { performance } from 'node:perf_hooks';
import { ClientEvent } from '../../shared/protocol-events';
import { paddingFor, type BenchMessage, type Socket } from './clients';

/** Publishing tick, ms: each tick sends the messages due since the start (no drift). */
const TICK_MS = 5;

/** Publishes `{s, t, p}` messages at `rate` per second between `start()` and `stop()`. */
export class PacedProducer {
  /** The next sequence number (= messages published so far). */
  seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly padding: string;

  constructor(
    private readonly socket: Socket,
    private readonly producerName: string,
    private readonly event: string,
    private readonly rate: number,
    payloadBytes: number,
  ) {
    this.padding = paddingFor(payloadBytes);
  }

  /** Starts publishing, at most up to sequence `limit` (a no-op while running). */
  start(limit = Number.POSITIVE_INFINITY): void {
    if (this.timer) return;
    const startedAt = performance.now();
    const base = this.seq;
    const tick = () => {
      const elapsedS = (performance.now() - startedAt) / 1000;
      const due = Math.min(limit, base + Math.floor(elapsedS * this.rate));
      while (this.seq < due) this.publish(this.seq++);
    };
    this.timer = setInterval(tick, TICK_MS);
  }

  /** Stops publishing; returns the next sequence number. */
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return this.seq;
  }

  /** Publishes `count` messages at the rate, then stops; resolves with the next sequence. */
  async run(count: number): Promise<number> {
    const end = this.seq + count;
    this.start(end);
    while (this.seq < end) await sleep(TICK_MS);
    return this.stop();
  }

  /** A message outside the numbered stream (`s = -1`), e.g. a readiness probe. */
  probe(): void {
    this.publish(-1);
  }

  private publish(s: number): void {
    const message: BenchMessage = { s, t: performance.now(), p: this.padding };
    this.socket.emit(ClientEvent.PRODUCE, { event: this.event, message, from: this.producerName });
  }
}

/** What one consumer received of a `PacedProducer`'s stream, across its reconnections. */
export class ReceiptLog {
  /** First arrival time of each sequence number, ms (`NaN` = never). */
  private readonly firstAt: number[] = [];
  private maxSeen = -1;
  /** Deliveries of a sequence number already received. */
  duplicates = 0;
  /** First arrivals of a sequence number lower than one received before it. */
  orderViolations = 0;
  /** Deliveries of probes (`s < 0`). */
  probes = 0;

  /** Records one delivered message. */
  record(message: BenchMessage): void {
    const s = message.s;
    if (s < 0) {
      this.probes++;
      return;
    }
    if (this.firstAt[s] !== undefined) {
      this.duplicates++;
      return;
    }
    this.firstAt[s] = performance.now();
    if (s < this.maxSeen) this.orderViolations++;
    else this.maxSeen = s;
  }

  /** How many of the sequence numbers in `[from, to)` have arrived. */
  received(from: number, to: number): number {
    let n = 0;
    for (let s = from; s < to; s++) if (this.firstAt[s] !== undefined) n++;
    return n;
  }

  /** Latest first arrival in `[from, to)`, ms, or `null` when none arrived. */
  lastArrival(from: number, to: number): number | null {
    let last: number | null = null;
    for (let s = from; s < to; s++) {
      const at = this.firstAt[s];
      if (at !== undefined && (last === null || at > last)) last = at;
    }
    return last;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
