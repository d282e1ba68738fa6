/**
 * The `GET /api/clients` document (Switchboard extension, docs/http-api.md): every registered
 * producer and consumer of every realm, each consumer with its subscriptions and the durable
 * backlog of each. Read-only; built from the in-memory registries and the queue ledger, so it
 * costs one pass over the registrations and never touches the store.
 *
 * Source: `spec/protocol-core.md` §5.1 (registry model), §6.1 (subscription record).
 */
import type {
  ClientConsumer,
  ClientMqtt,
  ClientSubscription,
  Clients,
} from '../../shared/http-api';
import type { QueueLedger } from '../delivery/queue-ledger';
import type { RealmDirectory } from '../routing/realm-directory';

/**
 * Registrations per realm; realms without any producer, consumer or MQTT client are left out.
 * `mqtt` (MqttListener.clientList, issue 14) gives each realm's connected MQTT clients, listed
 * under the realm's optional `mqtt` (absent when none).
 */
export function brokerClients(
  realms: RealmDirectory,
  ledger: QueueLedger,
  mqtt: ReadonlyMap<string, ClientMqtt[]> = new Map(),
): Clients {
  const out: Clients = { realms: {} };
  for (const realm of realms.values()) {
    if (realm.producers.size === 0 && realm.consumers.size === 0) continue;
    const backlog = new Map<string, number>();
    for (const q of ledger.queues(realm.name)) backlog.set(`${q.key}\u0000${q.consumer}`, q.stored);
    const byConsumer = new Map<string, ClientSubscription[]>();
    for (const records of realm.subscriptions.values()) {
      for (const record of records.values()) {
        let list = byConsumer.get(record.consumer);
        if (!list) {
          list = [];
          byConsumer.set(record.consumer, list);
        }
        list.push({
          key: record.key,
          producer: record.producer,
          mode: record.mode,
          pattern: record.pattern,
          group: record.group,
          durable: record.durable,
          ack_required: record.ackRequired,
          ack_timeout_ms: record.ackTimeoutMs,
          consumer_id: record.consumerId,
          backlog: record.durable
            ? (backlog.get(`${record.key}\u0000${record.consumerId}`) ?? 0)
            : 0,
        });
      }
    }
    const consumers: ClientConsumer[] = [...realm.consumers.values()].map((c) => ({
      name: c.name,
      id: c.id,
      online: c.online,
      offline_since: c.offlineAt,
      subscriptions: byConsumer.get(c.name) ?? [],
    }));
    out.realms[realm.name] = {
      producers: [...realm.producers.values()].map((p) => ({
        name: p.name,
        id: p.id,
        online: p.online,
        offline_since: p.offlineAt,
        placeholder: p.placeholder,
        subscribers: p.subscribers.size,
      })),
      consumers,
    };
  }
  for (const [name, list] of mqtt) {
    if (list.length === 0) continue;
    const realm = (out.realms[name] ??= { producers: [], consumers: [] });
    realm.mqtt = list;
  }
  return out;
}
