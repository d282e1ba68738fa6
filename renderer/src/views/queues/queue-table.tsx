/**
 * The Queues view's table (issue 27), virtualised with @tanstack/react-virtual so that 5,000
 * queues render as the few dozen rows in sight: the table scrolls inside its own box (header
 * sticky), rows outside it are replaced by two spacer rows, and each row's height is measured
 * (rows become taller cards on narrow screens). Sorting is by the column headers; the last
 * column shows the host's rates (publish · deliver · ACK per second).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useRef } from 'react';
import type { QueueRow } from '../../../../shared/console-api-queues';
import { StatusBadge } from '../../components/status-badge';
import { formatCount } from '../../format';
import { ageText, rateText, type QueueSort, type SortDirection } from './queues-model';

/** Estimated row height, px (a wide-screen row: name line, key line, badges). */
const ROW_ESTIMATE = 78;

const COLUMNS: Array<{ sort: QueueSort; label: string; numeric: boolean }> = [
  { sort: 'name', label: 'Queue', numeric: false },
  { sort: 'ready', label: 'Ready', numeric: true },
  { sort: 'inFlight', label: 'In flight', numeric: true },
  { sort: 'age', label: 'Oldest ready', numeric: true },
];

const QueueTableRow = memo(function QueueTableRow({
  ref,
  row,
  index,
  selected,
  onSelect,
}: {
  /** The virtualizer's `measureElement`. */
  ref: (element: HTMLTableRowElement | null) => void;
  row: QueueRow;
  index: number;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  const select = (): void => onSelect(row.id);
  return (
    <tr
      ref={ref}
      data-index={index}
      className={`queues-row${selected ? ' queues-row--selected' : ''}`}
      data-testid={`queue-row-${row.consumer}`}
      aria-selected={selected}
      onClick={select}
    >
      <td className="queues-cell--name" data-label="Queue">
        <button type="button" className="queues-open" onClick={select}>
          <strong>{row.consumer}</strong>
        </button>
        <span className="queues-sub">
          <code>{row.key}</code>
          <span className="muted"> · {row.realm}</span>
          {row.group && <span className="muted"> · group {row.group}</span>}
        </span>
        <span className="queues-badges">
          <StatusBadge
            label={row.online ? 'online' : 'offline'}
            tone={row.online ? 'ok' : 'idle'}
          />
          {!row.subscribed && <StatusBadge label="no subscription" tone="busy" />}
        </span>
      </td>
      <td
        className="queues-num"
        data-label="Ready"
        data-testid="queue-ready"
        data-value={row.ready}
      >
        {formatCount(row.ready)}
      </td>
      <td
        className="queues-num"
        data-label="In flight"
        data-testid="queue-in-flight"
        data-value={row.inFlight}
      >
        {formatCount(row.inFlight)}
      </td>
      <td className="queues-num" data-label="Oldest ready">
        {ageText(row.oldestReadyAgeMs)}
      </td>
      <td
        className="queues-num queues-rates"
        data-label="Publish · deliver · ACK /s"
        data-testid="queue-rates"
        title="Messages per second: published into the queue · delivered · ACKed"
      >
        <span data-testid="queue-rate-publish">{rateText(row.rates?.publish)}</span>
        {' · '}
        <span data-testid="queue-rate-deliver">{rateText(row.rates?.deliver)}</span>
        {' · '}
        <span data-testid="queue-rate-ack">{rateText(row.rates?.ack)}</span>
      </td>
    </tr>
  );
});

export interface QueueTableProps {
  rows: readonly QueueRow[];
  sort: QueueSort;
  direction: SortDirection;
  selectedId: string | null;
  onSort: (column: QueueSort) => void;
  onSelect: (id: string) => void;
}

export function QueueTable({
  rows,
  sort,
  direction,
  selectedId,
  onSort,
  onSelect,
}: QueueTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer's functions are never memoised here
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_ESTIMATE,
    getItemKey: (index) => rows[index]!.id,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  return (
    <div className="queues-scroll" ref={scrollRef} data-testid="queues-scroll">
      <table className="queues-table" data-testid="queues-table" aria-rowcount={rows.length + 1}>
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th
                key={c.sort}
                className={c.numeric ? 'queues-num' : undefined}
                aria-sort={
                  sort === c.sort ? (direction === 'asc' ? 'ascending' : 'descending') : 'none'
                }
              >
                <button
                  type="button"
                  className="queues-sort"
                  onClick={() => onSort(c.sort)}
                  data-testid={`queues-sort-${c.sort}`}
                >
                  {c.label}
                  {sort === c.sort ? (direction === 'asc' ? ' ▲' : ' ▼') : ''}
                </button>
              </th>
            ))}
            <th className="queues-num" title="Messages per second: published · delivered · ACKed">
              Publish · deliver · ACK /s
            </th>
          </tr>
        </thead>
        <tbody>
          {before > 0 && <tr className="queues-spacer" style={{ height: before }} aria-hidden />}
          {items.map((item) => {
            const row = rows[item.index]!;
            return (
              <QueueTableRow
                key={row.id}
                row={row}
                index={item.index}
                selected={row.id === selectedId}
                onSelect={onSelect}
                ref={virtualizer.measureElement}
              />
            );
          })}
          {after > 0 && <tr className="queues-spacer" style={{ height: after }} aria-hidden />}
        </tbody>
      </table>
    </div>
  );
}
