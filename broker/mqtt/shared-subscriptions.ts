/**
 * MQTT shared subscriptions (`$share/<ShareName>/<TopicFilter>`, MQTT 5.0 §4.8.2; accepted
 * from MQTT 3.1.1 clients too, as Mosquitto does) as members of Switchboard's consumer groups.
 *
 * A client of realm R subscribed to `$share/g1/<filter>` is a member of the tyo-mq consumer
 * group `g1` of realm R (`spec/protocol-core.md` §12): every message of R whose topic (event)
 * matches the filter — an MQTT PUBLISH routed by the bridge, or a tyo-mq `PRODUCE` — goes to ONE
 * member of the union of the MQTT members and the tyo-mq subscriptions with `group: "g1"`,
 * chosen by the group's round-robin counter in the Router (`routing/group-members.ts`). aedes
 * never sees the subscription, so non-shared subscribers are unaffected.
 *
 * Delivery is QoS 0 or 1 (a shared subscription is granted at most QoS 1): the copy has the
 * PUBLISH's QoS (tyo-mq messages QoS 1, as the bridge sends them), capped by the grant. A QoS 1
 * copy not acknowledged when its client's connection ends is sent to another MQTT member of
 * the group whose filter matches (round-robin, DUP 0), or dropped when none is left. Shared
 * subscriptions belong to the connection: they are not stored with a persistent session.
 */
import type { Aedes, AedesPublishPacket, Client } from 'aedes';
import { writeToStream } from 'mqtt-packet';
import type { Logger } from '../logging/logger';
import type { ExternalGroupMember } from '../routing/group-members';
import type { ProducedMessage } from '../routing/produced-message';
import type { MqttBridge } from './mqtt-bridge';
import { isMqttTopicName, mqttFilterMatches } from './filter-match';
import { toMqttPayload } from './payload-mapping';
import { scopeTopic } from './realm-topics';

/** One client's shared subscriptions and its unacknowledged QoS 1 copies. */
interface ClientShares {
  readonly client: Client;
  readonly realm: string;
  /** group → filter → granted QoS (0 or 1). */
  readonly groups: Map<string, Map<string, number>>;
  /** packet id → the message and its group, until PUBACK. */
  readonly inflight: Map<number, { msg: ProducedMessage; group: string }>;
}

interface ClientInternals {
  _nextId: number;
  _wireVersion?: number;
  connected: boolean;
  closed: boolean;
  conn: NodeJS.WritableStream;
}

/** MQTT 5 PUBLISH properties a shared copy keeps (not Topic Alias / Subscription Identifier). */
const KEPT_PROPERTIES = [
  'payloadFormatIndicator',
  'messageExpiryInterval',
  'contentType',
  'responseTopic',
  'correlationData',
  'userProperties',
] as const;

export class SharedSubscriptions {
  private readonly byClient = new Map<Client, ClientShares>();
  /** realm → group → members in joining order. */
  private readonly byRealm = new Map<string, Map<string, ClientShares[]>>();
  /** realm/group → round-robin count for redeliveries. */
  private readonly redeliveries = new Map<string, number>();

  constructor(
    private readonly aedes: Aedes,
    /** Where the members join the Router's groups, and whence MQTT messages came. */
    private readonly bridge: Pick<MqttBridge, 'mqttPacketOf' | 'addGroupMembers'>,
    private readonly logger: Logger,
  ) {
    aedes.on('clientDisconnect', (client) => this.leave(client));
  }

  /** Joins the Router's consumer groups; returns the removal (the listener's close). */
  start(): () => void {
    return this.bridge.addGroupMembers(this.members, this.interested);
  }

  /** Whether `realm` holds a shared subscription (the bridge then routes its publishes). */
  readonly interested = (realm: string): boolean => this.byRealm.has(realm);

  /** Shared subscriptions now, `{realm, group, members}` (tests, diagnostics). */
  groupSizes(): Array<{ realm: string; group: string; members: number }> {
    const out: Array<{ realm: string; group: string; members: number }> = [];
    for (const [realm, groups] of this.byRealm)
      for (const [group, list] of groups) out.push({ realm, group, members: list.length });
    return out;
  }

  /** `client` (of `realm`) subscribes `filter` in `group` at `qos` (0 or 1). */
  add(client: Client, realm: string, group: string, filter: string, qos: number): void {
    let shares = this.byClient.get(client);
    if (!shares) {
      shares = { client, realm, groups: new Map(), inflight: new Map() };
      this.byClient.set(client, shares);
    }
    let filters = shares.groups.get(group);
    if (!filters) {
      shares.groups.set(group, (filters = new Map()));
      let groups = this.byRealm.get(realm);
      if (!groups) this.byRealm.set(realm, (groups = new Map()));
      const list = groups.get(group);
      if (list) list.push(shares);
      else groups.set(group, [shares]);
    }
    filters.set(filter, qos);
  }

  /** Removes one shared subscription; returns whether `client` held it. */
  remove(client: Client, group: string, filter: string): boolean {
    const shares = this.byClient.get(client);
    const filters = shares?.groups.get(group);
    if (!shares || !filters?.delete(filter)) return false;
    if (filters.size === 0) this.dropMembership(shares, group);
    return true;
  }

  /** A PUBACK of `client`: true when it acknowledged a shared copy (aedes must not see it). */
  acked(client: Client, messageId: number): boolean {
    return this.byClient.get(client)?.inflight.delete(messageId) === true;
  }

  /** Router source: the members of `msg`'s realm whose filters match its topic. */
  readonly members = (msg: ProducedMessage): ExternalGroupMember[] | null => {
    const groups = this.byRealm.get(msg.realm);
    if (!groups || msg.broadcast !== null || !isMqttTopicName(msg.event)) return null;
    let out: ExternalGroupMember[] | null = null;
    for (const [group, list] of groups) {
      for (const shares of list) {
        const qos = grantFor(shares, group, msg.event);
        if (qos < 0) continue;
        (out ??= []).push({ group, deliver: (m) => this.send(shares, group, m, qos) });
      }
    }
    return out;
  };

  private send(shares: ClientShares, group: string, msg: ProducedMessage, grant: number): void {
    const client = shares.client;
    const c = client as unknown as ClientInternals;
    if (c.closed || !c.connected) return;
    const original = this.bridge.mqttPacketOf(msg);
    const qos = Math.min(grant, original ? original.qos : 1);
    const packet: AedesPublishPacket & { messageId?: number } = {
      cmd: 'publish',
      topic: scopeTopic(shares.realm, msg.event),
      payload: original ? original.payload : toMqttPayload(msg.message, msg.enc),
      qos: qos as 0 | 1,
      retain: false,
      dup: false,
    } as AedesPublishPacket;
    const props = client.version === 5 ? keptProperties(original) : undefined;
    if (props) (packet as { properties?: object }).properties = props;
    // Unscopes the topic and counts the delivery, as for every other copy aedes sends.
    const forwarded = this.aedes.authorizeForward(client, packet);
    if (!forwarded) return;
    if (qos > 0) {
      // aedes' own packet-id counter (qos-packet.js): no clash with its in-flight ids.
      const id = c._nextId;
      c._nextId = id >= 65_535 ? 1 : id + 1;
      forwarded.messageId = id;
      shares.inflight.set(id, { msg, group });
    }
    try {
      writeToStream(forwarded, c.conn, { protocolVersion: c._wireVersion ?? 4 });
    } catch (err) {
      this.logger.debug({ err, mqttClient: client.id }, 'MQTT shared copy not written');
    }
  }

  /** A connection ended: its memberships go, its unacknowledged copies go to other members. */
  private leave(client: Client): void {
    const shares = this.byClient.get(client);
    if (!shares) return;
    this.byClient.delete(client);
    for (const group of [...shares.groups.keys()]) this.dropMembership(shares, group);
    for (const { msg, group } of shares.inflight.values()) this.redeliver(shares.realm, group, msg);
  }

  private redeliver(realm: string, group: string, msg: ProducedMessage): void {
    const list = this.byRealm.get(realm)?.get(group) ?? [];
    const candidates: Array<{ shares: ClientShares; qos: number }> = [];
    for (const shares of list) {
      const qos = grantFor(shares, group, msg.event);
      if (qos >= 0) candidates.push({ shares, qos });
    }
    if (candidates.length === 0) {
      this.logger.info({ realm, group, event: msg.event }, 'MQTT shared copy lost its member');
      return;
    }
    const key = `${realm}\u0000${group}`;
    const n = (this.redeliveries.get(key) ?? 0) + 1;
    this.redeliveries.set(key, n);
    const next = candidates[(n - 1) % candidates.length]!;
    this.send(next.shares, group, msg, next.qos);
  }

  private dropMembership(shares: ClientShares, group: string): void {
    shares.groups.delete(group);
    const groups = this.byRealm.get(shares.realm);
    const list = groups?.get(group);
    if (!groups || !list) return;
    const i = list.indexOf(shares);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) {
      groups.delete(group);
      this.redeliveries.delete(`${shares.realm}\u0000${group}`);
    }
    if (groups.size === 0) this.byRealm.delete(shares.realm);
  }
}

/** The highest grant of `shares`' filters in `group` matching `topic`; -1 when none does. */
function grantFor(shares: ClientShares, group: string, topic: string): number {
  let qos = -1;
  for (const [filter, granted] of shares.groups.get(group) ?? []) {
    if (granted > qos && mqttFilterMatches(filter, topic)) qos = granted;
  }
  return qos;
}

function keptProperties(packet: AedesPublishPacket | undefined): object | undefined {
  const props = (packet as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!props) return undefined;
  const out: Record<string, unknown> = {};
  let any = false;
  for (const name of KEPT_PROPERTIES) {
    if (props[name] !== undefined) {
      out[name] = props[name];
      any = true;
    }
  }
  return any ? out : undefined;
}
