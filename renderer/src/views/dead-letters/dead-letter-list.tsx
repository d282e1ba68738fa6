/**
 * The virtualised dead-letter list (`@tanstack/react-virtual`): only the rows in view (plus a few)
 * are in the DOM. Its own component, so that scrolling re-renders the list alone, not the page.
 * With `followTail` the newest row (the last: the list is oldest first) is kept in view.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import { DeadLetterRow, ROW_HEIGHT } from './dead-letter-row';
import type { IndexedDeadLetter } from './dead-letters-model';

export interface DeadLetterListProps {
  shown: IndexedDeadLetter[];
  /** Text shown instead of rows, or null to show the rows. */
  empty: string | null;
  selected: ReadonlySet<string>;
  focused: string | null;
  /** Scroll to the newest row whenever rows are added (follow mode). */
  followTail?: boolean;
  onToggle: (id: string) => void;
  onFocus: (id: string) => void;
}

export const DeadLetterList = memo(function DeadLetterList({
  shown,
  empty,
  selected,
  focused,
  followTail = false,
  onToggle,
  onFocus,
}: DeadLetterListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  useEffect(() => {
    if (followTail && shown.length > 0)
      virtualizer.scrollToIndex(shown.length - 1, { align: 'end' });
  }, [followTail, shown.length, virtualizer]);
  return (
    <div
      ref={scrollRef}
      className="ops-list"
      data-testid="dlq-list"
      role="list"
      aria-label="Dead letters"
    >
      {empty !== null ? (
        <p className="ops-empty" data-testid="dlq-empty">
          {empty}
        </p>
      ) : (
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const { entry } = shown[item.index]!;
            return (
              <DeadLetterRow
                key={entry.id}
                entry={entry}
                top={item.start}
                selected={selected.has(entry.id)}
                focused={focused === entry.id}
                onToggle={onToggle}
                onFocus={onFocus}
              />
            );
          })}
        </div>
      )}
    </div>
  );
});
