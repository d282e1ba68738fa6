/**
 * Counters of the limits area, registered in the broker's prom-client registry:
 * - `tyo_mq_rate_limited_total{reason=<§11.3 key>}`: every breach (`spec/protocol-admin.md` §11.3);
 * - `tyo_mq_rejected_inputs_total{reason}`: inputs refused, reasons from `RejectReason`;
 * - `tyo_mq_slow_consumer_drops_total{realm}`: plain copies not sent to a slow socket (over its
 *   write-buffer cap and stalled, or over the ceiling: `back-pressure.ts`).
 * Label values are our own fixed keys, or realm names (bounded by configuration).
 */
import { Counter, type Registry } from 'prom-client';
import { MetricName } from '../../shared/metric-names';

/** Why an input was refused (`reason` label of `tyo_mq_rejected_inputs_total`). */
export const RejectReason = {
  OVERSIZE_FRAME: 'oversize_frame',
  MALFORMED: 'malformed',
  RATE_LIMITED: 'rate_limited',
  UNAUTHORIZED: 'unauthorized',
  /** An HTTP request or upgrade whose `Origin` the request policy refused (issue 19). */
  FORBIDDEN_ORIGIN: 'forbidden_origin',
  /** An HTTP request or upgrade whose `Host` the request policy refused (DNS rebinding). */
  FORBIDDEN_HOST: 'forbidden_host',
  /** An engine.io request for the JSONP transport (never served). */
  JSONP: 'jsonp',
  /** An event name on `/` that no route handles (`broker/handlers/unknown-event.ts`). */
  UNKNOWN_EVENT: 'unknown_event',
} as const;
export type RejectReasonValue = (typeof RejectReason)[keyof typeof RejectReason];

export class LimitMetrics {
  private readonly rateLimited: Counter<'reason'>;
  private readonly rejected: Counter<'reason'>;
  private readonly slowDrops: Counter<'realm'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.rateLimited = new Counter({
      name: MetricName.RATE_LIMITED_TOTAL,
      help: 'Rate-limit and quota breaches, by limit key',
      labelNames: ['reason'],
      registers,
    });
    this.rejected = new Counter({
      name: MetricName.REJECTED_INPUTS_TOTAL,
      help: 'Client inputs refused, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.slowDrops = new Counter({
      name: MetricName.SLOW_CONSUMER_DROPS_TOTAL,
      help: 'Plain copies dropped because the consumer socket was slow (over its write-buffer cap and stalled, or over the ceiling)',
      labelNames: ['realm'],
      registers,
    });
  }

  /** One breach of `reason` (a §11.3 key); also counted as a `rate_limited` rejected input. */
  rateLimit(reason: string): void {
    this.rateLimited.labels({ reason }).inc();
    this.rejected.labels({ reason: RejectReason.RATE_LIMITED }).inc();
  }

  rejectedInput(reason: RejectReasonValue): void {
    this.rejected.labels({ reason }).inc();
  }

  slowConsumerDrop(realm: string, count = 1): void {
    this.slowDrops.labels({ realm }).inc(count);
  }
}
