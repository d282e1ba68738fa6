/**
 * Pure helpers of the Dead letters view: search over event, consumer, reason and payload (one
 * lower-cased haystack per entry, built once), export as JSON lines, and batched actions that
 * can be cancelled between batches without losing entries (each entry moves in its own broker
 * transaction: it is either still in the DLQ or replayed/discarded, never both or neither).
 */
import {
  MAX_DEAD_LETTER_BATCH,
  type DeadLetter,
  type DeadLetterBatchResult,
} from '../../../../shared/console-api-operations';

/** Entries loaded into the view at most (the list is virtualised; memory is the limit). */
export const MAX_LOADED_ENTRIES = 100_000;
/** Page size of the loading loop; the first page is smaller, so the first rows show sooner. */
export const LOAD_PAGE = 1_000;
export const FIRST_PAGE = 200;
/** Ids per replay/discard call (smaller than the API's maximum, so progress moves and Cancel acts soon). */
export const ACTION_BATCH = Math.min(100, MAX_DEAD_LETTER_BATCH);

/** An entry with its search haystack. */
export interface IndexedDeadLetter {
  entry: DeadLetter;
  haystack: string;
}

export function indexEntry(entry: DeadLetter): IndexedDeadLetter {
  const { origin } = entry;
  return {
    entry,
    haystack: [
      entry.id,
      origin.event,
      origin.key,
      origin.producer,
      entry.consumer,
      entry.reason,
      entry.payload ?? '',
    ]
      .join('\n')
      .toLowerCase(),
  };
}

/** Entries whose event, key, producer, consumer, reason, id or payload contain every word. */
export function searchEntries(entries: IndexedDeadLetter[], query: string): IndexedDeadLetter[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return entries;
  return entries.filter((e) => words.every((word) => e.haystack.includes(word)));
}

/** One JSON object per line (the payload parsed back to JSON where it is complete). */
export function toJsonLines(entries: DeadLetter[]): string {
  return entries
    .map((entry) => {
      let payload: unknown = entry.payload;
      if (entry.payload !== null && !entry.payloadTruncated) {
        try {
          payload = JSON.parse(entry.payload);
        } catch {
          payload = entry.payload;
        }
      }
      return JSON.stringify({ ...entry, payload });
    })
    .join('\n')
    .concat(entries.length ? '\n' : '');
}

export interface BatchProgress {
  done: number;
  total: number;
}

/**
 * Runs `call` over `ids` in batches of `ACTION_BATCH`, reporting progress and the ids each batch
 * settled (done or no longer there). Stops before the next batch once `cancelled()` is true;
 * resolves with the ids settled. A failing batch rejects (the ids of earlier batches stay settled).
 */
export async function runBatches(
  ids: string[],
  call: (batch: string[]) => Promise<DeadLetterBatchResult>,
  hooks: {
    cancelled: () => boolean;
    onProgress: (progress: BatchProgress) => void;
    onSettled: (ids: string[]) => void;
  },
): Promise<string[]> {
  const settled: string[] = [];
  hooks.onProgress({ done: 0, total: ids.length });
  for (let i = 0; i < ids.length; i += ACTION_BATCH) {
    if (hooks.cancelled()) break;
    const result = await call(ids.slice(i, i + ACTION_BATCH));
    const batchSettled = [...result.done, ...result.notFound];
    settled.push(...batchSettled);
    hooks.onSettled(batchSettled);
    hooks.onProgress({ done: Math.min(ids.length, i + ACTION_BATCH), total: ids.length });
  }
  return settled;
}
