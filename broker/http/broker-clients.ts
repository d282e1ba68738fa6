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
  ClientSse,
  ClientSubscription,
  Clients,
} from '../../shared/http-api';
import type { QueueLedger } from '../delivery/queue-ledger';
import { isMqttTopicName, mqttFilterMatches } from '../mqtt/filter-match';
import type { RealmDirectory } from '../routing/realm-directory';

/**
 * Most (MQTT client × event) pairs matched per realm and listing: past it `mqtt_subscribers` is
 * left out rather than making one request cost seconds on a realm with many devices.
 */
const MQTT_MATCH_BUDGET = 200_000;

/** How many of `clients` have a filter matching one of `events`; null past the budget. */
function mqttSubscribers(
  events: Iterable<string>,
  clients: readonly ClientMqtt[],
  budget: { left: number },
): number | null {
  const topics = [...events].filter(isMqttTopicName);
  if (topics.length === 0 || clients.length === 0) return 0;
  budget.left -= topics.length * clients.length;
  if (budget.left < 0) return null;
  let count = 0;
  for (const client of clients) {
    if (client.subscriptions.some((s) => topics.some((t) => mqttFilterMatches(s.filter, t)))) {
      count += 1;
    }
  }
  return count;
}

/** A connection's message counters (`ClientHistory.find`'s record), or undefined. */
export type ClientCounters = (
  realm: string,
  clientId: string,
) => { messagesIn: number; messagesOut: number } | undefined;

/** `messages_in` / `messages_out` of the connection `clientId` of `realm`, when known. */
function countersOf(counters: ClientCounters | undefined, realm: string, clientId: string | null) {
  const record = clientId === null ? undefined : counters?.(realm, clientId);
  return record ? { messages_in: record.messagesIn, messages_out: record.messagesOut } : {};
}

/**
 * Registrations per realm; realms without any producer, consumer or MQTT client are left out.
 * `mqtt` (MqttListener.clientList, issue 14) gives each realm's connected MQTT clients, listed
 * under the realm's optional `mqtt` (absent when none); `sse` (SseHub.list, issue 28) its open
 * SSE streams, under `sse` (absent when none). `counters` (the client records, issue 27) adds
 * each connected producer's, consumer's and MQTT client's `messages_in` / `messages_out`.
 */
export function brokerClients(
  realms: RealmDirectory,
  ledger: QueueLedger,
  mqtt: ReadonlyMap<string, ClientMqtt[]> = new Map(),
  sse: ReadonlyMap<string, ClientSse[]> = new Map(),
  counters?: ClientCounters,
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
    const consumers: ClientConsumer[] = [...realm.consumers.values()].map((c) => {
      const socketId = c.socket?.connected ? c.socket.id : null;
      return {
        name: c.name,
        id: c.id,
        // Bound without an id of its own: `id` is the socket id of that binding.
        id_from_socket: c.registeredId === undefined,
        online: c.online,
        offline_since: c.offlineAt,
        socket_id: socketId,
        subscriptions: byConsumer.get(c.name) ?? [],
        ...countersOf(counters, realm.name, socketId),
      };
    });
    const devices = mqtt.get(realm.name) ?? [];
    const budget = { left: MQTT_MATCH_BUDGET };
    out.realms[realm.name] = {
      producers: [...realm.producers.values()].map((p) => {
        const events = p.recentEvents ? [...p.recentEvents] : [];
        const viaMqtt = mqttSubscribers(events, devices, budget);
        const socketId = p.socket?.connected ? p.socket.id : null;
        return {
          name: p.name,
          id: p.id,
          id_from_socket: p.idFromSocket === true,
          online: p.online,
          offline_since: p.offlineAt,
          socket_id: socketId,
          placeholder: p.placeholder,
          subscribers: p.subscribers.size,
          events,
          ...(viaMqtt === null ? {} : { mqtt_subscribers: viaMqtt }),
          ...countersOf(counters, realm.name, socketId),
        };
      }),
      consumers,
    };
  }
  for (const [name, list] of mqtt) {
    if (list.length === 0) continue;
    const realm = (out.realms[name] ??= { producers: [], consumers: [] });
    realm.mqtt = list.map((m) => ({ ...m, ...countersOf(counters, name, m.client_id) }));
  }
  for (const [name, list] of sse) {
    if (list.length === 0) continue;
    const realm = (out.realms[name] ??= { producers: [], consumers: [] });
    realm.sse = [...list].sort((a, b) => a.opened_at - b.opened_at);
  }
  return out;
}
