/**
 * The Queues view's table model: the rows of `listQueues` filtered by realm, consumer and key
 * (case-insensitive substrings) and sorted by a column, ties broken by realm, key, consumer id
 * (the broker's order). Pure, so the view re-renders only on new data or a new setting.
 */
import type { QueueRow } from '../../../../shared/console-api-queues';
import { formatDuration } from '../../format';

/** Sortable columns: counts and age descending by default (the busiest queues first). */
export type QueueSort = 'name' | 'ready' | 'inFlight' | 'age';
export type SortDirection = 'asc' | 'desc';

export interface QueueFilters {
  realm: string;
  consumer: string;
  key: string;
}

export const NO_FILTERS: QueueFilters = { realm: '', consumer: '', key: '' };

const contains = (value: string, part: string): boolean =>
  part === '' || value.toLowerCase().includes(part.trim().toLowerCase());

function sortValue(row: QueueRow, sort: QueueSort): number {
  if (sort === 'ready') return row.ready;
  if (sort === 'inFlight') return row.inFlight;
  if (sort === 'age') return row.oldestReadyAgeMs ?? -1;
  return 0;
}

/** The rows to show: filtered, then sorted by `sort` in `direction` (name: broker order). */
export function shownQueues(
  rows: readonly QueueRow[],
  filters: QueueFilters,
  sort: QueueSort,
  direction: SortDirection,
): QueueRow[] {
  const out = rows.filter(
    (r) =>
      contains(r.realm, filters.realm) &&
      (contains(r.consumer, filters.consumer) || contains(r.consumerId, filters.consumer)) &&
      contains(r.key, filters.key),
  );
  const sign = direction === 'asc' ? 1 : -1;
  return out.sort((a, b) => {
    const d = sort === 'name' ? 0 : sortValue(a, sort) - sortValue(b, sort);
    if (d !== 0) return d * sign;
    const byId = a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return sort === 'name' ? byId * sign : byId;
  });
}

/** A queue age for the table: `"—"` when nothing is ready, else `"<1s"`, `"45s"`, `"3m 05s"`… */
export function ageText(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1_000 ? '<1s' : formatDuration(ms / 1_000);
}

/** A payload size: `"980 B"`, `"12.3 KB"`, `"5.2 MB"`. */
export function sizeText(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A rate in messages per second: `"—"` before the second reading, else `"0"`, `"0.4"`, `"12"`. */
export function rateText(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined) return '—';
  if (perSecond === 0) return '0';
  return perSecond < 10 ? perSecond.toFixed(1) : String(Math.round(perSecond));
}
