/**
 * Takes `$share/<ShareName>/<TopicFilter>` SUBSCRIBE / UNSUBSCRIBE entries (MQTT 5.0 §4.8.2,
 * §3.8.3) and the PUBACKs of shared copies out of aedes' dispatch (aedes 2.0.0-beta.1 refuses
 * shared subscriptions), and answers them for shared-subscriptions.ts:
 *   - ShareName empty or holding `+` / `#`, or an invalid TopicFilter: SUBACK 0x8F "Topic
 *     Filter invalid" (MQTT 3.1.1: 0x80) [MQTT-4.8.2-1, MQTT-4.8.2-2];
 *   - No Local set on a shared entry (MQTT 5): DISCONNECT 0x82 "Protocol Error" [MQTT-3.8.3-4];
 *   - the TopicFilter goes through the same `authorizeSubscribe` as a normal filter of the
 *     client's realm: refused, SUBACK 0x87 (MQTT 3.1.1: 0x80); granted, at most QoS 1;
 *   - no retained message is sent for a shared entry [MQTT-4.8.2];
 *   - a SUBSCRIBE mixing shared and normal entries: the normal ones go to aedes (without the
 *     packet id, so aedes sends no SUBACK), and one SUBACK with every entry's code in order is
 *     sent here; an UNSUBSCRIBE mixing both goes to aedes whole (its UNSUBACK: 0x11 for the
 *     shared entries in MQTT 5).
 * Packets before the CONNACK stay with aedes. Uses aedes internals as pubrel-guard.ts does
 * (`_parser`'s `packet` listener, `_parsingBatch`, `_nextBatch`); test/broker/mqtt/
 * mqtt-shared-subscriptions.test.ts covers them.
 */
import type { Aedes, Client, Subscription } from 'aedes';
import mqttPacket from 'mqtt-packet';
import type { MqttAuth } from './mqtt-auth';
import { isMqttTopicFilter } from './filter-match';
import { addPacketRewrite } from './packet-writes';
import { realmPrefix, scopeTopic } from './realm-topics';
import type { SharedSubscriptions } from './shared-subscriptions';

const SHARE = '$share/';
/** Reason codes (MQTT 5.0 §3.9.3, §3.11.3, §3.14.2.1). */
const FAILURE = 0x80;
const NOT_AUTHORIZED = 0x87;
const TOPIC_FILTER_INVALID = 0x8f;
const PROTOCOL_ERROR = 0x82;
const NO_SUBSCRIPTION_EXISTED = 0x11;

interface ClientInternals {
  connackSent: boolean;
  closed: boolean;
  _parsingBatch: number;
  _nextBatch(err?: Error | null): void;
  _keepaliveInterval: number;
  _keepaliveTimer: NodeJS.Timeout | null;
  _parser: NodeJS.EventEmitter;
  _wireVersion?: number;
  conn: NodeJS.WritableStream;
  disconnect(opts: { reasonCode: number }, done: () => void): void;
}

interface SubEntry {
  topic: string;
  qos: number;
  nl?: boolean;
}

interface Packet {
  cmd: string;
  messageId?: number;
  subscriptions?: SubEntry[];
  unsubscriptions?: string[];
}

/** A client-visible `$share/…` filter split up; `null` parts when it is invalid. */
export function parseShare(
  filter: string,
): { group: string; filter: string } | { invalid: true } | null {
  if (!filter.startsWith(SHARE)) return null;
  const rest = filter.slice(SHARE.length);
  const slash = rest.indexOf('/');
  const group = slash < 0 ? rest : rest.slice(0, slash);
  const topicFilter = slash < 0 ? '' : rest.slice(slash + 1);
  if (group.length === 0 || /[+#]/.test(group) || !isMqttTopicFilter(topicFilter)) {
    return { invalid: true };
  }
  return { group, filter: topicFilter };
}

/**
 * Installs the guard on `client`: call right after answerUnknownPubrel (it wraps the one
 * listener then on the parser, aedes' own or that guard's); auth.watch's scoping runs before.
 */
export function guardSharedSubscriptions(
  client: Client,
  aedes: Aedes,
  auth: MqttAuth,
  shared: SharedSubscriptions,
): void {
  const c = client as unknown as ClientInternals;
  const parser = c._parser;
  const [enqueue] = parser.listeners('packet') as ((packet: unknown) => void)[];
  if (!enqueue) return;
  parser.removeListener('packet', enqueue);
  parser.on('packet', function (this: unknown, packet: Packet) {
    const identity = c.connackSent ? auth.identity(client) : undefined;
    const internal = identity ? SHARE + realmPrefix(identity.realm) : '';
    const own = (t: string): boolean => identity !== undefined && t.startsWith(internal);
    const visible = (t: string): string => SHARE + t.slice(internal.length);
    if (identity && packet.cmd === 'puback' && packet.messageId !== undefined) {
      if (shared.acked(client, packet.messageId)) {
        c._parsingBatch++;
        if (c._keepaliveInterval > 0) c._keepaliveTimer?.refresh();
        setImmediate(() => c._nextBatch(null));
        return;
      }
    } else if (
      identity &&
      packet.cmd === 'subscribe' &&
      packet.subscriptions?.some((s) => own(s.topic))
    ) {
      c._parsingBatch++;
      if (c._keepaliveInterval > 0) c._keepaliveTimer?.refresh();
      const entries = packet.subscriptions;
      if (client.version === 5 && entries.some((s) => own(s.topic) && s.nl)) {
        aedes.emit('clientError', client, new Error('No Local on a shared subscription'));
        c.disconnect({ reasonCode: PROTOCOL_ERROR }, () => c._nextBatch(null));
        return;
      }
      const normal = entries.filter((s) => !own(s.topic));
      const sharedCodes = Promise.all(
        entries.map((s) =>
          own(s.topic)
            ? subscribeShared(client, aedes, shared, identity.realm, s, visible(s.topic))
            : -1,
        ),
      );
      const normalCodes =
        normal.length > 0 ? viaAedes(client, aedes, enqueue, this, packet, normal) : null;
      void Promise.all([sharedCodes, normalCodes]).then(([codes, fromAedes]) => {
        const granted = codes.map((code, i) =>
          code >= 0 ? code : (fromAedes?.get(entries[i]!.topic) ?? FAILURE),
        );
        write(c, { cmd: 'suback', messageId: packet.messageId ?? 0, granted });
      });
      return;
    } else if (identity && packet.cmd === 'unsubscribe' && packet.unsubscriptions?.some(own)) {
      const topics = packet.unsubscriptions;
      const codes = topics.map((t) => {
        const parsed = own(t) ? parseShare(visible(t)) : null;
        if (!parsed || 'invalid' in parsed) return NO_SUBSCRIPTION_EXISTED;
        return shared.remove(client, parsed.group, parsed.filter) ? 0 : NO_SUBSCRIPTION_EXISTED;
      });
      if (topics.every(own)) {
        c._parsingBatch++;
        write(c, { cmd: 'unsuback', messageId: packet.messageId ?? 0, granted: codes });
        return;
      }
    }
    enqueue.call(this, packet);
  });
}

/** One shared entry: its SUBACK code, the membership added when granted. */
function subscribeShared(
  client: Client,
  aedes: Aedes,
  shared: SharedSubscriptions,
  realm: string,
  entry: SubEntry,
  filter: string,
): Promise<number> {
  const v5 = client.version === 5;
  const parsed = parseShare(filter);
  if (!parsed || 'invalid' in parsed) return Promise.resolve(v5 ? TOPIC_FILTER_INVALID : FAILURE);
  const sub = { topic: scopeTopic(realm, parsed.filter), qos: entry.qos } as Subscription;
  return new Promise<number>((resolve) => {
    aedes.authorizeSubscribe(client, sub, (err, granted) => {
      if (err || !granted) {
        resolve(v5 ? NOT_AUTHORIZED : FAILURE);
        return;
      }
      const qos = Math.min(granted.qos, 1);
      shared.add(client, realm, parsed.group, parsed.filter, qos);
      resolve(qos);
    });
  });
}

/**
 * Hands the normal entries of a mixed SUBSCRIBE to aedes without the packet id (no SUBACK of
 * its own) and resolves with their granted codes by (scoped) topic, from aedes' `subscribe`
 * event; with an empty map if the connection ends first.
 */
function viaAedes(
  client: Client,
  aedes: Aedes,
  enqueue: (packet: unknown) => void,
  self: unknown,
  packet: Packet,
  normal: SubEntry[],
): Promise<Map<string, number>> {
  const rest: Packet = { ...packet, subscriptions: normal };
  delete rest.messageId;
  return new Promise((resolve) => {
    const emitter = aedes as unknown as NodeJS.EventEmitter;
    const finish = (codes: Map<string, number>): void => {
      emitter.off('subscribe', onSubscribe);
      emitter.off('clientDisconnect', onGone);
      resolve(codes);
    };
    const onSubscribe = (subs: SubEntry[], who: Client): void => {
      if (who !== client || subs !== rest.subscriptions) return;
      finish(new Map(subs.map((s) => [s.topic, s.qos])));
    };
    const onGone = (who: Client): void => {
      if (who === client) finish(new Map());
    };
    emitter.on('subscribe', onSubscribe);
    emitter.on('clientDisconnect', onGone);
    enqueue.call(self, rest);
  });
}

function write(c: ClientInternals, packet: object): void {
  if (c.closed) {
    c._nextBatch(new Error('connection closed'));
    return;
  }
  const flushed = mqttPacket.writeToStream(packet as mqttPacket.Packet, c.conn, {
    protocolVersion: (c._wireVersion ?? 4) as 3 | 4 | 5,
  });
  if (flushed) setImmediate(() => c._nextBatch(null));
  else c.conn.once('drain', () => c._nextBatch(null));
}

/** Connections whose MQTT 5 CONNACK advertises shared subscriptions. */
const advertising = new WeakSet<object>();
let rewriting = false;

/**
 * CONNACK `Shared Subscription Available` = 1 (MQTT 5.0 §3.2.2.3.15) on `conn`: aedes writes
 * `false` into every MQTT 5 CONNACK, so a rewrite on mqtt-packet's writer (`packet-writes.ts`,
 * registered once per process) flips it for our listener's connections; other streams (another
 * aedes in the process) and packets pass unchanged.
 */
export function advertiseSharedSubscriptions(conn: object): void {
  advertising.add(conn);
  if (rewriting) return;
  rewriting = true;
  addPacketRewrite((packet, stream) => {
    const props = (packet as { properties?: Record<string, unknown> }).properties;
    if (
      packet.cmd !== 'connack' ||
      props?.sharedSubscriptionAvailable !== false ||
      !advertising.has(stream)
    ) {
      return packet;
    }
    return {
      ...packet,
      properties: { ...props, sharedSubscriptionAvailable: true },
    } as mqttPacket.Packet;
  });
}
