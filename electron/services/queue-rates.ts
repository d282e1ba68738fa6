/**
 * Per-queue rates for the Queues view (issue 27), computed in the console host from successive
 * `list_queues` readings of the broker's cumulative counters (`enqueued_total`,
 * `delivered_total`, `acked_total`, docs/management.md "Queues"), never in the broker: publish /
 * deliver / ACK per second over at least `MIN_WINDOW_MS` between readings of the same
 * queue. A counter that went down (broker restarted, queue forgotten empty) counts as a new
 * start: no rate until the next reading. Bounded: at most `MAX_TRACKED` queues per connection
 * are remembered.
 */

/** A queue's counters at one reading. */
export interface QueueTotals {
  enqueued: number;
  delivered: number;
  acked: number;
}

/** Messages per second; null until a queue has been read twice. */
export interface QueueRates {
  publish: number;
  deliver: number;
  ack: number;
}

/** Queues remembered per connection (a page of `list_queues` holds at most 5,000). */
export const MAX_TRACKED = 20_000;

/**
 * The shortest time a rate is measured over, ms, when an older reading allows: readings of the
 * same connection come from every caller (the table's 2 s poll, its refetch after an action, a
 * second window), so reading-to-reading deltas would let one caller's reading a few ms after a
 * burst swallow it and show the others 0.
 */
export const MIN_WINDOW_MS = 1_000;

/** Readings kept per queue (those inside the last window plus the one before it), at most. */
const MAX_READINGS = 16;

interface Reading extends QueueTotals {
  at: number;
}

/** Rates of one connection's queues from reading to reading. */
export class QueueRateTracker {
  /** Per queue, oldest first: the newest reading at least `MIN_WINDOW_MS` old, then later ones. */
  private readonly last = new Map<string, Reading[]>();

  /**
   * Records the reading of queue `id` at `at` (epoch ms) and returns its rates over the time
   * since the newest earlier reading at least {@link MIN_WINDOW_MS} older (else the oldest
   * kept), or null: a first reading, one no later than the previous, or a counter that went
   * down (a new start).
   */
  rates(id: string, totals: QueueTotals, at: number): QueueRates | null {
    const kept = this.last.get(id);
    if (kept) this.last.delete(id);
    else if (this.last.size >= MAX_TRACKED) {
      // The least recently read queue goes (Map order is insertion order).
      for (const oldest of this.last.keys()) {
        this.last.delete(oldest);
        break;
      }
    }
    const latest = kept?.at(-1);
    if (!kept || !latest) {
      this.last.set(id, [{ ...totals, at }]);
      return null;
    }
    if (at <= latest.at) {
      this.last.set(id, kept);
      return null;
    }
    const down = (k: keyof QueueTotals) => totals[k] < latest[k];
    if (down('enqueued') || down('delivered') || down('acked')) {
      this.last.set(id, [{ ...totals, at }]);
      return null;
    }
    const base = baseOf(kept, at);
    const seconds = (at - base.at) / 1000;
    const d = (k: keyof QueueTotals) => (totals[k] - base[k]) / seconds;
    const rates = { publish: d('enqueued'), deliver: d('delivered'), ack: d('acked') };
    // A later reading's base is never older than this one's: keep it and what came after.
    const next = [...kept.slice(kept.indexOf(base)), { ...totals, at }];
    this.last.set(id, next.slice(-MAX_READINGS));
    return rates;
  }
}

/** The newest of `readings` at least `MIN_WINDOW_MS` before `at`, else the oldest. */
function baseOf(readings: readonly Reading[], at: number): Reading {
  for (let i = readings.length - 1; i >= 0; i--) {
    if (at - readings[i]!.at >= MIN_WINDOW_MS) return readings[i]!;
  }
  return readings[0]!;
}
