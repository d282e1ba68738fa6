/**
 * Queue commands (Switchboard extensions, docs/management.md "Queues"): every durable queue of
 * a broker, RabbitMQ-management style.
 *
 * - `list_queues`: one row per durable queue `(realm, subscription key, consumer_id)` — the
 *   queues the ledger counts copies for and the durable subscriptions of the realm
 *   registries (an empty queue of a live subscription is listed too) — with its ready and
 *   in-flight counts and the age of its oldest ready copy;
 * - `peek_queue`: one page of a queue's stored copies, read without changing their state;
 * - `purge_queue` / `discard_queued`: delete a queue's ready copies, all or the chosen ones
 *   (never the in-flight ones, whose ACK is awaited), each through the ledger so the caps stay
 *   exact.
 *
 * Counts: `stored` is the ledger's (expired copies count until the purge timer removes them,
 * `queue-ledger.ts`), `in_flight` the ACK tracker's (sent and un-ACKed, or waiting for a
 * retry), `ready = stored − in_flight`. Works on this node's registry and ledger.
 */
import { z } from 'zod';
import type { AckTracker } from '../delivery/ack-tracker';
import { inFlightKey } from '../delivery/ack-tracker';
import type { QueueLedger } from '../delivery/queue-ledger';
import type { Replayer } from '../delivery/replay';
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { MessageStore, StoredEntry } from '../storage/message-store';
import { CommandError, assertRealmName, pick, type CommandBody } from './command-types';

/** Largest `limit` of one `list_queues` page (default: all, up to this). */
export const MAX_QUEUE_PAGE = 5_000;
/** Largest `limit` of one `peek_queue` page; the default is `DEFAULT_PEEK`. */
export const MAX_PEEK_PAGE = 500;
export const DEFAULT_PEEK = 50;
/** Characters of a payload shown by `peek_queue` (`preview`); longer ones are cut. */
export const PREVIEW_CHARS = 256;
/** Copies one `purge_queue` deletes per round of store writes. */
const PURGE_BATCH = 1_000;
/** Most `ids` one `purge_queue` / `move_queue` / `release_in_flight` takes. */
export const MAX_ACTION_IDS = 5_000;
const Ids = z.array(z.string().min(1).max(256)).min(1).max(MAX_ACTION_IDS);

/** `value` parsed by `schema`, else `400 <what>: <zod's first issue>`. */
export function parseParam<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new CommandError(400, `${what}: ${issue?.message ?? 'invalid'}`);
}

/** The optional `ids` of a command that acts on chosen copies: undefined = all, else unique. */
export const idsParam = (body: CommandBody): string[] | undefined =>
  body.ids === undefined || body.ids === null
    ? undefined
    : [...new Set(parseParam(Ids, body.ids, `ids must be 1–${MAX_ACTION_IDS} message ids`))];
/** Most in-flight copies skipped when looking for a queue's oldest ready copy. */
const MAX_AGE_SCAN = 5_000;

/** What the queue commands need from the broker. */
export interface QueueServices {
  readonly realms: RealmDirectory;
  readonly ledger: QueueLedger;
  readonly acks: AckTracker;
  readonly store: MessageStore;
  /** Delivers a moved copy to its online consumer at once (`move_queue`). */
  readonly replayer?: Replayer;
  /** Audit lines of the changing commands (`move_queue`, `release_in_flight`). */
  readonly logger?: Logger;
  now?: () => number;
}

/** One row of `list_queues`. Ages in ms; `oldest_ready_age_ms` null when nothing is ready. */
export interface QueueRow {
  /** `JSON.stringify([realm, key, consumer_id])`: the row's identity and the page cursor. */
  id: string;
  realm: string;
  key: string;
  /** The consumer name of its subscription, else (no subscription left) the `consumer_id`. */
  consumer: string;
  consumer_id: string;
  group: string | null;
  /** Whether a durable subscription still owns the queue (false: copies left behind). */
  subscribed: boolean;
  online: boolean;
  stored: number;
  ready: number;
  in_flight: number;
  oldest_ready_age_ms: number | null;
  /** Since the broker started: copies that entered the queue, deliveries from it, ACKs. */
  enqueued_total: number;
  delivered_total: number;
  acked_total: number;
}

type Totals = Pick<QueueRow, 'enqueued_total' | 'delivered_total' | 'acked_total'>;
export type Draft = Omit<QueueRow, 'ready' | 'in_flight' | 'oldest_ready_age_ms' | keyof Totals>;

const rowId = (realm: string, key: string, consumerId: string) =>
  JSON.stringify([realm, key, consumerId]);

export function text(body: CommandBody, ...keys: string[]): string | undefined {
  const value = pick(body, ...keys);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 1_024) {
    throw new CommandError(400, `${keys[0]} must be a string`);
  }
  return value;
}

function limitParam(body: CommandBody, max: number, fallback: number): number {
  const limit = body.limit;
  if (limit === undefined || limit === null) return fallback;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw new CommandError(400, 'limit must be a positive integer');
  }
  return Math.min(limit, max);
}

/** Every durable queue of `realm` (all realms when undefined), without counts, sorted. */
function draftRows(services: QueueServices, realm: string | undefined): Draft[] {
  const rows = new Map<string, Draft>();
  for (const q of services.ledger.queues(realm)) {
    rows.set(rowId(q.realm, q.key, q.consumer), {
      id: rowId(q.realm, q.key, q.consumer),
      realm: q.realm,
      key: q.key,
      consumer: q.consumer,
      consumer_id: q.consumer,
      group: null,
      subscribed: false,
      online: false,
      stored: q.stored,
    });
  }
  for (const registry of services.realms.values()) {
    if (realm !== undefined && registry.name !== realm) continue;
    for (const byConsumer of registry.subscriptions.values()) {
      for (const record of byConsumer.values()) {
        if (!record.durable) continue;
        const id = rowId(registry.name, record.key, record.consumerId);
        const online = registry.consumers.get(record.consumer)?.socket?.connected === true;
        const row = rows.get(id);
        if (row && row.subscribed) {
          row.online ||= online;
          continue;
        }
        rows.set(id, {
          id,
          realm: registry.name,
          key: record.key,
          consumer: record.consumer,
          consumer_id: record.consumerId,
          group: record.group,
          subscribed: true,
          online,
          stored: row?.stored ?? 0,
        });
      }
    }
  }
  return [...rows.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Up to `limit` stored copies of a queue from `offset`, by the store's page if it has one. */
export function page(
  store: MessageStore,
  q: { realm: string; key: string; consumer_id: string },
  offset: number,
  limit: number,
): Promise<StoredEntry[]> {
  if (store.peekQueue) return store.peekQueue(q.realm, q.key, q.consumer_id, offset, limit);
  return store
    .dequeue(q.realm, q.key, q.consumer_id)
    .then((all) => all.slice(offset, offset + limit));
}

const ageMs = (createdAt: string, now: number) => Math.max(0, now - Date.parse(createdAt));

/** The queue's counters (zeros for a queue the ledger does not hold). */
function totalsOf(services: QueueServices, r: Draft): Totals {
  const t = services.ledger.find(r.realm, r.key, r.consumer_id)?.totals;
  return {
    enqueued_total: t?.enqueued ?? 0,
    delivered_total: t?.delivered ?? 0,
    acked_total: t?.acked ?? 0,
  };
}

/**
 * `list_queues` `{realm?, consumer?, key?, limit?, cursor?}` → `{ok, realm|null, queues:
 * [QueueRow…], total, next_cursor}`. `consumer` matches the consumer name or `consumer_id`;
 * `cursor` is the `id` of the last row of the previous page (rows are ordered by it, so a
 * queue removed meanwhile does not break paging). A realm manager key lists its own realm.
 * @throws CommandError 400 for a malformed filter, limit or cursor.
 */
export async function listQueues(services: QueueServices, body: CommandBody) {
  const realm = text(body, 'realm');
  if (realm !== undefined) assertRealmName(realm);
  const consumer = text(body, 'consumer');
  const key = text(body, 'key');
  const cursor = text(body, 'cursor');
  const limit = limitParam(body, MAX_QUEUE_PAGE, MAX_QUEUE_PAGE);
  await services.ledger.ready;
  let rows = draftRows(services, realm);
  if (consumer !== undefined) {
    rows = rows.filter((r) => r.consumer === consumer || r.consumer_id === consumer);
  }
  if (key !== undefined) rows = rows.filter((r) => r.key === key);
  const total = rows.length;
  if (cursor !== undefined) rows = rows.filter((r) => r.id > cursor);
  const next = rows.length > limit ? rows[limit - 1]!.id : null;
  rows = rows.slice(0, limit);

  const now = (services.now ?? Date.now)();
  const flights = new Map<string, Map<string, Set<string>>>();
  const inFlightOf = (r: Draft): Set<string> | undefined => {
    let byQueue = flights.get(r.realm);
    if (!byQueue) flights.set(r.realm, (byQueue = services.acks.inFlight(r.realm)));
    return byQueue.get(inFlightKey(r.key, r.consumer_id));
  };
  const queues: QueueRow[] = [];
  for (const r of rows) {
    const flying = inFlightOf(r);
    const inFlight = Math.min(flying?.size ?? 0, r.stored);
    const ready = r.stored - inFlight;
    let oldest: number | null = null;
    if (ready > 0) {
      // The oldest copy not in flight: the first of the queue's head past the in-flight ones.
      const head = await page(services.store, r, 0, Math.min(inFlight + 1, MAX_AGE_SCAN));
      const first = head.find((e) => !flying?.has(e.id));
      if (first) oldest = ageMs(first.created_at, now);
    }
    queues.push({
      ...r,
      ready,
      in_flight: inFlight,
      oldest_ready_age_ms: oldest,
      ...totalsOf(services, r),
    });
  }
  return { ok: true as const, realm: realm ?? null, queues, total, next_cursor: next };
}

/** The queues of `consumer` (name or `consumer_id`) in `realm`, `key` narrowing them. */
export async function queuesOf(services: QueueServices, body: CommandBody): Promise<Draft[]> {
  const realm = text(body, 'realm');
  if (realm === undefined) throw new CommandError(400, 'realm is required');
  assertRealmName(realm);
  const consumer = text(body, 'consumer', 'consumer_id');
  if (consumer === undefined) throw new CommandError(400, 'consumer is required');
  const key = text(body, 'key');
  await services.ledger.ready;
  const rows = draftRows(services, realm).filter(
    (r) =>
      (r.consumer === consumer || r.consumer_id === consumer) &&
      (key === undefined || r.key === key),
  );
  if (rows.length === 0) throw new CommandError(404, 'queue not found');
  return rows;
}

/** A payload as `peek_queue` shows it: JSON text cut at `PREVIEW_CHARS`, and its size. */
function preview(message: unknown): { size: number; preview: string; truncated: boolean } {
  const json = typeof message === 'string' ? message : (JSON.stringify(message) ?? 'null');
  return {
    size: Buffer.byteLength(json, 'utf8'),
    preview: json.length > PREVIEW_CHARS ? json.slice(0, PREVIEW_CHARS) : json,
    truncated: json.length > PREVIEW_CHARS,
  };
}

/**
 * `peek_queue` `{realm, consumer, key?, limit?, cursor?}` → `{ok, realm, key, consumer,
 * consumer_id, stored, messages, next_cursor}`: the stored copies oldest first, each `{msg_id,
 * event, producer, created_at, age_ms, attempts, in_flight, size (bytes of the payload's
 * JSON), preview, truncated, ack_deadline_at, next_retry_at}` — for an in-flight copy `attempts` is
 * the ACK tracker's (the attempt under way) and the two times (ISO, else null) say when its ACK
 * wait ends or its retry is due. `state: "in_flight"` / `"ready"` lists those copies only
 * (the stuck consumer's view; what a move takes) — read whole from the store, then paged. Reads only: no attempt is counted, nothing is delivered.
 * `cursor` is the position (a decimal string) where the next page starts; copies ACKed
 * meanwhile shift it, so a page may repeat or skip a copy then. `key` is required when the
 * consumer has several queues.
 * @throws CommandError 400 (missing realm/consumer, ambiguous key, bad limit/cursor),
 *   404 `queue not found`.
 */
export async function peekQueue(services: QueueServices, body: CommandBody) {
  const rows = await queuesOf(services, body);
  if (rows.length > 1) {
    throw new CommandError(400, `key is required: the consumer has ${rows.length} queues`);
  }
  const q = rows[0]!;
  const limit = limitParam(body, MAX_PEEK_PAGE, DEFAULT_PEEK);
  const cursor = text(body, 'cursor') ?? '0';
  if (!/^\d{1,9}$/.test(cursor)) throw new CommandError(400, 'cursor must be a position');
  const offset = Number(cursor);
  const state = text(body, 'state');
  if (state !== undefined && state !== 'in_flight' && state !== 'ready') {
    throw new CommandError(400, 'state must be "ready" or "in_flight"');
  }
  const flying = services.acks.inFlight(q.realm).get(inFlightKey(q.key, q.consumer_id));
  const entries =
    state === undefined
      ? await page(services.store, q, offset, limit + 1)
      : (await services.store.dequeue(q.realm, q.key, q.consumer_id))
          .filter((e) => (flying?.has(e.id) ?? false) === (state === 'in_flight'))
          .slice(offset, offset + limit + 1);
  const now = (services.now ?? Date.now)();
  const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
  const messages = entries.slice(0, limit).map((e) => {
    const tracked = flying?.has(e.id) ? services.acks.stateOf(e.id) : undefined;
    return {
      msg_id: e.id,
      event: e.message.event ?? e.event,
      producer: e.producer || e.message.from || '',
      created_at: e.created_at,
      age_ms: ageMs(e.created_at, now),
      attempts: Math.max(e.attempts, tracked?.attempt ?? 0),
      in_flight: tracked !== undefined,
      ack_deadline_at: iso(tracked?.ackDeadlineAt),
      next_retry_at: iso(tracked?.nextRetryAt),
      ...preview(e.message.message),
    };
  });
  return {
    ok: true as const,
    realm: q.realm,
    key: q.key,
    consumer: q.consumer,
    consumer_id: q.consumer_id,
    stored: q.stored,
    messages,
    next_cursor: entries.length > limit ? String(offset + limit) : null,
  };
}

/** Deletes the ready copies of `rows` (only those of `ids` when given); see the commands below. */
async function deleteReady(services: QueueServices, rows: Draft[], ids: string[] | undefined) {
  const wanted = ids && new Set(ids);
  const seen = new Set<string>();
  const realm = rows[0]!.realm;
  const byQueue = services.acks.inFlight(realm);
  let purged = 0;
  let kept = 0;
  const queues: Array<{ key: string; consumer_id: string; purged: number }> = [];
  for (const q of rows) {
    const flying = byQueue.get(inFlightKey(q.key, q.consumer_id));
    let n = 0;
    const ready: string[] = [];
    for (const entry of await services.store.dequeue(realm, q.key, q.consumer_id)) {
      if (wanted && !wanted.has(entry.id)) continue;
      seen.add(entry.id);
      if (flying?.has(entry.id)) kept++;
      else ready.push(entry.id);
    }
    // Deletes in batches started together: the SQLite store commits each batch at once
    // (group commit) rather than one fsync per copy.
    for (let i = 0; i < ready.length; i += PURGE_BATCH) {
      const done = await Promise.all(
        ready
          .slice(i, i + PURGE_BATCH)
          .map((id) => services.ledger.ack(id, realm, q.key, q.consumer_id)),
      );
      n += done.filter(Boolean).length;
    }
    purged += n;
    queues.push({ key: q.key, consumer_id: q.consumer_id, purged: n });
  }
  const notFound = ids ? ids.filter((id) => !seen.has(id)) : [];
  return { realm, consumer: rows[0]!.consumer, purged, kept, notFound, queues };
}

/**
 * `purge_queue` `{realm, consumer, key?}` → `{ok, realm, consumer, purged, in_flight_kept,
 * queues: [{key, consumer_id, purged}]}`: deletes the ready copies of the consumer's queues
 * (all of them without `key`). In-flight copies stay: their ACK, retry or dead-lettering is
 * still on its way. Each copy leaves through the ledger, so caps and gauges stay exact.
 * `ids` is refused: chosen copies are `discard_queued`'s, a distinct command so that a broker
 * without it answers "unknown command" instead of ignoring `ids` and purging everything.
 * @throws CommandError 400 (missing realm/consumer, `ids`), 404 `queue not found`.
 */
export async function purgeQueue(services: QueueServices, body: CommandBody) {
  if (body.ids !== undefined && body.ids !== null) {
    throw new CommandError(400, 'purge_queue deletes every ready copy: use discard_queued for ids');
  }
  const r = await deleteReady(services, await queuesOf(services, body), undefined);
  return {
    ok: true as const,
    realm: r.realm,
    consumer: r.consumer,
    purged: r.purged,
    in_flight_kept: r.kept,
    queues: r.queues,
  };
}

/**
 * `discard_queued` `{realm, consumer, key?, ids}` → `{ok, realm, consumer, discarded,
 * in_flight_kept, not_found, queues: [{key, consumer_id, purged}]}`: deletes the ready copies
 * of `ids` (1–5,000 message ids, e.g. picked from `peek_queue`; the console's "Discard
 * selected") from the consumer's queues, and no other. In-flight ones among them stay
 * (`in_flight_kept`); ids in none of the queues (ACKed or moved since) come back in `not_found`.
 * @throws CommandError 400 (missing realm/consumer, missing or bad `ids`), 404 `queue not found`.
 */
export async function discardQueued(services: QueueServices, body: CommandBody) {
  const ids = idsParam(body);
  if (!ids) throw new CommandError(400, 'ids is required');
  const r = await deleteReady(services, await queuesOf(services, body), ids);
  return {
    ok: true as const,
    realm: r.realm,
    consumer: r.consumer,
    discarded: r.purged,
    in_flight_kept: r.kept,
    not_found: r.notFound,
    queues: r.queues,
  };
}
