/**
 * `EventCounts`: the per-realm `event` label counts of `spec/protocol-admin.md` §10.4, kept as
 * plain numbers and capped at `maxEventLabels` distinct labels per realm (the rest count as
 * `event="other"`). Used by broker-metrics.ts.
 */
import type { Counter } from 'prom-client';
import { OTHER_EVENT_LABEL } from '../../shared/metric-names';

/**
 * Per-label counts kept as plain numbers on the hot path and handed to prom-client when it
 * collects (at scrape time): incrementing a labelled prom-client counter hashes its labels,
 * which costs more than the delivery it counts.
 */
export class EventCounts {
  /** `realm → event label → count not yet handed over`, bounded per realm. */
  private readonly pending = new Map<string, Map<string, number>>();
  /** `realm → labels seen`, to keep the cap after the pending counts are flushed. */
  private readonly seen = new Map<string, Set<string>>();

  constructor(private readonly maxEventLabels: number) {}

  add(realm: string, event: string, n = 1): void {
    let byEvent = this.pending.get(realm);
    if (!byEvent) {
      byEvent = new Map();
      this.pending.set(realm, byEvent);
    }
    const count = byEvent.get(event);
    if (count !== undefined) {
      byEvent.set(event, count + n);
      return;
    }
    let labels = this.seen.get(realm);
    if (!labels) {
      labels = new Set();
      this.seen.set(realm, labels);
    }
    let label = event;
    if (!labels.has(event)) {
      if (labels.size >= this.maxEventLabels) label = OTHER_EVENT_LABEL;
      else labels.add(event);
    }
    // Past the cap, unseen events count under "other" (and are not remembered one by one).
    byEvent.set(label, (byEvent.get(label) ?? 0) + n);
  }

  /** Hands every pending count to `counter` and clears them. */
  flushInto(counter: Counter<'event' | 'realm'>): void {
    for (const [realm, byEvent] of this.pending) {
      for (const [event, n] of byEvent) counter.inc({ event, realm }, n);
    }
    this.pending.clear();
  }
}
