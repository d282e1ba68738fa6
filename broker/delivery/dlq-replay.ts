/**
 * DLQ replay as the broker runs it (`spec/protocol-core.md` §10.5, `spec/protocol-admin.md`
 * §8.2 `dlq_replay`): the store moves the entry back to its consumer's queue in one transaction,
 * the ledger and `tyo_mq_messages_queued_total` count it, and a matching subscription whose
 * consumer is online gets a replay at once.
 */
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { RealmDirectory } from '../routing/realm-directory';
import type { MessageStore, StoredEntry } from '../storage/message-store';
import type { QueueLedger } from './queue-ledger';
import type { Replayer } from './replay';

export interface DlqReplayDeps {
  store: MessageStore;
  ledger: QueueLedger;
  metrics: BrokerMetrics;
  realms: RealmDirectory;
  replayer: Replayer;
  logger: Logger;
}

/**
 * Returns `replayDlq(msgId, realm?)`: resolves with the re-queued entry — under a new id minted
 * by the store (`MessageStore.replayDlq`) — or null when no such DLQ entry exists (in `realm`,
 * when given). Store errors reject.
 */
export function dlqReplay(deps: DlqReplayDeps) {
  const { store, ledger, metrics, realms, replayer, logger } = deps;
  return async (msgId: string, realm?: string): Promise<StoredEntry | null> => {
    const entry = await store.replayDlq(msgId, realm);
    if (!entry) return null;
    ledger.added(entry.realm, entry.event, entry.consumer);
    metrics.messageQueued(entry.realm);
    const registry = realms.get(entry.realm);
    for (const record of registry?.subscriptions.get(entry.event)?.values() ?? []) {
      if (
        record.consumerId === entry.consumer &&
        registry!.consumers.get(record.consumer)?.online
      ) {
        replayer
          .replay(registry!, record)
          .catch((err: unknown) => logger.error({ err, id: msgId }, 'DLQ replay failed'));
      }
    }
    return entry;
  };
}
