/**
 * The alarm rules (broker/metrics/resource-alarms.ts; docs/management.md "Resources and
 * alarms") over readings built by hand: each threshold, the level, the disk warning giving way
 * to the critical refusal, `since` kept while raised and reset after a clear.
 */
import { describe, expect, it } from 'vitest';
import { AlarmBook, AlarmsSchema, type AlarmInput } from '../../../broker/metrics/resource-alarms';

const defaults = AlarmsSchema.parse({});

function reading(patch: Partial<AlarmInput> = {}, at = 1_000): AlarmInput {
  return {
    at,
    uptime_s: 1,
    memory: { rss_bytes: 100e6, heap_used_bytes: 50e6, heap_total_bytes: 60e6 },
    event_loop: { p50_ms: 1, p99_ms: 5, max_ms: 10 },
    open_fds: 20,
    store: {
      backend: 'sqlite',
      files: [],
      dlq_entries: 0,
      queues: 0,
      oldest_ready_age_ms: null,
      fell_back: false,
      redis_reachable: null,
    },
    disk: {
      refusing_writes: false,
      reason: null,
      free_bytes: 10e9,
      total_bytes: 100e9,
      reserve_bytes: 256e6,
      path: '/data',
    },
    dlq_added: 0,
    ...patch,
  };
}

describe('alarm rules', () => {
  it('raises nothing on a healthy reading with the defaults', () => {
    expect(new AlarmBook().evaluate(reading(), defaults)).toEqual([]);
  });

  it('event_loop_delay: warning above the threshold, critical above 5×', () => {
    const book = new AlarmBook();
    const loop = (p99_ms: number) => reading({ event_loop: { p50_ms: 1, p99_ms, max_ms: p99_ms } });
    expect(book.evaluate(loop(200), defaults)).toEqual([]);
    expect(book.evaluate(loop(250), defaults)[0]).toMatchObject({
      id: 'event_loop_delay',
      level: 'warning',
      value: 250,
      threshold: 200,
    });
    expect(book.evaluate(loop(1_200), defaults)[0]?.level).toBe('critical');
  });

  it('memory only when rss_bytes is set', () => {
    const big = reading({ memory: { rss_bytes: 2e9, heap_used_bytes: 1, heap_total_bytes: 1 } });
    expect(new AlarmBook().evaluate(big, defaults)).toEqual([]);
    const on = AlarmsSchema.parse({ rss_bytes: 1e9 });
    expect(new AlarmBook().evaluate(big, on).map((a) => a.id)).toEqual(['memory']);
  });

  it('disk: disk_low below factor × reserve, store_refusing (critical) once copies are refused', () => {
    const disk = (free: number, refusing = false) =>
      reading({
        disk: {
          refusing_writes: refusing,
          reason: refusing ? 'low_free_space' : null,
          free_bytes: free,
          total_bytes: 100e9,
          reserve_bytes: 256e6,
          path: '/data',
        },
      });
    const book = new AlarmBook();
    expect(book.evaluate(disk(600e6), defaults)).toEqual([]);
    expect(book.evaluate(disk(400e6), defaults)).toMatchObject([
      { id: 'disk_low', level: 'warning', threshold: 512e6 },
    ]);
    expect(book.evaluate(disk(100e6, true), defaults)).toMatchObject([
      { id: 'store_refusing', level: 'critical' },
    ]);
  });

  it('dlq_growing and queue_stale follow their thresholds; 0 turns them off', () => {
    const r = reading({
      dlq_added: 2,
      store: {
        backend: 'sqlite',
        files: [],
        dlq_entries: 9,
        queues: 3,
        oldest_ready_age_ms: 400_000,
        fell_back: false,
        redis_reachable: null,
      },
    });
    expect(new AlarmBook().evaluate(r, defaults).map((a) => a.id)).toEqual([
      'dlq_growing',
      'queue_stale',
    ]);
    const off = AlarmsSchema.parse({ dlq_growth: 0, queue_oldest_age_ms: 0 });
    expect(new AlarmBook().evaluate(r, off)).toEqual([]);
    expect(
      new AlarmBook().evaluate(r, AlarmsSchema.parse({ dlq_growth: 3 })).map((a) => a.id),
    ).toEqual(['queue_stale']);
  });

  it('keeps since while raised, starts again after a clear', () => {
    const book = new AlarmBook();
    const slow = (at: number) =>
      reading({ event_loop: { p50_ms: 1, p99_ms: 500, max_ms: 500 } }, at);
    expect(book.evaluate(slow(1_000), defaults)[0]?.since).toBe(1_000);
    expect(book.evaluate(slow(2_000), defaults)[0]?.since).toBe(1_000);
    expect([...book.active()]).toEqual(['event_loop_delay']);
    expect(book.evaluate(reading({}, 3_000), defaults)).toEqual([]);
    expect([...book.active()]).toEqual([]);
    expect(book.evaluate(slow(4_000), defaults)[0]?.since).toBe(4_000);
  });

  it('storage_fell_back: a warning after a fallback, critical once Redis answers again', () => {
    const fell = (redis_reachable: boolean | null) =>
      reading({
        store: {
          backend: 'memory',
          files: [],
          dlq_entries: 0,
          queues: 0,
          oldest_ready_age_ms: null,
          fell_back: true,
          redis_reachable,
        },
      });
    const book = new AlarmBook();
    expect(book.evaluate(fell(null), defaults)).toMatchObject([
      { id: 'storage_fell_back', level: 'warning' },
    ]);
    expect(book.evaluate(fell(true), defaults)[0]).toMatchObject({
      id: 'storage_fell_back',
      level: 'critical',
      message: expect.stringMatching(/Redis answers again/),
    });
  });

  it('refuses unknown threshold keys and a factor below 1', () => {
    expect(AlarmsSchema.safeParse({ disk_warn_factor: 0.5 }).success).toBe(false);
    expect(AlarmsSchema.safeParse({ nope: 1 }).success).toBe(false);
  });
});
