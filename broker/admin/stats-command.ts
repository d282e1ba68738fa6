/**
 * The `stats` management command (`spec/protocol-admin.md` §8.2, shape §10.5) with
 * Switchboard's per-realm additions: `queued` (unexpired durable copies), `dlq` (dead-lettered
 * entries) and `durable_subscriptions` (each with its stored `backlog`).
 */
import type { Stats } from '../../shared/http-api';
import type { RealmDirectory } from '../routing/realm-directory';
import type { MessageStore } from '../storage/message-store';

/** One durable subscription of a realm and its backlog of stored copies. */
export interface DurableSubscriptionStats {
  key: string;
  consumer: string;
  consumer_id: string;
  online: boolean;
  backlog: number;
}

export interface RealmAdminStats {
  producers: { total: number; online: number };
  consumers: { total: number; online: number };
  subscriptions: number;
  queued: number;
  dlq: number;
  durable_subscriptions: DurableSubscriptionStats[];
}

export interface AdminStats extends Omit<Stats, 'realms'> {
  realms: Record<string, RealmAdminStats>;
}

/**
 * Builds the `stats` object from the registry counts (`base`) plus store reads. Realms listed:
 * those with runtime state, the `configured` ones, and any holding DLQ entries or durable
 * subscriptions.
 */
export async function collectStats(
  base: Stats,
  store: MessageStore,
  realms: RealmDirectory,
  configured: Iterable<string> = [],
): Promise<AdminStats> {
  const out: AdminStats = { ...base, realms: {} };
  const empty = (): RealmAdminStats => ({
    producers: { total: 0, online: 0 },
    consumers: { total: 0, online: 0 },
    subscriptions: 0,
    queued: 0,
    dlq: 0,
    durable_subscriptions: [],
  });
  const realm = (name: string): RealmAdminStats => {
    if (!Object.prototype.hasOwnProperty.call(out.realms, name)) {
      out.realms[name] = { ...empty(), ...(base.realms[name] ?? {}) };
    }
    return out.realms[name]!;
  };
  for (const name of Object.keys(base.realms)) realm(name);
  for (const name of configured) realm(name);
  for (const entry of await store.listDlq(null)) realm(entry.realm).dlq++;
  for (const sub of await store.loadSubscriptions()) {
    const consumerId =
      typeof sub.record.consumerId === 'string' ? sub.record.consumerId : sub.consumer;
    const backlog = (await store.dequeue(sub.realm, sub.key, consumerId)).length;
    realm(sub.realm).durable_subscriptions.push({
      key: sub.key,
      consumer: sub.consumer,
      consumer_id: consumerId,
      online: realms.get(sub.realm)?.consumers.get(sub.consumer)?.online ?? false,
      backlog,
    });
  }
  for (const name of Object.keys(out.realms)) {
    out.realms[name]!.queued = await store.countQueued(name);
  }
  return out;
}
