/**
 * DLQ replay as the broker runs it (`spec/protocol-core.md` §10.5, `spec/protocol-admin.md`
 * §8.2 `dlq_replay`): the store moves the entry back to its consumer's queue in one transaction,
 * the ledger and `tyo_mq_messages_queued_total` count it, and a matching subscription whose
 * consumer is online gets a replay at once.
 *
 * A consumer group's dead letter goes back to the group (issue 22 item 23; docs/management.md
 * "DLQ commands"): when the member it was dead-lettered from is offline and another member of
 * the same group subscribed to the same key is online, the copy moves to that member's queue
 * (round-robin, like a live group delivery) and is replayed to it. The move stores the new copy
 * before deleting the old one, so a crash in between leaves a duplicate (at least once), never
 * a loss. With no member online the copy waits in the original member's queue.
 */
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { RealmDirectory } from '../routing/realm-directory';
import type { RealmRegistry } from '../routing/realm-registry';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { MessageStore, StoredEntry } from '../storage/message-store';
import type { QueueLedger } from './queue-ledger';
import { moveCopy } from './queue-move';
import type { Replayer } from './replay';

export interface DlqReplayDeps {
  store: MessageStore;
  ledger: QueueLedger;
  metrics: BrokerMetrics;
  realms: RealmDirectory;
  replayer: Replayer;
  logger: Logger;
}

const online = (registry: RealmRegistry, record: SubscriptionRecord): boolean =>
  registry.consumers.get(record.consumer)?.online === true;

/**
 * The group member a replayed `entry` should go to instead of its own consumer, or null: only
 * when that consumer's record is grouped and offline and a member of its group with the same
 * subscription key is online.
 */
export function groupTarget(
  registry: RealmRegistry,
  entry: Pick<StoredEntry, 'event' | 'consumer'>,
): SubscriptionRecord | null {
  const records = [...(registry.subscriptions.get(entry.event)?.values() ?? [])];
  const original = records.find((r) => r.consumerId === entry.consumer);
  if (!original || original.group === null || online(registry, original)) return null;
  const live = records.filter(
    (r) => r.group === original.group && r.consumerId !== entry.consumer && online(registry, r),
  );
  if (live.length === 0) return null;
  return live[(registry.nextGroupCount(original.group) - 1) % live.length]!;
}

/**
 * Returns `replayDlq(msgId, realm?)`: resolves with the re-queued entry — under a new id minted
 * by the store (`MessageStore.replayDlq`), in the queue of the consumer it will reach (a group
 * member's entry may have moved, see the header) — or null when no such DLQ entry exists (in
 * `realm`, when given). Store errors reject.
 */
export function dlqReplay(deps: DlqReplayDeps) {
  const { store, ledger, metrics, realms, replayer, logger } = deps;
  return async (msgId: string, realm?: string): Promise<StoredEntry | null> => {
    let entry = await store.replayDlq(msgId, realm);
    if (!entry) return null;
    ledger.added(entry.realm, entry.event, entry.consumer);
    metrics.messageQueued(entry.realm);
    const registry = realms.get(entry.realm);
    if (!registry) return entry;
    const target = groupTarget(registry, entry);
    if (target) entry = await moveTo(deps, entry, target.consumerId);
    for (const record of registry.subscriptions.get(entry.event)?.values() ?? []) {
      if (record.consumerId === entry.consumer && online(registry, record)) {
        replayer
          .replay(registry, record)
          .catch((err: unknown) => logger.error({ err, id: msgId }, 'DLQ replay failed'));
      }
    }
    return entry;
  };
}

/** Moves a re-queued copy to `consumer`'s queue (`moveCopy`: stored first, then the old deleted). */
async function moveTo(
  deps: DlqReplayDeps,
  entry: StoredEntry,
  consumer: string,
): Promise<StoredEntry> {
  const moved = await moveCopy(deps, entry, { key: entry.event, consumer });
  deps.logger.info(
    { realm: entry.realm, key: entry.event, from: entry.consumer, to: consumer, id: moved.id },
    'DLQ replay sent to an online member of the group',
  );
  return moved;
}
