/**
 * `switchboard-admin dlq list|replay|discard` over the broker's `dlq_list`, `dlq_replay` and
 * `dlq_discard` commands (docs/management.md, "DLQ commands").
 *
 * - `list` shows one page (`--limit`, default 50) with the filtered total and, when more
 *   entries follow, the command that lists the next page (`--cursor`).
 * - `replay` / `discard` send ids in batches of 500 with a progress line; ids the DLQ does not
 *   hold are listed and make the command exit 1, so a script notices a replay that did nothing.
 */
import { print, RefusedError, run, str, UsageError, type CliContext } from './cli-context';
import type { Reply } from './connection';
import { table } from './format';
import { DEFAULT_DLQ_PAGE } from './usage';

/** Ids sent per bulk command (the broker accepts up to 5,000). */
export const BULK_BATCH = 500;

const FILTERS = ['realm', 'consumer', 'event'] as const;

function dlqFilter(c: CliContext): Record<string, unknown> {
  const f: Record<string, unknown> = {};
  for (const k of FILTERS) if (str(c, k)) f[k] = str(c, k);
  return f;
}

/** A shell word as typed: plain when safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function pageLimit(c: CliContext): number {
  const text = str(c, 'limit');
  if (text === undefined) return DEFAULT_DLQ_PAGE;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError('--limit must be a positive whole number');
  }
  return limit;
}

/** One DLQ entry as listed: the event its producer sent, not the subscription key. */
type ListedEntry = Record<string, unknown> & { message?: { event?: unknown } };

async function list(c: CliContext): Promise<void> {
  const limit = pageLimit(c);
  const cursor = str(c, 'cursor');
  const reply = await run(c, {
    command: 'dlq_list',
    ...dlqFilter(c),
    limit,
    ...(cursor ? { cursor } : {}),
  });
  const entries = reply.entries as ListedEntry[];
  const total = typeof reply.total === 'number' ? reply.total : entries.length;
  const next = typeof reply.next_cursor === 'string' ? reply.next_cursor : null;
  print(c, reply, () => {
    const rows = table(
      ['id', 'realm', 'event', 'producer', 'consumer', 'reason', 'dead_lettered_at'],
      entries.map((e) => [
        e.id,
        e.realm,
        // `event` of a stored entry is its subscription key (`producer-event`); the envelope
        // holds the event as produced.
        e.message?.event ?? e.event,
        e.producer,
        e.consumer,
        e.reason,
        e.dead_lettered_at,
      ]),
    );
    const shown = `${entries.length} shown of ${total} dead letter${total === 1 ? '' : 's'}${cursor ? ` (after ${cursor})` : ''}`;
    if (!next) return `${rows}\n${shown}`;
    const words = ['switchboard-admin', 'dlq', 'list'];
    for (const k of FILTERS) if (str(c, k)) words.push(`--${k}`, str(c, k)!);
    words.push('--limit', String(limit), '--cursor', next);
    return `${rows}\n${shown}; more: ${words.map(shellWord).join(' ')}`;
  });
}

/** Every DLQ id matching the filter, read page by page. */
async function allIds(c: CliContext): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Reply = await run(c, {
      command: 'dlq_list',
      ...dlqFilter(c),
      limit: 1_000,
      ...(cursor ? { cursor } : {}),
    });
    ids.push(...(page.entries as Array<{ id: string }>).map((e) => e.id));
    cursor = (page.next_cursor as string | null | undefined) ?? null;
  } while (cursor);
  return ids;
}

/**
 * `dlq list|replay|discard`. Bulk operations go in batches with a progress line.
 * @throws RefusedError (404) after the summary when some ids were not in the DLQ.
 */
export async function dlq(c: CliContext, action: string | undefined, ids: string[]): Promise<void> {
  if (action === 'list') return list(c);
  if (action !== 'replay' && action !== 'discard') throw new UsageError('dlq list|replay|discard');
  if (action === 'discard' && c.opts.all && !c.opts.yes)
    throw new UsageError('discarding every entry: add --yes');
  const targets = c.opts.all ? await allIds(c) : ids;
  if (targets.length === 0)
    throw new UsageError(
      c.opts.all ? 'the DLQ has no matching entries' : 'message id(s) or --all required',
    );
  const command = action === 'replay' ? 'dlq_replay' : 'dlq_discard';
  const verb = action === 'replay' ? 'replayed' : 'discarded';
  let done = 0;
  const missing: string[] = [];
  for (let i = 0; i < targets.length; i += BULK_BATCH) {
    const batch = targets.slice(i, i + BULK_BATCH);
    const reply = await run(
      c,
      { command, ids: batch, ...(str(c, 'realm') ? { realm: str(c, 'realm') } : {}) },
      120_000,
    );
    done += batch.length - (reply.not_found as string[]).length;
    missing.push(...(reply.not_found as string[]));
    // One batch is answered by the summary alone; a progress line would only repeat it.
    if (targets.length > BULK_BATCH) {
      c.progress(
        `${verb} ${done}/${targets.length}${missing.length ? ` (${missing.length} not found)` : ''}`,
      );
    }
  }
  print(
    c,
    { ok: missing.length === 0, [verb]: done, not_found: missing },
    () =>
      `${verb} ${done} of ${targets.length}${missing.length ? `; not found: ${missing.join(', ')}` : ''}`,
  );
  if (missing.length > 0) {
    throw new RefusedError({
      ok: false,
      code: 404,
      message: `${missing.length} of ${targets.length} id(s) not in the DLQ${str(c, 'realm') ? ` of realm ${str(c, 'realm')}` : ''}`,
      not_found: missing,
    });
  }
}
