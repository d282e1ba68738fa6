/**
 * The realm-wide operations on the MQTT working copy (issue 14, `remove_realm`, `rename_realm`,
 * `delete_retained`, the console's Retained view), below `StoredPersistence`'s write-through
 * layer: they call aedes' memory persistence directly (`super`), so each change is made once in
 * memory and reaches the store as one realm-wide statement (`purgePrefixes`) or as the store's
 * own rename, never as one write per session row.
 *
 * It owns the bookkeeping both layers read: which client ids have subscriptions, QoS 2 receipts,
 * wills or queued packets, and when each retained message was stored.
 */
import type { Client, Subscription } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
import type { MqttStateWrite } from '../storage/mqtt-state';
import { restoredIdentities, type Pkt } from './packet-codec';
import { realmPrefixes, zipPrefixes } from './realm-topics';
import { SessionExpiryPersistence } from './session-expiry-persistence';

/** One queued outgoing packet with its store sequence number (its row). */
export interface Queued {
  seq: number;
  packet: Pkt;
}

/** The `Client` aedes' persistence methods need, for a client id only. */
export const asClient = (id: string) => ({ id }) as unknown as Client;

export abstract class RealmScopedPersistence extends SessionExpiryPersistence {
  protected readonly outgoing = new Map<string, Queued[]>();
  /** Client ids with subscriptions, QoS 2 receipts or a will (what `purgeRealm` looks at). */
  protected readonly subscribed = new Set<string>();
  protected readonly receipts = new Set<string>();
  protected readonly willed = new Set<string>();
  /** When each retained message was stored here (ms): its MQTT 5 expiry remaining is shown. */
  protected readonly retainedAt = new Map<string, number>();

  /** Writes a change through the store when there is one; resolves once it is committed. */
  protected abstract save(change: () => MqttStateWrite): Promise<void>;

  /**
   * Forgets everything of `realm` (removed or expired): its clients' subscriptions, queued and
   * in-flight packets, QoS 2 receipts and wills, and its retained messages, in memory and in the
   * store. Resolves once the store's delete is committed.
   */
  async purgeRealm(realm: string): Promise<void> {
    const prefixes = realmPrefixes(realm);
    const ours = (id: string) => prefixes.some((prefix) => id.startsWith(prefix));
    const done: Array<Promise<unknown>> = [];
    // The parent's methods only touch memory: they run to completion as they are called.
    for (const id of [...this.subscribed].filter(ours)) {
      this.subscribed.delete(id);
      done.push(super.cleanSubscriptions(asClient(id)));
    }
    for (const id of [...this.receipts].filter(ours)) {
      this.receipts.delete(id);
      done.push(super.cleanIncoming(asClient(id)));
    }
    for (const id of [...this.willed].filter(ours)) {
      this.willed.delete(id);
      done.push(super.delWill(asClient(id)));
    }
    for (const id of [...this.outgoing.keys()].filter(ours)) this.outgoing.delete(id);
    const retained = super.createRetainedStreamCombi(prefixes.map((prefix) => `${prefix}#`));
    const topics: string[] = [];
    for await (const packet of retained as AsyncIterable<Pkt>) topics.push(String(packet.topic));
    for (const topic of topics) {
      const empty = { topic, payload: Buffer.alloc(0) } as unknown as AedesPacket;
      this.retainedAt.delete(topic);
      done.push(super.storeRetained(empty));
    }
    done.push(this.save(() => ({ op: 'purgePrefixes', prefixes })));
    await Promise.all(done);
  }

  /**
   * Moves `from`'s MQTT state to realm `to` in aedes' working copy (`rename_realm`): persistent
   * sessions' subscriptions, queued packets and wills go to the renamed client ids, retained
   * messages to the renamed topics; QoS 2 receipts of the old ids are dropped (the clients were
   * disconnected; a QoS 2 sender retransmits). Memory only: the store renames its own rows in
   * the same transaction as the rest of the realm's data (`MessageStore.renameRealm`).
   * Returns the retained messages and distinct client ids moved.
   */
  async renameRealm(from: string, to: string): Promise<{ retained: number; sessions: number }> {
    const pairs = zipPrefixes(from, to);
    const rename = (name: string): string | null => {
      for (const [f, t] of pairs) if (name.startsWith(f)) return t + name.slice(f.length);
      return null;
    };
    const sessions = new Set<string>();
    for (const id of [...this.subscribed]) {
      const next = rename(id);
      if (next === null) continue;
      sessions.add(id);
      const subs = await super.subscriptionsByClient(asClient(id));
      this.subscribed.delete(id);
      await super.cleanSubscriptions(asClient(id));
      const moved = subs.map((sub) => ({ ...sub, topic: rename(sub.topic) ?? sub.topic }));
      if (moved.length > 0) {
        await super.addSubscriptions(asClient(next), moved as Subscription[]);
        this.subscribed.add(next);
      }
    }
    for (const [id, queue] of [...this.outgoing]) {
      const next = rename(id);
      if (next === null) continue;
      sessions.add(id);
      this.outgoing.delete(id);
      for (const entry of queue) {
        const topic = rename(String(entry.packet.topic));
        if (topic !== null) entry.packet.topic = topic;
      }
      this.outgoing.set(next, queue);
    }
    for (const id of [...this.receipts]) {
      if (rename(id) === null) continue;
      this.receipts.delete(id);
      await super.cleanIncoming(asClient(id));
    }
    for (const id of [...this.willed]) {
      const next = rename(id);
      if (next === null) continue;
      sessions.add(id);
      const will = (await super.delWill(asClient(id))) as Pkt | undefined;
      this.willed.delete(id);
      if (!will) continue;
      const brokerId = will.brokerId;
      const packet = { ...will, topic: rename(String(will.topic)) ?? will.topic, clientId: next };
      const identity = restoredIdentities.get(will);
      await super.putWill(asClient(next), packet as unknown as AedesPacket);
      (packet as Pkt).brokerId = brokerId;
      if (identity) restoredIdentities.set(packet, { ...identity, realm: to });
      this.willed.add(next);
    }
    const retained = super.createRetainedStreamCombi(pairs.map(([f]) => `${f}#`));
    const packets: Pkt[] = [];
    for await (const packet of retained as AsyncIterable<Pkt>) packets.push(packet);
    for (const packet of packets) {
      const topic = String(packet.topic);
      const next = rename(topic);
      if (next === null) continue;
      const empty = { topic, payload: Buffer.alloc(0) } as unknown as AedesPacket;
      await super.storeRetained(empty);
      await super.storeRetained({ ...packet, topic: next } as unknown as AedesPacket);
    }
    return { retained: packets.length, sessions: sessions.size };
  }

  /**
   * The retained messages whose internal topics match any of `filters` (internal, scoped
   * filters), each with when this broker stored it (ms since epoch; undefined when it was
   * restored from the store, which keeps no time). Read from the working copy only.
   */
  async retainedMatching(filters: string[]): Promise<Array<{ packet: Pkt; storedAt?: number }>> {
    const found: Array<{ packet: Pkt; storedAt?: number }> = [];
    const stream = super.createRetainedStreamCombi(filters);
    for await (const packet of stream as AsyncIterable<Pkt>) {
      found.push({ packet, storedAt: this.retainedAt.get(String(packet.topic)) });
    }
    return found;
  }

  /**
   * Clears the retained message of each internal topic (`delete_retained`): the same empty
   * retained payload an MQTT client would publish ([MQTT-3.3.1-6]), stored without being
   * routed (live subscribers get nothing), and resolves once the store's delete is committed,
   * so a restart cannot bring it back.
   */
  async clearRetained(topics: string[]): Promise<void> {
    await Promise.all(
      topics.map(async (topic) => {
        await super.storeRetained({ topic, payload: Buffer.alloc(0) } as unknown as AedesPacket);
        this.retainedAt.delete(topic);
        await this.save(() => ({ op: 'retained', topic, packet: null }));
      }),
    );
  }

  /** Whether aedes' working copy holds any state under `realm`'s internal names. */
  async holdsRealm(realm: string): Promise<boolean> {
    const prefixes = realmPrefixes(realm);
    const ours = (id: string) => prefixes.some((prefix) => id.startsWith(prefix));
    const ids = [...this.subscribed, ...this.outgoing.keys(), ...this.receipts, ...this.willed];
    if (ids.some(ours)) return true;
    const retained = super.createRetainedStreamCombi(prefixes.map((prefix) => `${prefix}#`));
    for await (const _packet of retained as AsyncIterable<Pkt>) return true;
    return false;
  }

  protected queueOf(clientId: string): Queued[] {
    let queue = this.outgoing.get(clientId);
    if (!queue) {
      queue = [];
      this.outgoing.set(clientId, queue);
    }
    return queue;
  }
}
