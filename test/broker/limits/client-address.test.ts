/**
 * The client address behind trusted proxies and the bounded bucket tables (issue 20 item 7):
 * pure functions and explicit clocks, no broker.
 */
import { describe, expect, it } from 'vitest';
import { LimitsSchema } from '../../../broker/limits/limits-schema';
import {
  bareAddress,
  clientAddress,
  proxyEntryError,
  proxyTrust,
} from '../../../broker/limits/client-address';
import { SharedBuckets } from '../../../broker/limits/shared-buckets';
import {
  BUCKET_IDLE_MS,
  BucketTable,
  PRUNE_INTERVAL_MS,
  TokenBucket,
} from '../../../broker/limits/token-bucket';

describe('clientAddress', () => {
  const loopback = proxyTrust(true);
  const chain = proxyTrust(['loopback', '10.0.0.0/8', '2001:db8::/32']);

  it('ignores the header unless the peer is a trusted proxy', () => {
    expect(clientAddress(proxyTrust(false), '1.1.1.1', '127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddress(loopback, '1.1.1.1', '192.0.2.10')).toBe('192.0.2.10');
    expect(clientAddress(proxyTrust(['10.0.0.0/8']), '1.1.1.1', '127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddress(loopback, undefined, '127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddress(loopback, '1.1.1.1', undefined)).toBe('unknown');
  });

  it('true trusts loopback proxies, IPv4-mapped and IPv6 included', () => {
    expect(clientAddress(loopback, '203.0.113.5', '127.0.0.1')).toBe('203.0.113.5');
    expect(clientAddress(loopback, '203.0.113.5', '::ffff:127.0.0.1')).toBe('203.0.113.5');
    expect(clientAddress(loopback, '203.0.113.5', '::1')).toBe('203.0.113.5');
  });

  it('reads the right-most untrusted hop, never what the client wrote before it', () => {
    expect(clientAddress(loopback, 'spoof, 203.0.113.5', '127.0.0.1')).toBe('203.0.113.5');
    expect(clientAddress(chain, '9.9.9.9, 198.51.100.1, 10.1.2.3', '127.0.0.1')).toBe(
      '198.51.100.1',
    );
    // Repeated headers, ports, brackets and empty hops.
    expect(clientAddress(chain, ['9.9.9.9', '198.51.100.1:4444, 10.0.0.1'], '10.0.0.2')).toBe(
      '198.51.100.1',
    );
    expect(clientAddress(chain, '[2001:db9::1]:443, , 2001:db8::7', '::1')).toBe('2001:db9::1');
    // Every hop trusted: the furthest one.
    expect(clientAddress(chain, '10.0.0.9, 10.0.0.8', '127.0.0.1')).toBe('10.0.0.9');
    // A malformed hop appended by a trusted proxy is the client (bounded in length).
    expect(clientAddress(loopback, `${'x'.repeat(500)}`, '127.0.0.1')).toHaveLength(64);
  });

  it('strips ports and brackets', () => {
    expect(bareAddress(' 1.2.3.4:80 ')).toBe('1.2.3.4');
    expect(bareAddress('[::1]:80')).toBe('::1');
    expect(bareAddress('::1')).toBe('::1');
  });

  it('validates trust_proxy entries in the settings schema', () => {
    expect(proxyEntryError('10.0.0.0/8')).toBeNull();
    expect(proxyEntryError('uniquelocal')).toBeNull();
    expect(proxyEntryError('fd00::/8')).toBeNull();
    expect(proxyEntryError('10.0.0.0/33')).toMatch(/prefix length/);
    expect(proxyEntryError('my-proxy')).toMatch(/not an IP/);
    expect(LimitsSchema.safeParse({ trust_proxy: ['127.0.0.1', '10.0.0.0/8'] }).success).toBe(true);
    expect(LimitsSchema.safeParse({ trust_proxy: '127.0.0.1, 10.0.0.0/8' }).success).toBe(true);
    expect(LimitsSchema.safeParse({ trust_proxy: ['10.0.0.0/80'] }).success).toBe(false);
    expect(LimitsSchema.safeParse({ trustProxy: 'proxy.local' }).success).toBe(false);
    expect(LimitsSchema.safeParse({ trust_proxy: 1 }).success).toBe(false);
  });
});

describe('bounded bucket tables', () => {
  it('SharedBuckets: one entry per key while referenced; idle ones expire, then LRU-capped', () => {
    const t = new SharedBuckets(0, 2);
    const a1 = t.acquire('a', 0);
    const a2 = t.acquire('a', 0);
    expect(a1).toBe(a2);
    a1.messages = new TokenBucket(5, 0);
    expect(a1.messages.take(5, 0.001, 5, 0).ok).toBe(true);
    t.release(a1, 10);
    t.release(a2, 10);
    // Re-acquired within the idle window: the same, drained bucket.
    const again = t.acquire('a', 1_000);
    expect(again).toBe(a1);
    expect(again.messages!.take(1, 0.001, 5, 1_000).ok).toBe(false);
    t.release(again, 1_000);
    // Past the idle time (pruned at most once a minute) the entry goes.
    expect(t.prune(PRUNE_INTERVAL_MS)).toBe(0);
    expect(t.prune(BUCKET_IDLE_MS + PRUNE_INTERVAL_MS + 1_001)).toBe(1);
    expect(t.size).toBe(0);
    // At most 2 unreferenced entries; referenced ones are never dropped.
    const held = t.acquire('held', 0);
    for (const k of ['x', 'y', 'z']) {
      const e = t.acquire(k, 0);
      e.messages = new TokenBucket(1, 0);
      t.release(e, 0);
    }
    expect(t.size).toBe(3);
    expect(t.acquire('held', 0)).toBe(held);
    expect(t.acquire('z', 0).messages).not.toBeNull();
    // x, released first, was dropped: it starts again from nothing (a full bucket).
    expect(t.acquire('x', 0).messages).toBeNull();
  });

  it('BucketTable keeps at most maxSize keys, dropping the least recently used', () => {
    const t = new BucketTable(0, 3);
    for (const k of ['a', 'b', 'c']) t.take(k, 1, 1, 1, 0);
    t.take('a', 1, 1, 1, 0); // a is now the most recent
    t.take('d', 1, 1, 1, 0); // drops b
    expect(t.size).toBe(3);
    expect(t.take('a', 1, 0.001, 1, 0).ok).toBe(false);
    expect(t.take('b', 1, 0.001, 1, 0).ok).toBe(true);
  });
});
