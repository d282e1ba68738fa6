/**
 * Moving one stored copy from a durable queue to another (`spec/protocol-core.md` §9.1 queues,
 * docs/management.md "DLQ commands" and "Queues"): the DLQ replay's hand-over to an online group
 * member and `move_queue` both use it.
 *
 * The new copy is stored before the old one is deleted, so a broker killed in between delivers
 * the message twice (at least once), never loses it. The new copy gets a new message id and
 * starts with no attempt counted; its TTL is what was left of the old one's.
 */
import type { MessageStore, StoredEntry } from '../storage/message-store';
import type { QueueLedger } from './queue-ledger';

/** The queue a copy moves to: subscription key and `consumer_id`. */
export interface QueueTarget {
  key: string;
  consumer: string;
}

/** Seconds left of `entry`'s TTL (at least 1 s), null when it never expires. */
function ttlLeft(entry: StoredEntry, now: number): number | null {
  return entry.expires_at === null ? null : Math.max(1, (entry.expires_at - now) / 1000);
}

/**
 * Stores a copy of `entry` in `target`'s queue (counted by the ledger). Resolves with the new
 * copy; the old one is still stored — `dropMoved` deletes it. Store errors reject (nothing
 * changed then).
 */
export async function storeMoved(
  deps: { store: MessageStore; ledger: QueueLedger },
  entry: StoredEntry,
  target: QueueTarget,
  now = Date.now(),
): Promise<StoredEntry> {
  const id = await deps.store.enqueue(entry.realm, target.key, {
    consumer: target.consumer,
    payload: entry.message,
    producer: entry.producer,
    ttl: ttlLeft(entry, now),
  });
  deps.ledger.added(entry.realm, target.key, target.consumer);
  return { ...entry, id, event: target.key, consumer: target.consumer, attempts: 0 };
}

/**
 * Deletes the old copy of a move (through the ledger). Resolves with whether it still existed:
 * false when it left meanwhile (ACKed, expired, purged), in which case the caller removes the
 * new copy again so the message is not there twice.
 */
export function dropMoved(
  deps: { ledger: QueueLedger },
  entry: Pick<StoredEntry, 'id' | 'realm' | 'event' | 'consumer'>,
): Promise<boolean> {
  return deps.ledger.ack(entry.id, entry.realm, entry.event, entry.consumer);
}

/** Moves `entry` to `target` (stored first, then the old copy deleted); resolves with the new copy. */
export async function moveCopy(
  deps: { store: MessageStore; ledger: QueueLedger },
  entry: StoredEntry,
  target: QueueTarget,
): Promise<StoredEntry> {
  const moved = await storeMoved(deps, entry, target);
  await dropMoved(deps, entry);
  return moved;
}
