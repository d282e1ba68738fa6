/**
 * Paging of `GET /api/realms/{realm}/dlq` (`spec/protocol-admin.md` §10.6, hardened).
 *
 * The reference answers the whole DLQ as one JSON string; past V8's string limit (about 512 Mi
 * characters, e.g. eleven 50 MiB dead letters) `JSON.stringify` throws and the process dies.
 * Here a page holds at most `limit` entries (default 100, at most 1,000) and at most
 * `maxBytes` bytes of JSON (the `http_api.max_response_bytes` setting); `next_cursor` resumes
 * after the last entry returned, or is null on the last page. An entry that alone is larger
 * than the byte cap is listed with `message: null` and `message_omitted_bytes: <n>` so that
 * paging always moves forward (replay or discard it by id).
 *
 * The cursor is opaque to clients: base64url JSON of `[dead_lettered_at, id]` of the last entry
 * served; the next page resumes after that entry, so entries removed between two reads shift
 * nothing.
 */

/** Entries per page when `limit` is absent. */
export const DLQ_DEFAULT_PAGE_SIZE = 100;
/** Largest `limit` accepted. */
export const DLQ_MAX_PAGE_SIZE = 1_000;

/** What the pager needs of a DLQ entry. */
export interface PageableEntry {
  id: string;
  dead_lettered_at: string;
  message?: unknown;
}

export interface DlqPageQuery {
  limit: number;
  /** `[dead_lettered_at, id]` of the last entry of the previous page, or null for the first. */
  after: readonly [string, string] | null;
}

export interface DlqPage {
  /** Entries already serialised (JSON text each), in page order. */
  entries: string[];
  next_cursor: string | null;
}

/** Parses `limit` and `cursor` from a query string; returns an error message on bad input. */
export function parseDlqQuery(params: URLSearchParams): DlqPageQuery | string {
  let limit = DLQ_DEFAULT_PAGE_SIZE;
  const rawLimit = params.get('limit');
  if (rawLimit !== null) {
    if (!/^\d{1,7}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > DLQ_MAX_PAGE_SIZE)
      return `limit must be an integer from 1 to ${DLQ_MAX_PAGE_SIZE}`;
    limit = Number(rawLimit);
  }
  const rawCursor = params.get('cursor');
  if (rawCursor === null || rawCursor === '') return { limit, after: null };
  const after = decodeCursor(rawCursor);
  return after ? { limit, after } : 'invalid cursor';
}

function encodeCursor(entry: PageableEntry): string {
  return Buffer.from(JSON.stringify([entry.dead_lettered_at, entry.id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] | null {
  if (cursor.length > 2_048) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string'
    ) {
      return [value[0], value[1]];
    }
  } catch {
    // fall through: not a cursor of ours
  }
  return null;
}

/**
 * One page of `entries` (in the store's order, oldest first) under `query`, with at most
 * `maxBytes` bytes of entry JSON. Serialises entry by entry, so no string grows past one entry.
 */
export function pageDlq(
  entries: readonly PageableEntry[],
  query: DlqPageQuery,
  maxBytes: number,
): DlqPage {
  const start = startIndex(entries, query.after);
  const out: string[] = [];
  let bytes = 0;
  let taken = 0;
  for (let i = start; i < entries.length && out.length < query.limit; i++) {
    const entry = entries[i]!;
    let text = serialise(entry);
    let size = text === null ? Infinity : Buffer.byteLength(text);
    if (size > maxBytes) {
      text = stub(entry, Number.isFinite(size) ? size : null);
      size = Buffer.byteLength(text);
    }
    // The first entry always goes in (a stub is small), so every page makes progress.
    if (out.length > 0 && bytes + size + 1 > maxBytes) break;
    out.push(text!);
    bytes += size + 1;
    taken++;
  }
  const end = start + taken;
  return {
    entries: out,
    next_cursor: taken > 0 && end < entries.length ? encodeCursor(entries[end - 1]!) : null,
  };
}

/**
 * Where the page after `after` starts: right after that entry, or — when it was removed
 * meanwhile — at the first entry dead-lettered at or after its time (an entry may then be
 * listed twice, never skipped).
 */
function startIndex(entries: readonly PageableEntry[], after: DlqPageQuery['after']): number {
  if (!after) return 0;
  const at = entries.findIndex((e) => e.id === after[1]);
  if (at >= 0) return at + 1;
  const next = entries.findIndex((e) => e.dead_lettered_at >= after[0]);
  return next >= 0 ? next : entries.length;
}

/** JSON of an entry without its message: its scalar fields only, which always serialise. */
function stub(entry: PageableEntry, omitted: number | null): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry)) {
    const scalar = v === null || ['string', 'number', 'boolean'].includes(typeof v);
    if (k !== 'message' && k !== 'toJSON' && scalar) out[k] = v;
  }
  out.message = null;
  out.message_omitted_bytes = omitted;
  return JSON.stringify(out);
}

/** JSON of one entry, or null when it does not fit in one V8 string. */
function serialise(entry: PageableEntry): string | null {
  try {
    return JSON.stringify(entry);
  } catch {
    return null;
  }
}
