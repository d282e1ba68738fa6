/**
 * The rate limits of the HTTP routes (`spec/protocol-extensions.md` §5.8): `POST /pub` takes
 * one token from `msg:http:<ip>` and one byte from `bytes:http:<ip>`; `GET /sub` and
 * `POST /sub-ticket` share `msg:sse:<ip>` / `bytes:sse:<ip>`. Rates and bursts are the
 * `limits` block's `messages_per_second` / `message_burst` (default 3 × rate) and
 * `bytes_per_second` / `bytes_burst` (default 2 × rate).
 *
 * Note 5-I: the reference picks the per-realm override by the path realm before
 * authentication, so a client could choose the most generous realm. Here only the global
 * values apply to these pre-authentication buckets.
 */
import type { LimitsConfig } from '../limits/limits-config';
import type { LimitMetrics } from '../limits/limit-metrics';
import { BucketTable } from '../limits/token-bucket';

/** A refusal: the seconds to wait (`retry_after`). */
export interface HttpRefusal {
  retryAfter: number;
}

export class HttpBuckets {
  private readonly table = new BucketTable();

  constructor(
    private readonly config: LimitsConfig,
    private readonly metrics: LimitMetrics,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one message and one byte for `kind` from `ip`'s buckets; null when allowed. */
  take(kind: 'http' | 'sse', ip: string): HttpRefusal | null {
    if (!this.config.enabled) return null;
    const now = this.now();
    const msg = this.config.bucket('messages_per_second', 'message_burst', 3);
    if (msg) {
      const r = this.table.take(`msg:${kind}:${ip}`, 1, msg.rate, msg.burst, now);
      if (!r.ok) return this.refused('messages_per_second', r.retryAfter);
    }
    const bytes = this.config.bucket('bytes_per_second', 'bytes_burst', 2);
    if (bytes) {
      const r = this.table.take(`bytes:${kind}:${ip}`, 1, bytes.rate, bytes.burst, now);
      if (!r.ok) return this.refused('bytes_per_second', r.retryAfter);
    }
    return null;
  }

  private refused(reason: string, retryAfter: number): HttpRefusal {
    this.metrics.rateLimit(reason);
    return { retryAfter };
  }
}
