/**
 * Per-queue rates for the Queues view (issue 27), computed in the console host from successive
 * `list_queues` readings of the broker's cumulative counters (`enqueued_total`,
 * `delivered_total`, `acked_total`, docs/management.md "Queues"), never in the broker: publish /
 * deliver / ACK per second over the time between two readings of the same queue. A counter
 * that went down (broker restarted, queue forgotten empty) counts as a new start: no rate
 * until the next reading. Bounded: at most `MAX_TRACKED` queues per connection are remembered.
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

interface Reading extends QueueTotals {
  at: number;
}

/** Rates of one connection's queues from reading to reading. */
export class QueueRateTracker {
  private readonly last = new Map<string, Reading>();

  /** Records the reading of queue `id` at `at` (epoch ms) and returns its rates, or null. */
  rates(id: string, totals: QueueTotals, at: number): QueueRates | null {
    const before = this.last.get(id);
    if (before) this.last.delete(id);
    else if (this.last.size >= MAX_TRACKED) {
      // The least recently read queue goes (Map order is insertion order).
      for (const oldest of this.last.keys()) {
        this.last.delete(oldest);
        break;
      }
    }
    this.last.set(id, { ...totals, at });
    if (!before || at <= before.at) return null;
    const d = (k: keyof QueueTotals) => totals[k] - before[k];
    if (d('enqueued') < 0 || d('delivered') < 0 || d('acked') < 0) return null;
    const seconds = (at - before.at) / 1000;
    return {
      publish: d('enqueued') / seconds,
      deliver: d('delivered') / seconds,
      ack: d('acked') / seconds,
    };
  }
}
