/**
 * Token buckets (`spec/protocol-admin.md` §11.2): a bucket starts full at `burst`, refills
 * continuously at `rate` tokens per second up to `burst`, and an action costing `c` passes when
 * at least `c` tokens remain. A refusal carries `retry_after = max(1, ceil((c − tokens) / rate))`
 * seconds. Rate and burst are passed on every `take`, so a hot-reloaded limit applies to the
 * bucket's next action without losing its current fill.
 */

/** Buckets not touched for this long are pruned by `BucketTable.prune` (ms; §11.2: 10 min). */
export const BUCKET_IDLE_MS = 10 * 60_000;
/** `BucketTable.prune` does real work at most once per this interval (ms; §11.2: 1 min). */
export const PRUNE_INTERVAL_MS = 60_000;

/** Outcome of `take`: passed, or refused with the seconds to wait (≥ 1). */
export type TakeResult = { ok: true } | { ok: false; retryAfter: number };

const PASSED: TakeResult = { ok: true };

export class TokenBucket {
  private tokens: number;
  private at: number;

  /** A full bucket of `burst` tokens at `now` (epoch ms). */
  constructor(burst: number, now: number) {
    this.tokens = burst;
    this.at = now;
  }

  /** Epoch ms of the last `take` (or creation). */
  get lastUsed(): number {
    return this.at;
  }

  /**
   * Refills for the time elapsed since the last call, then takes `cost` tokens if there are
   * enough. `rate` is tokens per second (> 0), `burst` the capacity (> 0).
   */
  take(cost: number, rate: number, burst: number, now: number): TakeResult {
    const elapsed = Math.max(0, now - this.at) / 1000;
    this.tokens = Math.min(burst, this.tokens + elapsed * rate);
    this.at = now;
    if (this.tokens >= cost) {
      this.tokens -= cost;
      return PASSED;
    }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((cost - this.tokens) / rate)) };
  }
}

/** Keys a `BucketTable` holds at most by default (least recently used dropped beyond). */
export const MAX_TABLE_BUCKETS = 100_000;

/**
 * Buckets by key (an IP, a socket id…), created full on first use, pruned when idle and bounded
 * in number: past `maxSize` keys the least recently used bucket goes (that key starts full again).
 */
export class BucketTable {
  /** In least-recently-used order (a `take` moves its key to the end). */
  private readonly buckets = new Map<string, TokenBucket>();
  private lastPrune: number;

  constructor(
    now: number = Date.now(),
    private readonly maxSize: number = MAX_TABLE_BUCKETS,
  ) {
    this.lastPrune = now;
  }

  get size(): number {
    return this.buckets.size;
  }

  take(key: string, cost: number, rate: number, burst: number, now: number): TakeResult {
    this.prune(now);
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
    } else {
      bucket = new TokenBucket(burst, now);
      if (this.buckets.size >= this.maxSize) {
        this.buckets.delete(this.buckets.keys().next().value as string);
      }
    }
    this.buckets.set(key, bucket);
    return bucket.take(cost, rate, burst, now);
  }

  delete(key: string): void {
    this.buckets.delete(key);
  }

  /**
   * Drops buckets idle for more than `BUCKET_IDLE_MS`; does nothing when the last pass was less
   * than `PRUNE_INTERVAL_MS` ago. Returns the number of buckets dropped.
   */
  prune(now: number): number {
    if (now - this.lastPrune < PRUNE_INTERVAL_MS) return 0;
    this.lastPrune = now;
    let dropped = 0;
    for (const [key, bucket] of this.buckets) {
      // Least recently used first: the first bucket still in use ends the pass.
      if (now - bucket.lastUsed <= BUCKET_IDLE_MS) break;
      this.buckets.delete(key);
      dropped++;
    }
    return dropped;
  }
}
