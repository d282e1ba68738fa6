/**
 * The live tap's page-side state, kept outside React so that a fast stream never re-renders per
 * message: a capped ring of the newest messages, pause (batches still counted, not shown),
 * clear, a text filter, and a change signal throttled to one per `renderEveryMs`.
 *
 * The host already samples each tap down to its `maxRatePerSec` (shared/console-api-tap.ts);
 * the ring caps what the page holds however long it runs.
 */
import type { TapBatch, TapInfo, TapMessage } from '../../../shared/console-api-tap';
import type { ErrorInfo } from '../../../shared/error-catalogue';

/** Messages the page keeps per tap. */
export const TAP_RING_CAPACITY = 500;
/** Rows rendered at most (newest first). */
export const TAP_VISIBLE_ROWS = 100;

export interface TapSnapshot {
  info: TapInfo | null;
  running: boolean;
  paused: boolean;
  /** Totals reported by the host since the tap started. */
  received: number;
  sampledOut: number;
  ratePerSec: number;
  /** Messages that arrived while paused (not added to the ring). */
  missedWhilePaused: number;
  /** Messages currently held (≤ `TAP_RING_CAPACITY`). */
  held: number;
  /** The rows to show, newest first, after the filter. */
  rows: TapMessage[];
  error: ErrorInfo | null;
  /** Increases on every visible change (for `useSyncExternalStore`). */
  version: number;
}

export class TapModel {
  private ring: (TapMessage | undefined)[] = new Array<TapMessage | undefined>(TAP_RING_CAPACITY);
  private start = 0;
  private count = 0;
  private filter = '';
  private listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private snap: TapSnapshot;

  constructor(private readonly renderEveryMs = 250) {
    this.snap = {
      info: null,
      running: false,
      paused: false,
      received: 0,
      sampledOut: 0,
      ratePerSec: 0,
      missedWhilePaused: 0,
      held: 0,
      rows: [],
      error: null,
      version: 0,
    };
  }

  snapshot = (): TapSnapshot => this.snap;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** A tap started: earlier messages are dropped. */
  started(info: TapInfo): void {
    this.clearRing();
    this.snap = {
      ...this.snap,
      info,
      running: true,
      paused: false,
      received: 0,
      sampledOut: 0,
      ratePerSec: 0,
      missedWhilePaused: 0,
      error: null,
    };
    this.changed(true);
  }

  /** Applies a batch of the current tap; batches of other taps are ignored. */
  apply(batch: TapBatch): void {
    if (!this.snap.info || batch.tapId !== this.snap.info.tapId) return;
    const next = {
      ...this.snap,
      received: batch.received,
      sampledOut: batch.sampledOut,
      ratePerSec: batch.ratePerSec,
    };
    if (batch.state === 'stopped') {
      next.running = false;
      next.error = batch.error as ErrorInfo | null;
    }
    if (this.snap.paused) {
      next.missedWhilePaused += batch.messages.length;
    } else {
      for (const message of batch.messages) this.push(message);
    }
    this.snap = next;
    this.changed(batch.state === 'stopped');
  }

  stopped(error: ErrorInfo | null = null): void {
    this.snap = { ...this.snap, running: false, error };
    this.changed(true);
  }

  /** Pause shows at once: the rows freeze with this call. */
  setPaused(paused: boolean): void {
    this.snap = {
      ...this.snap,
      paused,
      missedWhilePaused: paused ? 0 : this.snap.missedWhilePaused,
    };
    this.changed(true);
  }

  setFilter(text: string): void {
    this.filter = text.trim().toLowerCase();
    this.changed(true);
  }

  clear(): void {
    this.clearRing();
    this.snap = { ...this.snap, missedWhilePaused: 0 };
    this.changed(true);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  private push(message: TapMessage): void {
    const end = (this.start + this.count) % TAP_RING_CAPACITY;
    this.ring[end] = message;
    if (this.count < TAP_RING_CAPACITY) this.count += 1;
    else this.start = (this.start + 1) % TAP_RING_CAPACITY;
  }

  private clearRing(): void {
    this.ring = new Array<TapMessage | undefined>(TAP_RING_CAPACITY);
    this.start = 0;
    this.count = 0;
  }

  private rows(): TapMessage[] {
    const rows: TapMessage[] = [];
    const filter = this.filter;
    for (let i = this.count - 1; i >= 0 && rows.length < TAP_VISIBLE_ROWS; i -= 1) {
      const message = this.ring[(this.start + i) % TAP_RING_CAPACITY] as TapMessage;
      if (
        filter &&
        !message.event.toLowerCase().includes(filter) &&
        !message.from.toLowerCase().includes(filter) &&
        !message.payload.toLowerCase().includes(filter)
      ) {
        continue;
      }
      rows.push(message);
    }
    return rows;
  }

  /** Publishes a new snapshot now (`immediate`) or at most once per `renderEveryMs`. */
  private changed(immediate: boolean): void {
    if (immediate) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.publish();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.publish();
    }, this.renderEveryMs);
  }

  private publish(): void {
    // While paused the ring does not change, so the rows stay as they are (filtering still works).
    const rows = this.rows();
    this.snap = { ...this.snap, rows, held: this.count, version: this.snap.version + 1 };
    this.listeners.forEach((listener) => listener());
  }
}
