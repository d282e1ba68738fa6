/**
 * DLQ commands (`spec/protocol-admin.md` §8.2 `dlq_list`, `dlq_replay`, `dlq_discard`) over
 * the message store, with Switchboard's extensions (docs/management.md):
 * - `dlq_list`: `limit` + `cursor` paging (`next_cursor` is the id of the last entry returned;
 *   null on the last page) and filters `consumer` and `event`; `total` counts the filtered
 *   entries;
 * - `dlq_replay` / `dlq_discard`: `ids: [...]` handles many entries in one command. Each entry
 *   moves in its own store transaction (out of the DLQ and back to its consumer's queue), so a
 *   replay interrupted anywhere leaves each entry in exactly one place.
 */
import type { DlqEntry, MessageStore, StoredEntry } from '../storage/message-store';
import { CommandError, pick, type CommandBody } from './command-types';

/** Most ids one `dlq_replay` / `dlq_discard` accepts (clients send larger sets in batches). */
export const MAX_DLQ_IDS = 5_000;
/** Largest `limit` of one `dlq_list` page. */
export const MAX_DLQ_PAGE = 5_000;

const NO_DLQ = 'Storage backend has no DLQ support';

/** What the DLQ commands need: the store, and a replay that also nudges an online consumer. */
export interface DlqServices {
  readonly store: MessageStore;
  replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null>;
}

function supportsDlq(store: MessageStore): boolean {
  return (
    typeof store.listDlq === 'function' &&
    typeof store.replayDlq === 'function' &&
    typeof store.discardDlq === 'function'
  );
}

function realmFilter(body: CommandBody): string | undefined {
  return typeof body.realm === 'string' && body.realm ? body.realm : undefined;
}

/** The ids of a bulk command, or null when the single-id form is used. */
function idsParam(body: CommandBody): string[] | null {
  if (body.ids === undefined) return null;
  if (
    !Array.isArray(body.ids) ||
    body.ids.length === 0 ||
    !body.ids.every((id) => typeof id === 'string' && id !== '')
  ) {
    throw new CommandError(400, 'ids must be a non-empty array of message ids');
  }
  if (body.ids.length > MAX_DLQ_IDS) {
    throw new CommandError(400, `at most ${MAX_DLQ_IDS} ids per command`);
  }
  return [...new Set(body.ids as string[])];
}

function singleId(body: CommandBody): string {
  const id = pick(body, 'msg_id', 'msgId', 'id');
  if (typeof id !== 'string' || id === '') throw new CommandError(400, 'msg_id is required');
  return id;
}

/** `dlq_list`: `{ok, realm|null, entries, total, next_cursor}`. */
export async function dlqList(services: DlqServices, body: CommandBody) {
  if (!supportsDlq(services.store)) throw new CommandError(501, NO_DLQ);
  const realm = realmFilter(body) ?? null;
  let entries: DlqEntry[] = await services.store.listDlq(realm);
  const { consumer, event } = body;
  if (typeof consumer === 'string' && consumer) {
    entries = entries.filter((e) => e.consumer === consumer);
  }
  if (typeof event === 'string' && event) entries = entries.filter((e) => e.event === event);
  const total = entries.length;
  let start = 0;
  if (body.cursor !== undefined && body.cursor !== null) {
    const index =
      typeof body.cursor === 'string' ? entries.findIndex((e) => e.id === body.cursor) : -1;
    if (index < 0) throw new CommandError(400, 'cursor not found (list again from the start)');
    start = index + 1;
  }
  let page = entries.slice(start);
  let next: string | null = null;
  if (body.limit !== undefined) {
    const limit = body.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      throw new CommandError(400, 'limit must be a positive integer');
    }
    if (page.length > Math.min(limit, MAX_DLQ_PAGE)) {
      page = page.slice(0, Math.min(limit, MAX_DLQ_PAGE));
      next = page[page.length - 1]!.id;
    }
  }
  return { ok: true as const, realm, entries: page, total, next_cursor: next };
}

/**
 * One replayed entry as `dlq_replay` reports it: `msg_id` (the DLQ id asked for), `new_msg_id`
 * (the id of the re-queued copy — a new one, as the reference mints; consumers ACK this id),
 * and Switchboard's extras: from the re-queued envelope `replay_count` (1 on the first replay)
 * and `first_dead_lettered_at` (ISO, kept across replays); and where the copy went — its
 * `realm`, `consumer` (the group member it was moved to, when it was) and `event` (the queue's
 * subscription key, as `dlq_list`'s `event`), for the console's replay trail. Source:
 * `spec/protocol-admin.md` §8.2, docs/management.md "DLQ commands".
 */
export interface ReplayedEntry {
  msg_id: string;
  new_msg_id: string;
  replay_count: number;
  first_dead_lettered_at: string | null;
  realm: string;
  consumer: string;
  event: string;
}

function replayed(msgId: string, entry: StoredEntry): ReplayedEntry {
  const { replay_count: count, first_dead_lettered_at: first } = entry.message;
  return {
    msg_id: msgId,
    new_msg_id: entry.id,
    replay_count: typeof count === 'number' ? count : 1,
    first_dead_lettered_at: typeof first === 'string' ? first : null,
    realm: entry.realm,
    consumer: entry.consumer,
    event: entry.event,
  };
}

/**
 * `dlq_replay`: one id → `{ok, …ReplayedEntry}` (404 "DLQ message not found"); `ids` →
 * `{ok, replayed: [ReplayedEntry…], not_found}`.
 */
export async function dlqReplay(services: DlqServices, body: CommandBody) {
  if (!supportsDlq(services.store)) throw new CommandError(501, NO_DLQ);
  const realm = realmFilter(body);
  const ids = idsParam(body);
  if (ids === null) {
    const id = singleId(body);
    const entry = await services.replayDlq(id, realm);
    if (!entry) throw new CommandError(404, 'DLQ message not found');
    return { ok: true as const, ...replayed(id, entry) };
  }
  const done: ReplayedEntry[] = [];
  const notFound: string[] = [];
  for (const id of ids) {
    const entry = await services.replayDlq(id, realm);
    if (entry) done.push(replayed(id, entry));
    else notFound.push(id);
  }
  return { ok: true as const, replayed: done, not_found: notFound };
}

/** `dlq_discard`: one id → `{ok, msg_id}` (unknown ids are not an error); `ids` → lists. */
export async function dlqDiscard(services: DlqServices, body: CommandBody) {
  if (!supportsDlq(services.store)) throw new CommandError(501, NO_DLQ);
  const realm = realmFilter(body);
  const ids = idsParam(body);
  if (ids === null) {
    const id = singleId(body);
    await services.store.discardDlq(id, realm);
    return { ok: true as const, msg_id: id };
  }
  const discarded: string[] = [];
  const notFound: string[] = [];
  for (const id of ids) {
    if (await services.store.discardDlq(id, realm)) discarded.push(id);
    else notFound.push(id);
  }
  return { ok: true as const, discarded, not_found: notFound };
}
