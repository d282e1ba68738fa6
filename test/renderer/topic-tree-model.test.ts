/**
 * The Topic tree page model (topic-tree-model.ts) alone: topics split at `/` into levels with
 * subtree sums (count, rate, newest time, topic count), changed topics replacing their figures,
 * expand/collapse, the filter (matches with their ancestors, opened), empty levels, and updates
 * of another tree ignored.
 */
import { describe, expect, it } from 'vitest';
import type { TopicNode, TopicTreeUpdate } from '../../shared/console-api-topics';
import { seriesRows } from '../../renderer/src/views/topics/topic-detail';
import {
  TopicTreeModel,
  topicRateText,
  topicSubsText,
} from '../../renderer/src/views/topics/topic-tree-model';

const node = (topic: string, count: number, rate = 0, lastAt: number | null = null): TopicNode => ({
  topic,
  count,
  rate,
  last: null,
  lastAt,
  retained: false,
  subscribers: null,
});

const update = (nodes: TopicNode[], seq = 0, treeId = 't1'): TopicTreeUpdate => ({
  treeId,
  connectionId: 'local',
  seq,
  at: 10_000,
  nodes,
  topics: nodes.length,
  received: 0,
  ratePerSec: 0,
  overflow: 0,
  retained: 'ok',
  retainedSeeded: 0,
  state: 'running',
  error: null,
});

const shown = (model: TopicTreeModel) =>
  model.snapshot().rows.map((r) => [r.node.path, r.node.count, r.expanded]);

describe('topic tree model', () => {
  it('builds levels with subtree sums, expands and collapses', () => {
    const model = new TopicTreeModel();
    model.reset('t1');
    model.apply(
      update([
        node('home/kitchen/temp', 5, 2, 300),
        node('home/kitchen', 1, 0.5, 100),
        node('home/hall', 3, 1, 200),
        node('plant/a', 7),
      ]),
    );
    expect(shown(model)).toEqual([
      ['home', 9, false],
      ['plant', 7, false],
    ]);
    const home = model.find('home')!;
    expect([home.rate, home.lastAt, home.topics]).toEqual([3.5, 300, 3]);
    model.toggle('home');
    expect(shown(model)).toEqual([
      ['home', 9, true],
      ['home/hall', 3, false],
      ['home/kitchen', 6, false],
      ['plant', 7, false],
    ]);
    // A changed topic replaces its figures; the sums follow.
    model.apply(update([node('home/hall', 10)], 1));
    expect(model.find('home')!.count).toBe(16);
    model.toggle('home');
    expect(shown(model)).toEqual([
      ['home', 16, false],
      ['plant', 7, false],
    ]);
  });

  it('filters to matches and their ancestors, opened', () => {
    const model = new TopicTreeModel();
    model.reset('t1');
    model.apply(update([node('a/b/speed', 1), node('a/c/temp', 1), node('x/speedy', 1)]));
    model.setFilter('SPEED');
    expect(shown(model).map(([p]) => p)).toEqual(['a', 'a/b', 'a/b/speed', 'x', 'x/speedy']);
    model.setFilter('');
    expect(shown(model).map(([p]) => p)).toEqual(['a', 'x']);
  });

  it('keeps empty levels and ignores other trees', () => {
    const model = new TopicTreeModel();
    model.reset('t1');
    model.apply(update([node('/lead', 2)]));
    model.apply(update([node('other', 1)], 0, 't2'));
    expect(shown(model)).toEqual([['', 2, false]]);
    expect(model.find('/lead')!.depth).toBe(1);
    model.reset(null);
    expect(model.snapshot().rows).toEqual([]);
  });
});

// Trial findings 8, 10, 12: one y-axis for every field, rates under 1/s shown as nothing, Subs
// "—" on levels but "0" on topics.
describe('topic tree wording and chart fields', () => {
  it('shows rates under 1/s with one decimal', () => {
    expect(topicRateText(0)).toBe('');
    expect(topicRateText(0.3)).toBe('0.3/s');
    expect(topicRateText(0.01)).toBe('<0.1/s');
    expect(topicRateText(2.25)).toBe('2.3/s');
    expect(topicRateText(1234.4)).toBe('1,234/s');
  });

  it('leaves Subs empty on a level, "—" only where the broker does not tell', () => {
    expect(topicSubsText(null)).toBe('');
    expect(topicSubsText({ subscribers: 0 })).toBe('0');
    expect(topicSubsText({ subscribers: null })).toBe('—');
  });

  it('charts only the fields not switched off', () => {
    const series = [
      { field: 'big', points: [{ t: 1, v: 35_000 }] },
      { field: 'small', points: [{ t: 1, v: 20 }] },
    ];
    const all = seriesRows(series);
    expect(all.lines.map((l) => l.label)).toEqual(['big', 'small']);
    const some = seriesRows(series, new Set(['big']));
    expect(some.lines.map((l) => l.label)).toEqual(['small']);
    expect(some.fields.map((l) => l.label)).toEqual(['big', 'small']);
    expect(some.rows).toEqual([{ t: 1, f0: 35_000, f1: 20 }]);
  });
});
