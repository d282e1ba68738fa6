/**
 * `remove_consumer` (Switchboard extension, docs/management.md): forgets one offline consumer
 * of a realm — its registration, every subscription it holds (durable ones also from the
 * store) and the stored copies queued for it — so a client that is gone for good leaves
 * nothing behind, at once rather than after idle eviction (`spec/protocol-core.md` §15).
 *
 * Why a command: the protocol has no way for a client to deregister. `UNSUBSCRIBE` (Note 3.4)
 * removes subscriptions only; a disconnect keeps the entry (§15, "entries outlive their
 * sockets"); idle eviction removes it after `ttl_ms` and keeps the stored copies. The console's
 * live tap uses it after Stop, and at start for taps a killed console left behind.
 *
 * A consumer bound to a live socket is refused (409): this is not a way to cut a client off.
 * DLQ entries are kept (the operator's). Works on the registry of this node.
 */
import type { QueueLedger } from '../delivery/queue-ledger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { SubscriptionPersistence } from '../routing/subscription-persistence';
import { CommandError, pick, realmParam, type CommandBody } from './command-types';

/** What `remove_consumer` needs from the broker. */
export interface ConsumerServices {
  readonly realms: RealmDirectory;
  readonly ledger: QueueLedger;
  readonly persistence: SubscriptionPersistence;
}

/** Longest consumer name the command accepts (UTF-16 code units). */
const MAX_CONSUMER_NAME = 1_024;

/**
 * `{realm, consumer}` → `{ok, realm, consumer, removed_subscriptions, purged}` (`purged`:
 * stored copies deleted). Queues are matched by the consumer's name and the `consumer_id` of
 * each subscription it held, sparing a queue another subscription of the realm still uses.
 * @throws CommandError 400 `realm is required` / `consumer is required`; 409 `consumer is
 *   online`; 404 `consumer not found` (no registration, subscription or queue of that name).
 */
export async function removeConsumer(
  services: ConsumerServices,
  body: CommandBody,
): Promise<{ ok: true } & Record<string, unknown>> {
  const realmName = realmParam(body);
  const name = pick(body, 'consumer', 'name');
  if (typeof name !== 'string' || name === '' || name.length > MAX_CONSUMER_NAME) {
    throw new CommandError(400, 'consumer is required');
  }
  // Queues are listed from the ledger: wait until it has counted what the store holds.
  await services.ledger.ready;
  const realm = services.realms.get(realmName);
  const entry = realm?.consumers.get(name);
  if (entry?.socket?.connected) throw new CommandError(409, 'consumer is online');

  const ids = new Set([name]);
  const removedKeys: string[] = [];
  if (realm) {
    for (const record of realm.subscriptionsOf(name)) {
      ids.add(record.consumerId);
      if (!realm.removeSubscription(record.key, name)) continue;
      services.persistence.removed(realmName, record);
      removedKeys.push(record.key);
    }
    if (entry) realm.deleteConsumer(name);
    services.realms.dropIfEmpty(realmName);
  }

  const stillUsed = (key: string, id: string): boolean => {
    for (const record of services.realms.get(realmName)?.subscriptions.get(key)?.values() ?? []) {
      if (record.consumerId === id) return true;
    }
    return false;
  };
  const queues = [...services.ledger.queues(realmName)].filter(
    (q) => ids.has(q.consumer) && !stillUsed(q.key, q.consumer),
  );
  if (!entry && removedKeys.length === 0 && queues.length === 0) {
    throw new CommandError(404, 'consumer not found');
  }
  let purged = 0;
  for (const q of queues) purged += await services.ledger.dropQueue(realmName, q.key, q.consumer);
  return {
    ok: true,
    realm: realmName,
    consumer: name,
    removed_subscriptions: removedKeys.length,
    purged,
  };
}
