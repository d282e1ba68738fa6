/**
 * The queued side of overlapping subscriptions (issue 24; OASIS MQTT 5.0 §3.3.4,
 * [MQTT-3.3.4-2..5]; the live side is overlapping-subscriptions.ts): a message queued for an
 * offline persistent session that two or more of its subscriptions match is queued ONCE, at
 * min(the PUBLISH's QoS, the highest QoS those subscriptions granted), carrying the
 * Subscription Identifiers of those that have one.
 *
 * aedes-persistence 11 matches a topic to one entry per (client, filter) and its
 * `outgoingEnqueueCombi` queues a copy for each, without identifiers (its topic trie does not
 * keep them): such a client got the message twice on reconnect, neither with an identifier.
 * This layer keeps each client's identifiers by filter, beside the parent's records, so the
 * grouping is synchronous (queued copies are placed in the routing turn, see
 * stored-persistence.ts). Memory: one number per subscription with an identifier.
 */
import type { Client, Subscription } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
import { BoundedPersistence } from './bounded-persistence';

/** One matching subscription as aedes-persistence's topic match returns it. */
export interface MatchedSub {
  clientId: string;
  topic?: string;
  qos?: number;
  rap?: boolean;
}

/** What to queue for one client: its matching subscriptions merged. */
export interface QueuedFor {
  clientId: string;
  /** Retain As Published on any of them. */
  rap: boolean;
  /** The highest granted QoS among them. */
  qos: number;
  /** Their Subscription Identifiers, ascending, none repeated. */
  ids: number[];
}

export class IdentifiedPersistence extends BoundedPersistence {
  /** client id → filter → Subscription Identifier. */
  private readonly identifiers = new Map<string, Map<string, number>>();

  override async addSubscriptions(client: Client, subs: Subscription[]): Promise<void> {
    let byFilter = this.identifiers.get(client.id);
    for (const sub of subs) {
      const si = (sub as { subscriptionIdentifier?: number }).subscriptionIdentifier;
      if (si !== undefined) {
        if (!byFilter) this.identifiers.set(client.id, (byFilter = new Map()));
        byFilter.set(sub.topic, si);
      } else byFilter?.delete(sub.topic);
    }
    if (byFilter?.size === 0) this.identifiers.delete(client.id);
    await super.addSubscriptions(client, subs);
  }

  override async removeSubscriptions(client: Client, topics: string[]): Promise<void> {
    const byFilter = this.identifiers.get(client.id);
    for (const topic of topics) byFilter?.delete(topic);
    if (byFilter?.size === 0) this.identifiers.delete(client.id);
    await super.removeSubscriptions(client, topics);
  }

  override async cleanSubscriptions(client: Client): Promise<void> {
    this.identifiers.delete(client.id);
    await super.cleanSubscriptions(client);
  }

  /** `subs` (a topic match) merged per client, in first-match order. */
  protected perClient(subs: readonly MatchedSub[]): QueuedFor[] {
    const out = new Map<string, QueuedFor>();
    for (const sub of subs) {
      let entry = out.get(sub.clientId);
      if (!entry)
        out.set(sub.clientId, (entry = { clientId: sub.clientId, rap: false, qos: 0, ids: [] }));
      entry.rap ||= sub.rap === true;
      entry.qos = Math.max(entry.qos, sub.qos ?? 0);
      const si =
        sub.topic === undefined ? undefined : this.identifiers.get(sub.clientId)?.get(sub.topic);
      if (si !== undefined && !entry.ids.includes(si)) entry.ids.push(si);
    }
    for (const entry of out.values()) entry.ids.sort((a, b) => a - b);
    return [...out.values()];
  }
}

/**
 * `copy` (a fresh queued copy of the PUBLISH) as `queued` receives it: QoS capped, its own
 * Subscription Identifiers (the publisher's properties object is shared, so it is replaced).
 */
export function asQueuedFor<P extends AedesPacket>(copy: P, queued: QueuedFor): P {
  const p = copy as P & { qos: number; properties?: Record<string, unknown> };
  if (queued.qos > 0) p.qos = Math.min(p.qos, queued.qos);
  if (p.properties !== undefined || queued.ids.length > 0) {
    const { subscriptionIdentifier: _drop, ...rest } = p.properties ?? {};
    const ids = queued.ids;
    p.properties =
      ids.length === 0
        ? rest
        : { ...rest, subscriptionIdentifier: ids.length === 1 ? ids[0] : ids };
  }
  return p;
}
