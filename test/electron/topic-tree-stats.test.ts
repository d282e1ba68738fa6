/**
 * The Topic tree's aggregation (topic-tree-stats.ts) alone: counts and rates per period, only
 * changed topics per flush (and those whose rate fell to 0), the topic cap with its overflow
 * counter, the history and series rings' bounds, numeric fields, and the retained seed.
 */
import { describe, expect, it } from 'vitest';
import {
  TOPIC_HISTORY_PREVIEW_CHARS,
  TOPIC_HISTORY_SIZE,
  TOPIC_SERIES_MAX_FIELDS,
  TOPIC_SERIES_POINTS,
} from '../../shared/console-api-topics';
import {
  TopicTreeStats,
  numericFields,
  type TopicMessage,
} from '../../electron/services/topic-tree-stats';

const msg = (topic: string, value: unknown, at = 1_000): TopicMessage => {
  const payload = JSON.stringify(value);
  return { topic, at, from: 'p', payload, truncated: false, size: payload.length, value };
};

describe('topic tree stats', () => {
  it('counts, rates per second and reports only changed topics', () => {
    const stats = new TopicTreeStats();
    for (let i = 0; i < 10; i += 1) stats.add(msg('a/b', { i }));
    stats.add(msg('a/c', 1));
    const first = stats.flush(2_000);
    expect(first.map((n) => [n.topic, n.count, n.rate]).sort()).toEqual([
      ['a/b', 10, 5],
      ['a/c', 1, 0.5],
    ]);
    expect(stats.ratePerSec).toBe(5.5);
    // a/b keeps flowing, a/c stops: both change (a/c's rate falls to 0), then only a/b.
    stats.add(msg('a/b', { i: 11 }));
    expect(
      stats
        .flush(1_000)
        .map((n) => [n.topic, n.rate])
        .sort(),
    ).toEqual([
      ['a/b', 1],
      ['a/c', 0],
    ]);
    stats.add(msg('a/b', { i: 12 }));
    expect(stats.flush(1_000).map((n) => n.topic)).toEqual(['a/b']);
    expect(stats.flush(1_000).map((n) => [n.topic, n.rate])).toEqual([['a/b', 0]]);
    expect(stats.flush(1_000)).toEqual([]);
    expect(stats.all().map((n) => n.topic)).toEqual(['a/b', 'a/c']);
    expect(stats.received).toBe(13);
  });

  it('caps topics and counts the rest as overflow', () => {
    const stats = new TopicTreeStats(3);
    for (let i = 0; i < 5; i += 1) stats.add(msg(`t/${i}`, i));
    stats.add(msg('t/0', 9));
    expect(stats.size).toBe(3);
    expect(stats.overflow).toBe(2);
    expect(stats.received).toBe(6);
    expect(stats.detail('x', 't/4')).toBeNull();
    expect(stats.detail('x', 't/0')?.node.count).toBe(2);
  });

  it('bounds the history ring (newest first) and the series rings', () => {
    const stats = new TopicTreeStats();
    const long = 'y'.repeat(TOPIC_HISTORY_PREVIEW_CHARS * 2);
    const n = TOPIC_SERIES_POINTS + 30;
    for (let i = 0; i < n; i += 1) stats.add(msg('s', { v: i, note: long }, i));
    const detail = stats.detail('tree', 's')!;
    expect(detail.history).toHaveLength(TOPIC_HISTORY_SIZE);
    expect(detail.history.map((h) => h.at).slice(0, 3)).toEqual([n - 1, n - 2, n - 3]);
    // The newest keeps its whole preview, older ones are cut.
    expect(detail.history[0]!.payload.length).toBeGreaterThan(TOPIC_HISTORY_PREVIEW_CHARS);
    expect(detail.history[1]!.payload).toHaveLength(TOPIC_HISTORY_PREVIEW_CHARS);
    expect(detail.history[1]!.truncated).toBe(true);
    expect(detail.series).toHaveLength(1);
    const points = detail.series[0]!.points;
    expect(points).toHaveLength(TOPIC_SERIES_POINTS);
    expect(points[0]).toEqual({ t: 30, v: 30 });
    expect(points.at(-1)).toEqual({ t: n - 1, v: n - 1 });
  });

  it('finds numeric fields one level deep, at most the cap', () => {
    expect(numericFields(3.5)).toEqual([['value', 3.5]]);
    expect(numericFields('3')).toEqual([]);
    expect(numericFields({ t: 21, ok: true, s: '4', env: { rh: 40, id: 'x' }, l: [1] })).toEqual([
      ['t', 21],
      ['env.rh', 40],
    ]);
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, i]));
    expect(numericFields(wide)).toHaveLength(TOPIC_SERIES_MAX_FIELDS);
  });

  it('seeds retained messages without counting them as traffic', () => {
    const stats = new TopicTreeStats();
    stats.add(msg('live', { a: 1 }, 5));
    stats.seedRetained(msg('live', { old: true }, 1));
    stats.seedRetained(msg('kept', 'on', 2));
    const nodes = new Map(stats.flush(1_000).map((n) => [n.topic, n]));
    expect(nodes.get('kept')).toMatchObject({ count: 0, retained: true, last: '"on"', lastAt: 2 });
    // Live traffic read first stays the last value.
    expect(nodes.get('live')).toMatchObject({ count: 1, retained: true, last: '{"a":1}' });
    expect(stats.detail('t', 'kept')!.history[0]!.retained).toBe(true);
    expect(stats.received).toBe(1);
  });
});
