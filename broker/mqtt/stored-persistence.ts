/**
 * aedes persistence on Switchboard's message store (issue 14): retained messages and persistent
 * sessions (subscriptions, queued and in-flight QoS 1/2 packets, QoS 2 receipts, wills) survive
 * a broker restart when the store keeps MQTT state (`MessageStore.mqttState`, the SQLite store).
 *
 * Design: aedes' own in-memory persistence (aedes-persistence 11, bounded-persistence.ts) stays
 * the working copy, so topic matching, retained look-ups and session restores cost what they
 * cost in plain aedes; every change is also written through the store's group commit (one
 * transaction, off the event loop), and the whole state is read back once when the listener
 * starts. Subscriptions, wills, QoS 2 receipts and dequeues resolve after their commit (a SUBACK
 * follows the stored subscription, a PUBREC the stored receipt).
 *
 * Queued copies (`outgoingEnqueueCombi`) and retained messages (`storeRetained`) are the
 * exceptions: they are written in the background, in call order. aedes routes a message in one
 * turn of the event loop with its own persistence (store the retained copy, enqueue for
 * persistent sessions, deliver to live subscriptions); waiting for a commit in between let a
 * persistent subscriber reconnect in the gap (it got the message both live and from its queue,
 * out of order) and let later messages overtake a retained one into the queues
 * (test/broker/mqtt/mqtt-reconnect-race.test.ts). No guarantee is lost: aedes sends a QoS 1
 * PUBACK before it routes the message at all, and a crash can lose the last few milliseconds of
 * queued copies either way.
 *
 * Outgoing queues are kept here (not in the parent) with a sequence number per packet, so a
 * PUBACK deletes exactly its row and a restart restores each queue in its original order.
 * Message ids are not stored: aedes assigns fresh ones when it drains a queue on reconnect.
 *
 * Wills keep the identity of the client that left them (realm, role, token hash), so a will
 * restored after a restart is authorized like a publish of that client (`restoredWillIdentity`).
 * Memory: like aedes' memory persistence, the whole state is held in memory too. Without a
 * store (`storage: "memory"`) it is that memory persistence alone, plus `purgeRealm`.
 *
 * Realms: `purgeRealm` forgets everything of a removed realm (its client ids and topics carry
 * the realm's prefix, realm-topics.ts), so a realm re-created with the same name starts empty;
 * it and the other realm-wide operations are in the layer below (realm-scoped-persistence.ts).
 */
import { Readable } from 'node:stream';
import type { Client, Subscription } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
import type { MqttStateSnapshot, MqttStateStore, MqttStateWrite } from '../storage/mqtt-state';
import { asQueuedFor, type MatchedSub } from './identified-persistence';
import type { MqttIdentity } from './mqtt-identity';
import { Packet, decodePacket, encodePacket, restoredIdentities, type Pkt } from './packet-codec';
import { asClient, RealmScopedPersistence } from './realm-scoped-persistence';
import { asRedelivery } from './redelivery-dup';

const DONE = Promise.resolve();

export class StoredPersistence extends RealmScopedPersistence {
  private seq = 0;

  /**
   * @param state the store's MQTT state (read at `setup`, written on every change); undefined =
   *   in memory only
   * @param identityOf the identity of a connected client, kept with its will
   * @param stillValid whether a restored will's identity may still publish
   * @param maxInflightInbound QoS 2 receipts per connection (bounded-persistence.ts)
   */
  constructor(
    private readonly state: MqttStateStore | undefined,
    private readonly identityOf: (client: Client) => MqttIdentity | undefined,
    private readonly stillValid: (identity: MqttIdentity) => boolean,
    maxInflightInbound?: number,
  ) {
    super(maxInflightInbound);
  }

  /**
   * Wills of clients gone with another (or a previous) broker. A restored will whose client's
   * credentials are no longer valid (revoked token, removed realm) is deleted, not published:
   * aedes' will sweep would otherwise retry it forever.
   */
  override streamWill(brokers?: Record<string, unknown>): Readable {
    const wills = super.streamWill(brokers as never);
    const keep = async function* (this: StoredPersistence) {
      for await (const will of wills as AsyncIterable<Pkt>) {
        const identity = restoredIdentities.get(will);
        if (identity && !this.stillValid(identity)) {
          await this.delWill(asClient(String(will.clientId)));
          continue;
        }
        yield will;
      }
    };
    return Readable.from(keep.call(this));
  }

  /** Loads the stored state before aedes serves anyone (aedes awaits it in `listen`). */
  override async setup(broker: unknown): Promise<void> {
    await super.setup(broker);
    if (this.state) this.restore(await this.state.load());
  }

  /** Writes a change through the store when there is one (the change is built only then). */
  protected save(change: () => MqttStateWrite): Promise<void> {
    return this.state ? this.state.write(change()) : DONE;
  }

  /**
   * Failures of writes nobody awaits (queued copies), e.g. a full disk; the listener logs them.
   * The in-memory copy stays, so a running broker still delivers what it could not store.
   */
  onBackgroundError: ((err: unknown) => void) | null = null;

  /** `save` without waiting for the commit; writes stay in call order. */
  private saveInBackground(change: () => MqttStateWrite): void {
    this.save(change).catch((err: unknown) => this.onBackgroundError?.(err));
  }

  private restore(snap: MqttStateSnapshot): void {
    // The parent's methods only touch memory here (no await needed for correctness).
    for (const r of snap.retained) void super.storeRetained(decodePacket(r.packet));
    const byClient = new Map<string, Subscription[]>();
    for (const s of snap.subscriptions) {
      const list = byClient.get(s.client_id) ?? [];
      list.push({ topic: s.topic, ...(JSON.parse(s.options) as object) } as Subscription);
      byClient.set(s.client_id, list);
      this.subscribed.add(s.client_id);
    }
    for (const [id, subs] of byClient) void super.addSubscriptions(asClient(id), subs);
    for (const o of snap.outgoing) {
      this.queueOf(o.client_id).push({ seq: o.seq, packet: decodePacket(o.packet) });
      this.seq = Math.max(this.seq, o.seq);
    }
    for (const i of snap.incoming) {
      const packet = decodePacket(i.packet);
      packet.messageId = i.message_id;
      this.receipts.add(i.client_id);
      void super.incomingStorePacket(asClient(i.client_id), packet);
    }
    for (const w of snap.wills) {
      const { identity, ...rest } = decodePacket(w.packet) as Pkt & { identity?: MqttIdentity };
      const packet = rest as Pkt;
      const brokerId = packet.brokerId;
      void super.putWill(asClient(w.client_id), packet);
      this.willed.add(w.client_id);
      // putWill stamps the current broker: keep the old one, so aedes publishes it as orphaned.
      packet.brokerId = brokerId;
      if (identity) restoredIdentities.set(packet, identity);
    }
  }

  override async storeRetained(packet: AedesPacket): Promise<void> {
    await super.storeRetained(packet);
    const { topic, payload } = packet as unknown as { topic: string; payload: Buffer };
    const empty = payload.length === 0;
    if (empty) this.retainedAt.delete(topic);
    else this.retainedAt.set(topic, Date.now());
    // In the background, like queued copies: aedes stores the retained copy first in the same
    // routing turn, and waiting here let later messages overtake this one into the queues.
    this.saveInBackground(() => ({
      op: 'retained',
      topic,
      packet: empty ? null : encodePacket(packet),
    }));
  }

  override async addSubscriptions(client: Client, subs: Subscription[]): Promise<void> {
    await super.addSubscriptions(client, subs);
    this.subscribed.add(client.id);
    await Promise.all(
      subs.map((sub) => {
        const { topic, ...options } = sub;
        return this.save(() => ({
          op: 'subscribe',
          clientId: client.id,
          topic,
          options: JSON.stringify(options),
        }));
      }),
    );
  }

  override async removeSubscriptions(client: Client, topics: string[]): Promise<void> {
    await super.removeSubscriptions(client, topics);
    if ((await super.subscriptionsByClient(client)).length === 0) this.subscribed.delete(client.id);
    await Promise.all(
      topics.map((topic) => this.save(() => ({ op: 'unsubscribe', clientId: client.id, topic }))),
    );
  }

  override async cleanSubscriptions(client: Client): Promise<void> {
    await super.cleanSubscriptions(client);
    this.subscribed.delete(client.id);
    await this.save(() => ({ op: 'cleanSubscriptions', clientId: client.id }));
  }

  override async outgoingEnqueue(sub: { clientId: string }, packet: AedesPacket): Promise<void> {
    await this.outgoingEnqueueCombi([sub], packet);
  }

  /**
   * Queues a copy of `packet` for each persistent subscription. A copy is queued for an
   * established subscription, so its RETAIN flag is 0 ([MQTT-3.3.1-9]) unless the MQTT 5
   * subscription asked for Retain As Published (aedes would send it as retained).
   */
  override async outgoingEnqueueCombi(subs: MatchedSub[], packet: AedesPacket): Promise<void> {
    // Not awaited (see the module comment): the copies are written in order, in the next group
    // commit, while aedes routes the message on in the same turn, as with its own persistence.
    // One copy per client, however many of its subscriptions match (identified-persistence.ts).
    for (const sub of this.perClient(subs)) {
      const seq = ++this.seq;
      const copy = asQueuedFor(new Packet(packet), sub);
      if (copy.retain && !sub.rap) copy.retain = false;
      this.queueOf(sub.clientId).push({ seq, packet: copy });
      const clientId = sub.clientId;
      this.saveInBackground(() => ({ op: 'enqueue', seq, clientId, packet: encodePacket(copy) }));
    }
  }

  /**
   * Before a queued packet is (re)sent: the same packet gets its new message id (memory only);
   * a PUBREL replacing a PUBLISH with the same message id (QoS 2) is stored in its place.
   * @throws Error "no such packet" as aedes-persistence does.
   */
  override async outgoingUpdate(client: Client, packet: AedesPacket): Promise<void> {
    const queue = this.outgoing.get(client.id) ?? [];
    for (const entry of queue) {
      const old = entry.packet;
      if (old.brokerId === packet.brokerId) {
        if (old.brokerCounter === packet.brokerCounter) {
          old.messageId = packet.messageId;
          return;
        }
      } else if (old.messageId === packet.messageId) {
        entry.packet = packet as Pkt;
        const seq = entry.seq;
        await this.save(() => ({ op: 'replaceOutgoing', seq, packet: encodePacket(packet) }));
        return;
      }
    }
    throw new Error('no such packet');
  }

  override async outgoingClearMessageId(client: Client, packet: AedesPacket): Promise<AedesPacket> {
    const queue = this.outgoing.get(client.id) ?? [];
    const i = queue.findIndex((e) => e.packet.messageId === packet.messageId);
    if (i < 0) return undefined as unknown as AedesPacket;
    const [entry] = queue.splice(i, 1);
    if (queue.length === 0) this.outgoing.delete(client.id);
    await this.save(() => ({ op: 'dequeue', seq: entry!.seq }));
    return entry!.packet;
  }

  override outgoingStream(client: Client): Readable {
    // A snapshot (queued meanwhile: delivered live); DUP=1 on those sent before.
    return Readable.from((this.outgoing.get(client.id) ?? []).map((e) => asRedelivery(e.packet)));
  }

  override async incomingStorePacket(client: Client, packet: AedesPacket): Promise<void> {
    await super.incomingStorePacket(client, packet);
    this.receipts.add(client.id);
    await this.save(() => ({
      op: 'incoming',
      clientId: client.id,
      messageId: packet.messageId ?? 0,
      packet: encodePacket(packet),
    }));
  }

  override async incomingDelPacket(client: Client, packet: AedesPacket): Promise<void> {
    await super.incomingDelPacket(client, packet);
    await this.save(() => ({
      op: 'incoming',
      clientId: client.id,
      messageId: packet.messageId ?? 0,
      packet: null,
    }));
  }

  override async cleanIncoming(client: Client): Promise<void> {
    await super.cleanIncoming(client);
    this.receipts.delete(client.id);
    await this.save(() => ({ op: 'cleanIncoming', clientId: client.id }));
  }

  override async putWill(client: Client, packet: AedesPacket): Promise<void> {
    await super.putWill(client, packet);
    this.willed.add(client.id);
    const live = this.identityOf(client);
    // The session credential (issue 20) is not stored: a restored will is judged by stillValid.
    const identity = live && { ...live, credential: undefined };
    await this.save(() => ({
      op: 'will',
      clientId: client.id,
      packet: encodePacket(packet, identity ? { identity } : {}),
    }));
  }

  override async delWill(client: Client) {
    const will = await super.delWill(client);
    this.willed.delete(client.id);
    if (will) await this.save(() => ({ op: 'will', clientId: client.id, packet: null }));
    return will;
  }
}
