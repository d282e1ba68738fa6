/**
 * The Topic tree page model (topic-tree-model.ts) alone: topics split at `/` into levels with
 * subtree sums (count, rate, newest time, topic count), changed topics replacing their figures,
 * expand/collapse, the filter (matches with their ancestors, opened), empty levels, and updates
 * of another tree ignored.
 */
import { describe, expect, it } from 'vitest';
import type { TopicNode, TopicTreeUpdate } from '../../shared/console-api-topics';
import { TopicTreeModel } from '../../renderer/src/views/topics/topic-tree-model';

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
