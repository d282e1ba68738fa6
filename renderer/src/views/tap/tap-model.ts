/**
 * The live tap's page-side state, kept outside React so that a fast stream never re-renders per
 * message: a capped ring of the newest messages, pause (batches still counted, not shown),
 * clear, a text filter, and a change signal throttled to one per `renderEveryMs`.
 *
 * The host already samples each tap down to its `maxRatePerSec` (shared/console-api-tap.ts);
 * the ring caps what the page holds however long it runs.
 */
import type { TapBatch, TapInfo, TapMessage, TapTarget } from '../../../../shared/console-api-tap';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import { Protocol } from '../../../../shared/protocol-events';

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
  /** The filter in use (trimmed, lower case; '' for none). */
  filter: string;
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
      filter: '',
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

  /** Every kept message that passes the filter, newest first (for export; not capped at 100). */
  kept(): TapMessage[] {
    return this.rows(TAP_RING_CAPACITY);
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

  private rows(limit = TAP_VISIBLE_ROWS): TapMessage[] {
    const rows: TapMessage[] = [];
    const filter = this.filter;
    for (let i = this.count - 1; i >= 0 && rows.length < limit; i -= 1) {
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
    this.snap = {
      ...this.snap,
      rows,
      filter: this.filter,
      held: this.count,
      version: this.snap.version + 1,
    };
    this.listeners.forEach((listener) => listener());
  }
}

/**
 * What the empty list says, from the snapshot: why no row is shown (not started, paused, the
 * filter matches none of the kept messages, cleared, or nothing has arrived yet); null when rows
 * are shown.
 */
export function tapEmptyText(snap: TapSnapshot): string | null {
  if (snap.rows.length > 0) return null;
  const n = (count: number, noun: string): string =>
    `${count.toLocaleString('en-GB')} ${noun}${count === 1 ? '' : 's'}`;
  if (snap.filter !== '' && snap.held > 0) {
    const which =
      snap.held === 1
        ? 'the one kept message does not contain it'
        : `none of the ${n(snap.held, 'kept message')} contains it`;
    return (
      `No row matches the filter "${snap.filter}": ${which} in its event, producer or payload.` +
      (snap.paused ? ' The tap is paused.' : '')
    );
  }
  if (!snap.running) {
    return snap.received > 0
      ? `The tap stopped after ${n(snap.received, 'message')}; the list was cleared.`
      : 'Start a tap to see messages here.';
  }
  if (snap.paused) {
    return snap.missedWhilePaused > 0
      ? `Paused: ${n(snap.missedWhilePaused, 'message')} arrived since and ${snap.missedWhilePaused === 1 ? 'is' : 'are'} not shown. Resume to see new ones.`
      : 'Paused: messages that arrive are counted but not shown. Resume to see new ones.';
  }
  if (snap.received > 0) {
    return `Cleared: ${n(snap.received, 'message')} received so far; new ones appear here as they arrive.`;
  }
  return 'Waiting for messages: none has matched this tap yet.';
}

/** The tap's target in words, e.g. "topic trucks/#" or "event ping of any producer". */
export function describeTapTarget(target: TapTarget): string {
  if (target.kind === 'topic') return `topic ${target.pattern}`;
  const producer = target.producer === Protocol.ALL_PUBLISHERS ? 'any producer' : target.producer;
  return target.event.toUpperCase() === Protocol.EVENT_ALL
    ? `every event of ${producer}`
    : `event ${target.event} of ${producer}`;
}

/** How the tap got into the realm, in words. */
export function describeTapAccess(access: TapInfo['access']): string {
  switch (access) {
    case 'open':
      return 'open realm';
    case 'admin':
      return 'admin token';
    case 'temporary':
      return 'temporary token (revoked when the tap stops)';
    case 'auth-off':
      return 'auth is off';
  }
}
