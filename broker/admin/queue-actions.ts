/**
 * The queue commands that act on copies (Switchboard extensions, docs/management.md "Queues"):
 *
 * - `move_queue`: moves ready copies of a durable queue to another consumer's queue or to
 *   another subscription key — the DLQ replay's group hand-over generalised (same code path,
 *   `delivery/queue-move.ts`: the new copy is stored before the old one is deleted);
 * - `release_in_flight`: for a stuck consumer, ends the ACK wait of its in-flight copies now
 *   and redelivers them to another online member of its group, else leaves them ready
 *   (`AckTracker.releaseNow`, counted as an ACK timeout).
 *
 * Both change data: logged at info (the audit line), and recorded by the console's Activity.
 */
import { z } from 'zod';
import { inFlightKey } from '../delivery/ack-tracker';
import { dropMoved, storeMoved, type QueueTarget } from '../delivery/queue-move';
import { liveSocket } from '../delivery/reliable-copy';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { StoredEntry } from '../storage/message-store';
import { CommandError, type CommandBody } from './command-types';
import {
  idsParam,
  parseParam as parse,
  queuesOf,
  type Draft,
  type QueueServices,
} from './queue-commands';

/** Copies moved per round of store writes (started together: one group commit each). */
const MOVE_BATCH = 500;

const Name = z.string().min(1).max(1_024);
const MoveTo = z
  .object({ consumer: Name.optional(), event: Name.optional(), key: Name.optional() })
  .strict()
  .refine((t) => t.consumer !== undefined || t.event !== undefined || t.key !== undefined, {
    message: 'to needs a consumer or an event',
  });

/** The one queue a command acts on; `key` is required when the consumer has several. */
async function oneQueue(services: QueueServices, body: CommandBody): Promise<Draft> {
  const rows = await queuesOf(services, body);
  if (rows.length > 1) {
    throw new CommandError(400, `key is required: the consumer has ${rows.length} queues`);
  }
  return rows[0]!;
}

/** The durable subscription `name` (consumer or `consumer_id`) holds on `key`, if any. */
function durableRecord(
  services: QueueServices,
  realm: string,
  key: string,
  name: string,
): SubscriptionRecord | undefined {
  const records = services.realms.get(realm)?.subscriptions.get(key)?.values() ?? [];
  for (const r of records) {
    if (r.durable && (r.consumer === name || r.consumerId === name)) return r;
  }
  return undefined;
}

/**
 * `move_queue` `{realm, consumer, key?, ids?, to: {consumer?, event?}}` → `{ok, realm, consumer,
 * key, to: {consumer, consumer_id, key}, moved, in_flight_kept, not_found, copies: [{msg_id,
 * new_msg_id}]}`. Moves the ready copies of the queue (all, or those of `ids`, up to 5,000) to
 * the durable queue of `to.consumer` (default: the same consumer) under subscription key
 * `to.event` (default: the same key; `to.key` is an alias), which must exist. In-flight copies
 * stay (`in_flight_kept`); ids not in the queue come back in `not_found`. Each moved copy gets a
 * new id and no attempt counted; the envelope is unchanged. An online target gets them at once.
 * Never lost or doubled: stored first, then the old copy deleted; a copy delivered or ACKed in
 * between is left where it was and its new copy removed.
 * @throws CommandError 400 (bad `to`/`ids`, ambiguous key, target = source), 404 `queue not
 *   found`, 404 `target queue not found: …`.
 */
export async function moveQueue(services: QueueServices, body: CommandBody) {
  const q = await oneQueue(services, body);
  const to = parse(MoveTo, body.to, 'to must be {consumer?, event?}');
  const ids = idsParam(body);
  const targetKey = to.event ?? to.key ?? q.key;
  const targetName = to.consumer ?? q.consumer;
  const record = durableRecord(services, q.realm, targetKey, targetName);
  if (!record) {
    throw new CommandError(
      404,
      `target queue not found: ${targetName} has no durable subscription to ${targetKey}`,
    );
  }
  if (record.key === q.key && record.consumerId === q.consumer_id) {
    throw new CommandError(400, 'the target is the queue itself');
  }
  const target: QueueTarget = { key: record.key, consumer: record.consumerId };
  const all = await services.store.dequeue(q.realm, q.key, q.consumer_id);
  const wanted = ids && new Set(ids);
  const selected = wanted ? all.filter((e) => wanted.has(e.id)) : all;
  const notFound = wanted ? ids!.filter((id) => !selected.some((e) => e.id === id)) : [];
  const { acks, ledger } = services;
  // In flight: awaiting an ACK or a retry, or being handed to its consumer live right now.
  const busy = (id: string) => acks.copyOf(id) !== undefined || ledger.claims.has(id);
  let kept = 0;
  const copies: Array<{ msg_id: string; new_msg_id: string }> = [];
  const moveOne = async (entry: StoredEntry): Promise<void> => {
    if (busy(entry.id)) {
      kept++;
      return;
    }
    const moved = await storeMoved(services, entry, target);
    if (busy(entry.id)) {
      // Delivered to its consumer meanwhile: it stays there, the new copy goes.
      await dropMoved(services, moved);
      kept++;
      return;
    }
    if (!(await dropMoved(services, entry))) {
      await dropMoved(services, moved);
      notFound.push(entry.id);
      return;
    }
    // A replay that read the old copy before its delete may have sent it: stop its retries.
    acks.release(entry.id);
    copies.push({ msg_id: entry.id, new_msg_id: moved.id });
  };
  for (let i = 0; i < selected.length; i += MOVE_BATCH) {
    await Promise.all(selected.slice(i, i + MOVE_BATCH).map(moveOne));
  }
  const registry = services.realms.get(q.realm);
  if (copies.length > 0 && registry && liveSocket(registry, record.consumer)) {
    services.replayer?.replay(registry, record).catch((err: unknown) => {
      services.logger?.error({ err, realm: q.realm, key: record.key }, 'moved copies not sent');
    });
  }
  services.logger?.info(
    {
      realm: q.realm,
      consumer: q.consumer,
      key: q.key,
      to: { consumer: record.consumer, key: record.key },
      moved: copies.length,
      in_flight_kept: kept,
    },
    'queue copies moved by a manager',
  );
  return {
    ok: true as const,
    realm: q.realm,
    consumer: q.consumer,
    key: q.key,
    to: { consumer: record.consumer, consumer_id: record.consumerId, key: record.key },
    moved: copies.length,
    in_flight_kept: kept,
    not_found: notFound,
    copies,
  };
}

/**
 * `release_in_flight` `{realm, consumer, key?, ids?}` → `{ok, realm, consumer, key, released:
 * [{msg_id, outcome, attempts, to?}], redelivered, requeued, dead_lettered, not_in_flight}`.
 * Ends the ACK wait (or retry delay) of the queue's in-flight copies (all, or `ids`) now, as an
 * ACK timeout would (`tyo_mq_ack_timeouts_total` counts it, the attempt stays charged): each is
 * redelivered at once to another online member of the consumer's group (`outcome:
 * "redelivered"`, `to` the member, `attempts` the new attempt's number), else stays stored as a
 * ready copy (`"requeued"`: its consumer's next subscribe, or a move, takes it); a copy whose
 * attempts ran out is dead-lettered (`"dead_lettered"`). Ids not in flight in this queue come
 * back in `not_in_flight`.
 * @throws CommandError 400 (bad `ids`, ambiguous key), 404 `queue not found`.
 */
export async function releaseInFlight(services: QueueServices, body: CommandBody) {
  const q = await oneQueue(services, body);
  const ids = idsParam(body);
  const flying = services.acks.inFlight(q.realm).get(inFlightKey(q.key, q.consumer_id));
  const selected = ids ?? [...(flying ?? [])];
  const released: Array<{ msg_id: string; outcome: string; attempts: number; to?: string }> = [];
  const notInFlight: string[] = [];
  const count = { redelivered: 0, requeued: 0, dead_lettered: 0 };
  for (const id of selected) {
    const r = flying?.has(id) ? services.acks.releaseNow(id) : null;
    if (!r) {
      notInFlight.push(id);
      continue;
    }
    count[r.outcome]++;
    released.push({
      msg_id: id,
      outcome: r.outcome,
      attempts: r.attempt,
      ...(r.outcome === 'redelivered' ? { to: r.consumer } : {}),
    });
  }
  services.logger?.info(
    { realm: q.realm, consumer: q.consumer, key: q.key, ...count },
    'in-flight copies released by a manager',
  );
  return {
    ok: true as const,
    realm: q.realm,
    consumer: q.consumer,
    key: q.key,
    released,
    ...count,
    not_in_flight: notInFlight,
  };
}
