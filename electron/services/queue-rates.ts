/**
 * Per-queue rates for the Queues view (issue 27) from successive `list_queues` readings of the
 * broker's cumulative counters (`enqueued_total`, `delivered_total`, `acked_total`,
 * docs/management.md "Queues"): publish / deliver / ACK per second, measured as every windowed
 * rate of the host (windowed-rates.ts: over at least `MIN_WINDOW_MS`, a counter going down is a
 * new start, at most `MAX_TRACKED` queues per connection remembered).
 */
import { WindowedRates } from './windowed-rates';

export { MIN_WINDOW_MS } from './windowed-rates';

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

/** Rates of one connection's queues from reading to reading. */
export class QueueRateTracker {
  private readonly windowed = new WindowedRates<keyof QueueTotals>(MAX_TRACKED);

  /** `WindowedRates.rates` of queue `id`, named as the Queues view shows them. */
  rates(id: string, totals: QueueTotals, at: number): QueueRates | null {
    const r = this.windowed.rates(id, totals, at);
    return r && { publish: r.enqueued, deliver: r.delivered, ack: r.acked };
  }
}
