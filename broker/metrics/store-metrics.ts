/**
 * `tyo_mq_storage_fallback` (1 once the Redis store fell back at start-up; Note 7-A of
 * `spec/protocol-extensions.md` §7.1) and
 * `tyo_mq_store_write_failures_total{op, reason}` (issue 23 item 2), registered in the broker's
 * prom-client registry: every message-store write that failed, as the store reports it
 * (`MessageStore.observeWriteFailures`; labels and what counts: `store-write-failures.ts`).
 * Both labels take fixed words only. Every `reason` of the writes that can fail on any backend
 * (`enqueue`, `ack`) starts at 0, so an alert on `increase(…[5m]) > 0` sees a series at once.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { MetricName } from '../../shared/metric-names';
import {
  StoreWriteFailure,
  StoreWriteOp,
  type StoreWriteFailureValue,
  type StoreWriteOpValue,
} from '../storage/store-write-failures';

export class StoreMetrics {
  private readonly failures: Counter<'op' | 'reason'>;
  private fellBack: () => boolean = () => false;

  constructor(registry: Registry) {
    const fallback: Gauge = new Gauge({
      name: MetricName.STORAGE_FALLBACK,
      help: 'Whether the Redis store fell back at start-up (1) or not (0)',
      registers: [registry],
      collect: () => fallback.set(this.fellBack() ? 1 : 0),
    });
    this.failures = new Counter({
      name: MetricName.STORE_WRITE_FAILURES_TOTAL,
      help: 'Message-store writes that failed (commit, ACK delete, refused copy…), by kind of write and reason',
      labelNames: ['op', 'reason'],
      registers: [registry],
    });
    for (const op of [StoreWriteOp.ENQUEUE, StoreWriteOp.ACK]) {
      for (const reason of Object.values(StoreWriteFailure)) this.failures.inc({ op, reason }, 0);
    }
  }

  /** `tyo_mq_storage_fallback` reads `fellBack` at each scrape (Note 7-A). */
  watchFallback(fellBack: () => boolean): void {
    this.fellBack = fellBack;
  }

  /** One failed write. */
  writeFailed(op: StoreWriteOpValue, reason: StoreWriteFailureValue): void {
    this.failures.labels({ op, reason }).inc();
  }
}
