/**
 * Idle eviction of registrations (`spec/protocol-core.md` §15): entries with no socket,
 * offline for longer than `ttl_ms`, are removed. A consumer takes its subscriptions with it,
 * except durable ones, which keep the consumer registered (a departure from the reference,
 * which stopped storing for a durable consumer after five idle minutes);
 * a producer takes the subscriptions that name it — except those of consumers that are online
 * now (a departure from the reference, which silently unsubscribed live consumers whose
 * producer had been away for `ttl_ms`). Placeholder producers that never connected are kept.
 * Stored durable messages are not touched.
 */
import type { RealmDirectory } from './realm-directory';

/** Runs one pass; returns the number of producer and consumer entries evicted. */
export function sweepIdleRegistrations(realms: RealmDirectory, ttlMs: number, now = Date.now()) {
  let evicted = 0;
  const stale = (e: { socket: unknown; online: boolean; offlineAt: number | null }) =>
    e.socket === null && !e.online && e.offlineAt !== null && now - e.offlineAt >= ttlMs;
  for (const realm of [...realms.values()]) {
    for (const consumer of [...realm.consumers.values()]) {
      if (!stale(consumer)) continue;
      let durable = false;
      for (const record of realm.subscriptionsOf(consumer.name)) {
        if (record.durable) durable = true;
        else realm.removeSubscription(record.key, consumer.name);
      }
      // A durable subscription outlives idleness: its copies keep being stored.
      if (durable) continue;
      for (const producer of realm.producers.values()) producer.subscribers.delete(consumer.name);
      realm.consumers.delete(consumer.name);
      evicted++;
    }
    for (const producer of [...realm.producers.values()]) {
      if (!stale(producer)) continue;
      for (const [key, byConsumer] of [...realm.subscriptions]) {
        for (const record of [...byConsumer.values()]) {
          if (record.producer !== producer.name || record.durable) continue;
          if (realm.consumers.get(record.consumer)?.online) continue;
          realm.removeSubscription(key, record.consumer);
        }
      }
      realm.producers.delete(producer.name);
      evicted++;
    }
    realms.dropIfEmpty(realm.name);
  }
  return evicted;
}
