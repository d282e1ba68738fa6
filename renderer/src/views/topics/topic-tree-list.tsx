/**
 * The Topic tree's virtualised list (@tanstack/react-virtual): only the rows in view are in the
 * DOM, so 10,000 topics cost what 30 do. A row shows its level with an expand toggle, the
 * subtree's message count and rate, its own last value and how long ago the subtree last saw a
 * message; clicking the name opens the topic's detail.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useRef } from 'react';
import { formatCount, formatDuration } from '../../format';
import { topicRateText, topicSubsText, type TreeRow } from './topic-tree-model';

/** Fixed row height, px (the virtualiser's estimate; rows never grow). */
export const TOPIC_ROW_HEIGHT = 34;

interface RowProps {
  path: string;
  name: string;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
  count: number;
  rate: number;
  topics: number;
  last: string | null;
  age: string;
  retained: boolean;
  /** The Subs column's text (topicSubsText). */
  subs: string;
  selected: boolean;
  top: number;
  onToggle(path: string): void;
  onOpen(path: string): void;
}

const TopicRow = memo(function TopicRow(p: RowProps) {
  return (
    <div
      className={`topic-row${p.selected ? ' topic-row--selected' : ''}`}
      style={{ transform: `translateY(${p.top}px)` }}
      role="treeitem"
      aria-level={p.depth + 1}
      aria-expanded={p.hasChildren ? p.expanded : undefined}
      aria-selected={p.selected}
      data-testid="topic-row"
      data-path={p.path}
      data-count={p.count}
    >
      <span className="topic-row__name" style={{ paddingLeft: `${p.depth * 14}px` }}>
        {p.hasChildren ? (
          <button
            type="button"
            className="topic-row__toggle"
            onClick={() => p.onToggle(p.path)}
            aria-label={`${p.expanded ? 'Collapse' : 'Expand'} ${p.path}`}
            data-testid="topic-toggle"
          >
            {p.expanded ? '▾' : '▸'}
          </button>
        ) : (
          <span className="topic-row__toggle" aria-hidden="true" />
        )}
        <button
          type="button"
          className="topic-row__open"
          onClick={() => p.onOpen(p.path)}
          title={p.path}
          data-testid="topic-open"
        >
          {p.name === '' ? '(empty)' : p.name}
        </button>
        {p.hasChildren && <span className="muted topic-row__topics">{formatCount(p.topics)}</span>}
        {p.retained && (
          <span className="topic-row__retained" title="The broker holds a retained message">
            R
          </span>
        )}
      </span>
      <span className="topic-row__num" title="Messages (subtree)">
        {formatCount(p.count)}
      </span>
      <span className="topic-row__num topic-row__rate" title="Messages per second (subtree)">
        {topicRateText(p.rate)}
      </span>
      <span className="topic-row__last" title={p.last ?? undefined}>
        {p.last ?? ''}
      </span>
      <span className="muted topic-row__age" title="Since the last message (subtree)">
        {p.age}
      </span>
      <span
        className="muted topic-row__subs"
        title="Subscribers of this topic (— : the broker does not tell; empty: a level, no topic)"
        data-testid="topic-subs"
      >
        {p.subs}
      </span>
    </div>
  );
});

function age(now: number, at: number | null): string {
  if (at === null) return '';
  const seconds = Math.max(0, Math.round((now - at) / 1_000));
  return seconds < 1 ? 'now' : `${formatDuration(seconds)} ago`;
}

export interface TopicTreeListProps {
  rows: TreeRow[];
  /** The update's time, epoch ms: ages are counted from it. */
  now: number;
  selected: string | null;
  empty: string | null;
  onToggle(path: string): void;
  onOpen(path: string): void;
}

export const TopicTreeList = memo(function TopicTreeList({
  rows,
  now,
  selected,
  empty,
  onToggle,
  onOpen,
}: TopicTreeListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => TOPIC_ROW_HEIGHT,
    overscan: 10,
  });
  return (
    <div
      ref={scrollRef}
      className="topic-list"
      // A short tree gets a short list (head row included); a long one scrolls.
      style={{
        height: `min(64vh, 640px, ${(Math.max(rows.length, 3) + 1) * TOPIC_ROW_HEIGHT + 2}px)`,
      }}
      role="tree"
      aria-label="Topics"
      data-testid="topic-list"
      data-rows={rows.length}
    >
      <div className="topic-row topic-row--head" aria-hidden="true">
        <span>Topic</span>
        <span className="topic-row__num">Messages</span>
        <span className="topic-row__num topic-row__rate">Rate</span>
        <span className="topic-row__last">Last value</span>
        <span className="topic-row__age">Last</span>
        <span className="topic-row__subs">Subs</span>
      </div>
      {empty !== null ? (
        <p className="ops-empty" data-testid="topic-empty">
          {empty}
        </p>
      ) : (
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const { node, expanded, hasChildren } = rows[item.index]!;
            return (
              <TopicRow
                key={node.path}
                path={node.path}
                name={node.name}
                depth={node.depth}
                hasChildren={hasChildren}
                expanded={expanded}
                count={node.count}
                rate={node.rate}
                topics={node.topics}
                last={node.own?.last ?? null}
                age={age(now, node.lastAt)}
                retained={node.own?.retained ?? false}
                subs={topicSubsText(node.own ?? null)}
                selected={node.path === selected}
                top={item.start}
                onToggle={onToggle}
                onOpen={onOpen}
              />
            );
          })}
        </div>
      )}
    </div>
  );
});
