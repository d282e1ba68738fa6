/**
 * The console host's per-queue rates (electron/services/queue-rates.ts; issue 27): from two
 * readings of the broker's cumulative counters, messages per second; none on a first reading,
 * after a counter went down (broker restarted) or for a reading no later than the previous one;
 * the memory stays bounded.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TRACKED, QueueRateTracker } from '../../electron/services/queue-rates';

describe('queue rates', () => {
  it('turns two readings into rates per second', () => {
    const t = new QueueRateTracker();
    expect(t.rates('q', { enqueued: 10, delivered: 8, acked: 5 }, 1_000)).toBeNull();
    expect(t.rates('q', { enqueued: 30, delivered: 18, acked: 5 }, 3_000)).toEqual({
      publish: 10,
      deliver: 5,
      ack: 0,
    });
    expect(t.rates('q', { enqueued: 30, delivered: 18, acked: 5 }, 3_000)).toBeNull();
    // A restarted broker counts from 0 again: a new start, then rates from it.
    expect(t.rates('q', { enqueued: 2, delivered: 0, acked: 0 }, 4_000)).toBeNull();
    expect(t.rates('q', { enqueued: 6, delivered: 4, acked: 4 }, 8_000)).toEqual({
      publish: 1,
      deliver: 1,
      ack: 1,
    });
  });

  it('forgets the least recently read queue past its bound', () => {
    const t = new QueueRateTracker();
    const zero = { enqueued: 0, delivered: 0, acked: 0 };
    for (let i = 0; i <= MAX_TRACKED; i++) t.rates(`q${i}`, zero, 1);
    // q0 was pushed out, q1 is still known.
    expect(t.rates('q0', zero, 2)).toBeNull();
    expect(t.rates('q2', zero, 2)).toEqual({ publish: 0, deliver: 0, ack: 0 });
  });
});

describe('queue rates read by several callers', () => {
  it('shows a burst to every caller, not only the one that read first after it', () => {
    const t = new QueueRateTracker();
    t.rates('q', { enqueued: 4, delivered: 4, acked: 0 }, 0);
    expect(t.rates('q', { enqueued: 4, delivered: 4, acked: 0 }, 2_000)?.ack).toBe(0);
    // Four ACKs, then one caller's refetch and, 100 ms later, the table's poll.
    expect(t.rates('q', { enqueued: 4, delivered: 4, acked: 4 }, 2_100)?.ack).toBeGreaterThan(0);
    expect(t.rates('q', { enqueued: 4, delivered: 4, acked: 4 }, 2_200)?.ack).toBeGreaterThan(0);
    // A window later the burst is over.
    expect(t.rates('q', { enqueued: 4, delivered: 4, acked: 4 }, 4_000)?.ack).toBe(0);
  });

  it('measures over at least the minimum window when an older reading allows', () => {
    const t = new QueueRateTracker();
    t.rates('q', { enqueued: 0, delivered: 0, acked: 0 }, 0);
    t.rates('q', { enqueued: 10, delivered: 0, acked: 0 }, 1_000);
    // 200 ms after the last reading: measured from the reading at 0 (1.2 s), not over 0.2 s.
    expect(t.rates('q', { enqueued: 12, delivered: 0, acked: 0 }, 1_200)?.publish).toBe(10);
  });

  it('keeps a bounded number of readings however fast it is read', () => {
    const t = new QueueRateTracker();
    for (let i = 0; i < 1_000; i++) t.rates('q', { enqueued: i, delivered: 0, acked: 0 }, i + 1);
    // Still a sensible rate: 1 message per ms over whatever window is kept.
    expect(t.rates('q', { enqueued: 1_000, delivered: 0, acked: 0 }, 1_001)?.publish).toBeCloseTo(
      1_000,
    );
  });
});
