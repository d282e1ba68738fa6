/**
 * Routing a produced message to its subscribers.
 *
 * Source: `spec/protocol-core.md` §7 (the routing steps), §11 (topics), §12 (groups) and
 * §13 (broadcast, in `broadcast.ts`). The steps, in order:
 *   1. broadcast → §13 instead;
 *   2. candidate keys k1 = lc(P-E), k2 = lc(P)-TM-ALL, k3 = lc(TYO-MQ-ALL-E);
 *   3. target realms: the producer's, plus `*` when it exists;
 *   4. exact keys, each record checked against the producer name (exactly, Note 2.3-B);
 *   5. topic keys from the trie, other than k1–k3;
 *   6. grouped records go to their group's bucket, the rest are delivered;
 *   7. each group bucket delivers to one member, round-robin.
 * A message relayed by a cluster peer (§17) is routed in relay mode: in step 7 a group the
 * origin served is skipped, and any other group is served by the one node of the cluster that
 * wins the `GroupArbiter`'s claim (docs/cluster.md). Messages routed here first are handed to the
 * cluster relay afterwards, with the groups they were given to.
 *
 * Taps also tell the cluster's interest table (issue 21, `broker/cluster/local-interest.ts`)
 * which realms they want: `tapInterest()`, with `onTapInterestChange` when it may have changed.
 */
import {
  Protocol,
  allEventsKey,
  anyProducerKey,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../shared/protocol-events';
import type { Delivery, StoreOutcome } from '../delivery/delivery';
import { deliverBroadcast } from './broadcast';
import {
  externalMembersOf,
  type ExternalGroupMember,
  type GroupMemberSource,
} from './group-members';
import { RoutingPass, type GroupArbiter } from './routing-pass';
import { buildEnvelope, type ProducedMessage } from './produced-message';
import type { RealmDirectory } from './realm-directory';
import type { RealmRegistry } from './realm-registry';

export type { GroupArbiter } from './routing-pass';

/**
 * What the taps want, for the cluster (issue 21): `'all'` (every non-broadcast message of
 * every realm), or the realms whose every non-broadcast message some tap wants (`*` = every
 * realm). Broadcasts are not included: no tap takes them (the MQTT bridge and the in-process
 * subscribers skip them).
 */
export type TapInterest = 'all' | ReadonlySet<string>;

export class Router {
  /** Observers of every routed message (the MQTT bridge), called before routing. */
  private readonly taps: ((msg: ProducedMessage) => void)[] = [];
  /** Taps that want a realm's messages even with no subscription in it (in-process subscribers). */
  private readonly interests: ((realm: string) => boolean)[] = [];
  /** Per tap (same order as `taps`): the realms it wants, or null for every realm. */
  private readonly tapRealms: ((() => Iterable<string>) | null)[] = [];
  private readonly tapInterestListeners = new Set<() => void>();
  /** The cluster relay: sends this node's messages to its peers after local routing. */
  private relay: ((msg: ProducedMessage) => void) | null = null;
  /** The cluster's choice of node for a group a relayed message still has to reach. */
  private arbiter: GroupArbiter | null = null;
  /** Group members outside the registry (MQTT shared subscriptions, group-members.ts). */
  private readonly groupSources: GroupMemberSource[] = [];

  constructor(
    private readonly realms: RealmDirectory,
    private readonly delivery: Delivery,
  ) {}

  /**
   * Routes one message. Returns the outcomes of the durable writes it caused (empty when
   * none), which publisher confirms wait for.
   */
  route(msg: ProducedMessage): Promise<StoreOutcome>[] {
    for (const tap of this.taps) tap(msg);
    const envelope = buildEnvelope(msg);
    const stored: Promise<StoreOutcome>[] = [];
    if (msg.broadcast) {
      deliverBroadcast(this.realms, this.delivery, msg, envelope);
      if (this.relay && msg.relayedFrom === undefined) this.relay(msg);
      return stored;
    }
    const p = msg.from;
    const k1 = subscriptionKey(p, msg.event);
    const k2 = allEventsKey(p);
    const k3 = anyProducerKey(msg.event);
    const external =
      this.groupSources.length > 0 ? externalMembersOf(this.groupSources, msg) : null;
    // A realm whose only group members are external still needs its group counters.
    const own = this.realms.get(msg.realm, external !== null);
    this.routeInRealm(own, msg, envelope, stored, k1, k2, k3, external);
    if (msg.realm !== Protocol.ADMIN_REALM) {
      const admin = this.realms.get(Protocol.ADMIN_REALM);
      if (admin) this.routeInRealm(admin, msg, envelope, stored, k1, k2, k3);
    }
    if (this.relay && msg.relayedFrom === undefined) this.relay(msg);
    return stored;
  }

  /**
   * Whether a non-broadcast message of `realm` could reach any subscription (its realm or `*`
   * has one): a cheap pre-check for producers that must convert a payload first.
   */
  mayDeliver(realm: string): boolean {
    if ((this.realms.get(realm)?.subscriptions.size ?? 0) > 0) return true;
    for (const wants of this.interests) if (wants(realm)) return true;
    return (
      realm !== Protocol.ADMIN_REALM &&
      (this.realms.get(Protocol.ADMIN_REALM)?.subscriptions.size ?? 0) > 0
    );
  }

  /**
   * Adds an observer of every routed message; returns its removal. `interested(realm)` makes
   * `mayDeliver` true for realms the observer wants even without subscriptions. `realms` lists
   * the realms `interested` holds for (`*` = every realm), for `tapInterest`; without it the
   * tap is taken to want every message (the cluster then sends it everything). A tap whose
   * realms change calls `tapInterestChanged()`.
   */
  addTap(
    tap: (msg: ProducedMessage) => void,
    interested?: (realm: string) => boolean,
    realms?: () => Iterable<string>,
  ): () => void {
    this.taps.push(tap);
    this.tapRealms.push(realms ?? null);
    if (interested) this.interests.push(interested);
    this.tapInterestChanged();
    return () => {
      const i = this.taps.indexOf(tap);
      if (i >= 0) {
        this.taps.splice(i, 1);
        this.tapRealms.splice(i, 1);
      }
      const j = interested ? this.interests.indexOf(interested) : -1;
      if (j >= 0) this.interests.splice(j, 1);
      this.tapInterestChanged();
    };
  }

  /**
   * Adds external consumer-group members (`GroupMemberSource`), consulted for every
   * non-broadcast message in its own realm; `interested` as for `addTap`. Returns its removal.
   */
  addGroupMembers(source: GroupMemberSource, interested: (realm: string) => boolean): () => void {
    this.groupSources.push(source);
    this.interests.push(interested);
    return () => {
      const i = this.groupSources.indexOf(source);
      if (i >= 0) this.groupSources.splice(i, 1);
      const j = this.interests.indexOf(interested);
      if (j >= 0) this.interests.splice(j, 1);
    };
  }

  /** What the taps want (see `TapInterest`); computed on each call (not for the hot path). */
  tapInterest(): TapInterest {
    const out = new Set<string>();
    for (const realms of this.tapRealms) {
      if (realms === null) return 'all';
      for (const realm of realms()) out.add(realm);
    }
    return out;
  }

  /** Calls `listener` whenever `tapInterest()` may have changed; returns its removal. */
  onTapInterestChange(listener: () => void): () => void {
    this.tapInterestListeners.add(listener);
    return () => this.tapInterestListeners.delete(listener);
  }

  /** For taps: the realms they want changed (a realm got its first pattern or lost its last). */
  tapInterestChanged(): void {
    for (const listener of this.tapInterestListeners) listener();
  }

  /**
   * Sets the cluster relay, called with every message routed here that no peer relayed, after
   * its local routing; `interested` as for `addTap`. Returns its removal.
   */
  addRelay(
    relay: (msg: ProducedMessage) => void,
    interested: (realm: string) => boolean,
    arbiter: GroupArbiter | null = null,
  ): () => void {
    this.relay = relay;
    this.arbiter = arbiter;
    this.interests.push(interested);
    return () => {
      if (this.relay === relay) {
        this.relay = null;
        this.arbiter = null;
      }
      const i = this.interests.indexOf(interested);
      if (i >= 0) this.interests.splice(i, 1);
    };
  }

  private routeInRealm(
    realm: RealmRegistry | undefined,
    msg: ProducedMessage,
    envelope: DeliveryEnvelope,
    stored: Promise<StoreOutcome>[],
    k1: string,
    k2: string,
    k3: string,
    external: Map<string, ExternalGroupMember[]> | null = null,
  ): void {
    if (!realm || (realm.subscriptions.size === 0 && external === null)) return;
    const pass = new RoutingPass(
      this.delivery,
      realm,
      msg,
      envelope,
      stored,
      this.relay ? this.arbiter : null,
      external,
    );

    // Step 4: exact keys. k1 and k3 coincide when the producer is named TYO-MQ-ALL.
    pass.exact(k1);
    if (k2 !== k1) pass.exact(k2);
    if (k3 !== k1 && k3 !== k2) pass.exact(k3);

    // Step 5: topic keys (the producer part of a topic key is ignored, §6.3).
    if (realm.topics.count > 0) {
      for (const key of realm.topics.match(msg.event)) {
        if (key === k1 || key === k2 || key === k3) continue;
        const byConsumer = realm.subscriptions.get(key);
        if (!byConsumer) continue;
        for (const record of byConsumer.values())
          if (record.mode === 'topic') pass.dispatch(record);
      }
    }

    // Step 7: one member per group and message.
    pass.deliverGroups();
    pass.flushPlain();
  }
}
