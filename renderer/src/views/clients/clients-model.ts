/**
 * What the Clients view shows of `GET /api/clients` (issue 22, item 13): which registrations
 * are the operator's and which this console's own (its live taps, the names its test publisher
 * used), which offline registrations are leftovers to hide by default (offline, no id of their
 * own — the broker fell back to a socket id — and nothing waiting for them), and each producer's
 * MQTT subscribers, which the protocol's `subscribers` count leaves out; each connection's
 * messages in / out per second (the host's `rates`, issue 27), by which the rows can be sorted.
 */
import type {
  ClientList,
  ClientRate,
  ConsoleFootprint,
} from '../../../../shared/console-api-operations';
import type {
  ClientConsumer,
  ClientMqtt,
  ClientProducer,
  ClientSse,
} from '../../../../shared/http-api';

/** Prefix of the live tap's consumer names (the console's tap-session.ts). */
const TAP_CONSUMER_PREFIX = 'switchboard-tap-';

/**
 * A connection's messages per second in / out; each null until the host has read it twice.
 * The row's `rate` is null when there is nothing to measure: offline, or a broker without
 * per-connection counters.
 */
export interface RowRate {
  in: number | null;
  out: number | null;
}

/** Row order within each realm: as the broker lists them, by name, or busiest first. */
export type ClientSort = 'listed' | 'name' | 'in' | 'out';

export interface ProducerRow {
  producer: ClientProducer;
  rate: RowRate | null;
  /** "this console's test publisher", or null. */
  label: string | null;
  /** The id to show, or null: none of its own (a socket id is not shown), or the same as the name. */
  id: string | null;
  /** One line: socket.io subscribers, and MQTT subscribers when the broker counted them. */
  subscribersText: string;
}

export interface ConsumerRow {
  consumer: ClientConsumer;
  rate: RowRate | null;
  /** "this console's live tap", or null. */
  label: string | null;
  id: string | null;
}

export interface MqttRow {
  client: ClientMqtt;
  rate: RowRate | null;
}

export interface RealmView {
  name: string;
  producers: ProducerRow[];
  consumers: ConsumerRow[];
  mqtt: MqttRow[];
  /** SSE streams (`GET /sub`) open on the broker, oldest first. */
  sse: ClientSse[];
}

export interface ClientsModel {
  realms: RealmView[];
  /** Offline leftovers left out (shown with `showLeftovers`). */
  leftovers: number;
  /** One sentence about this console's own connections, or null when not known. */
  consoleNote: string | null;
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Whether a registration is a leftover: offline, no id of its own, nothing waiting for it. */
function producerLeftover(p: ClientProducer, mine: boolean): boolean {
  return !p.online && (mine || (p.id_from_socket === true && p.subscribers === 0));
}

function consumerLeftover(c: ClientConsumer): boolean {
  return (
    !c.online &&
    (c.name.startsWith(TAP_CONSUMER_PREFIX) ||
      (c.id_from_socket === true && !c.subscriptions.some((s) => s.durable)))
  );
}

function shownId(name: string, id: string | null, fromSocket: boolean | undefined): string | null {
  if (id === null || fromSocket === true || id === name) return null;
  return id;
}

export function producerSubscribersText(p: ClientProducer): string {
  const base = plural(p.subscribers, 'subscriber');
  const mqtt = p.mqtt_subscribers ?? 0;
  if (mqtt === 0) return base;
  const topics = (p.events ?? []).slice(-3).join(', ');
  return `${base} · ${plural(mqtt, 'MQTT subscriber')} on its topics${topics ? ` (${topics})` : ''}`;
}

/** The sentence about the console's own sockets on this broker. */
export function consoleNote(footprint: ConsoleFootprint | undefined): string | null {
  if (!footprint) return null;
  const taps = footprint.taps.length;
  const held = (footprint.management ? 1 : 0) + taps;
  if (held === 0) return null;
  const parts: string[] = [];
  if (footprint.management) parts.push('its management connection (signed commands)');
  if (taps > 0) parts.push(plural(taps, 'live tap'));
  return (
    `This console holds ${plural(held, 'connection')} to this broker: ${parts.join(' and ')}. ` +
    "The broker's connection count includes them; they are not your clients."
  );
}

const rateKey = (realm: string, protocol: ClientRate['protocol'], id: string) =>
  `${realm}\u0000${protocol}\u0000${id}`;

/** A row's rate from the host's `rates`: null when its connection has no counters to read. */
function rowRate(
  rates: ReadonlyMap<string, ClientRate>,
  realm: string,
  protocol: ClientRate['protocol'],
  clientId: string | null | undefined,
  counted: { messages_in?: number },
): RowRate | null {
  if (!clientId || counted.messages_in === undefined) return null;
  const rate = rates.get(rateKey(realm, protocol, clientId));
  return { in: rate?.inPerSecond ?? null, out: rate?.outPerSecond ?? null };
}

/** Sorts `rows` in place by `sort`: busiest first (unmeasured last), ties and `name` by name. */
function sortRows<T extends { rate: RowRate | null }>(
  rows: T[],
  sort: ClientSort,
  name: (row: T) => string,
): T[] {
  if (sort === 'listed') return rows;
  const byName = (a: T, b: T) => name(a).localeCompare(name(b));
  if (sort === 'name') return rows.sort(byName);
  const value = (row: T) => row.rate?.[sort] ?? -1;
  return rows.sort((a, b) => value(b) - value(a) || byName(a, b));
}

export function buildClientsModel(
  list: ClientList,
  options: { onlineOnly: boolean; showLeftovers: boolean; sort?: ClientSort },
): ClientsModel {
  const sort = options.sort ?? 'listed';
  const rates = new Map(
    (list.rates ?? []).map((r) => [rateKey(r.realm, r.protocol, r.clientId), r]),
  );
  const footprint = list.console;
  const publishers = new Set((footprint?.publishers ?? []).map((p) => `${p.realm}\u0000${p.name}`));
  const tapConsumers = new Set((footprint?.taps ?? []).map((t) => `${t.realm}\u0000${t.consumer}`));
  let leftovers = 0;
  const realms: RealmView[] = [];
  for (const realm of list.realms) {
    const producers: ProducerRow[] = [];
    for (const p of realm.producers) {
      const mine = publishers.has(`${realm.name}\u0000${p.name}`);
      if (options.onlineOnly && !p.online) continue;
      if (!options.showLeftovers && producerLeftover(p, mine)) {
        leftovers += 1;
        continue;
      }
      producers.push({
        producer: p,
        rate: rowRate(rates, realm.name, 'socket.io', p.socket_id, p),
        label: mine ? "this console's test publisher" : null,
        id: shownId(p.name, p.id, p.id_from_socket),
        subscribersText: producerSubscribersText(p),
      });
    }
    const consumers: ConsumerRow[] = [];
    for (const c of realm.consumers) {
      if (options.onlineOnly && !c.online) continue;
      if (!options.showLeftovers && consumerLeftover(c)) {
        leftovers += 1;
        continue;
      }
      const tap =
        tapConsumers.has(`${realm.name}\u0000${c.name}`) || c.name.startsWith(TAP_CONSUMER_PREFIX);
      consumers.push({
        consumer: c,
        rate: rowRate(rates, realm.name, 'socket.io', c.socket_id, c),
        label: tap ? "this console's live tap" : null,
        id: shownId(c.name, c.id, c.id_from_socket),
      });
    }
    const mqtt = (realm.mqtt ?? []).map((m) => ({
      client: m,
      rate: rowRate(rates, realm.name, 'mqtt', m.client_id, m),
    }));
    const sse = realm.sse ?? [];
    if (producers.length + consumers.length + mqtt.length + sse.length === 0) continue;
    realms.push({
      name: realm.name,
      producers: sortRows(producers, sort, (r) => r.producer.name),
      consumers: sortRows(consumers, sort, (r) => r.consumer.name),
      mqtt: sortRows(mqtt, sort, (r) => r.client.client_id),
      sse,
    });
  }
  return { realms, leftovers, consoleNote: consoleNote(footprint) };
}
