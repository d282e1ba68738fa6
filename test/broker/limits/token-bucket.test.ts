import { describe, expect, it } from 'vitest';
import {
  BUCKET_IDLE_MS,
  BucketTable,
  PRUNE_INTERVAL_MS,
  TokenBucket,
} from '../../../broker/limits/token-bucket';
import { LimitsConfig, toLimit } from '../../../broker/limits/limits-config';

describe('token bucket (protocol-admin §11.2)', () => {
  it('passes the burst, then refuses with retry_after = max(1, ceil((c − tokens)/rate))', () => {
    const b = new TokenBucket(3, 0);
    for (let i = 0; i < 3; i++) expect(b.take(1, 1, 3, 0).ok).toBe(true);
    expect(b.take(1, 1, 3, 0)).toEqual({ ok: false, retryAfter: 1 });
    // 10 tokens missing at 2/s → 5 s.
    const big = new TokenBucket(0, 0);
    expect(big.take(10, 2, 20, 0)).toEqual({ ok: false, retryAfter: 5 });
    // Never less than 1 s even when the shortfall refills in 10 ms.
    expect(new TokenBucket(0, 0).take(1, 100, 1, 0)).toEqual({ ok: false, retryAfter: 1 });
  });

  it('refills continuously at rate up to burst', () => {
    const b = new TokenBucket(2, 0);
    expect(b.take(2, 4, 2, 0).ok).toBe(true);
    expect(b.take(1, 4, 2, 100).ok).toBe(false); // 0.4 token
    expect(b.take(1, 4, 2, 250).ok).toBe(true); // 1.0 token
    // A long pause refills only up to burst.
    expect(b.take(2, 4, 2, 60_000).ok).toBe(true);
    expect(b.take(1, 4, 2, 60_000).ok).toBe(false);
  });

  it('prunes buckets idle for more than 10 min, at most once a minute', () => {
    const t = new BucketTable(0);
    t.take('a', 1, 1, 1, 0);
    t.take('b', 1, 1, 1, 0);
    expect(t.prune(PRUNE_INTERVAL_MS - 1)).toBe(0);
    expect(t.prune(BUCKET_IDLE_MS + 1)).toBe(2);
    expect(t.size).toBe(0);
    t.take('c', 1, 1, 1, BUCKET_IDLE_MS + 2);
    // The last pass was < 1 min ago: nothing is examined even if 'c' were idle.
    expect(t.prune(BUCKET_IDLE_MS + 30_000)).toBe(0);
    expect(t.size).toBe(1);
  });
});

describe('limits configuration (protocol-admin §11.1)', () => {
  it('absent, 0, negative and non-numeric mean unlimited', () => {
    for (const v of [undefined, 0, -5, 'abc', null, {}, NaN]) expect(toLimit(v)).toBeUndefined();
    expect(toLimit(5)).toBe(5);
    expect(toLimit('7')).toBe(7);
  });

  it('is enabled by a present block unless enabled:false; realm overrides beat globals', () => {
    expect(new LimitsConfig(() => undefined).enabled).toBe(false);
    expect(new LimitsConfig(() => ({ enabled: false, messages_per_second: 1 })).enabled).toBe(
      false,
    );
    const c = new LimitsConfig(() => ({
      messages_per_second: 2,
      realms: { vip: { messages_per_second: 0 }, slow: { messages_per_second: 1 } },
    }));
    expect(c.enabled).toBe(true);
    expect(c.value('messages_per_second')).toBe(2);
    expect(c.value('messages_per_second', 'other')).toBe(2);
    expect(c.value('messages_per_second', 'vip')).toBeUndefined();
    expect(c.value('messages_per_second', 'slow')).toBe(1);
    expect(c.value('messages_per_second', '__proto__')).toBe(2);
    expect(c.bucket('messages_per_second', 'message_burst', 3)).toEqual({ rate: 2, burst: 6 });
    expect(c.value('max_subscriptions_per_socket')).toBeUndefined();
  });

  it('re-reads the block at most once per second', () => {
    let now = 0;
    let block: Record<string, unknown> = { messages_per_second: 1 };
    const c = new LimitsConfig(
      () => block,
      () => now,
    );
    expect(c.value('messages_per_second')).toBe(1);
    block = { messages_per_second: 9 };
    now = 999;
    expect(c.value('messages_per_second')).toBe(1);
    now = 1_000;
    expect(c.value('messages_per_second')).toBe(9);
  });

  it('applies the pre-auth defaults without a block, none with enabled:false', () => {
    expect(new LimitsConfig(() => undefined).preAuth()).toEqual({ events: 64, bytes: 1048576 });
    expect(new LimitsConfig(() => ({ pre_auth_events: 0 })).preAuth().events).toBeUndefined();
    expect(new LimitsConfig(() => ({ enabled: false })).preAuth()).toEqual({
      events: undefined,
      bytes: undefined,
    });
  });
});
