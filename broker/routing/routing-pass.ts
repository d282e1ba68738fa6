/**
 * One message's pass over one realm: steps 4–7 of `spec/protocol-core.md` §7 as `Router`
 * drives them (router.ts), with §12's groups. Plain live copies are gathered per key so a
 * fan-out is encoded once per key; copies that involve the store go through `Delivery`.
 */
import { Protocol, consumeEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import type { Delivery, StoreOutcome } from '../delivery/delivery';
import { liveSocket } from '../delivery/reliable-copy';
import type { BrokerSocket } from '../transport/socket-types';
import type { ExternalGroupMember } from './group-members';
import type { ProducedMessage } from './produced-message';
import type { RealmRegistry } from './realm-registry';
import type { SubscriptionRecord } from './registry-types';

/**
 * One message's pass over one realm. A small object rather than closures: it is created for
 * every routed message, and closures cost more on this hot path.
 */
/**
 * Resolves true when this node is the one of the cluster to serve `group` of `realm` for a
 * relayed message the origin did not give to that group (docs/cluster.md). Never rejects.
 */
export type GroupArbiter = (realm: string, group: string, msg: ProducedMessage) => Promise<boolean>;

export class RoutingPass {
  private groups: Map<string, SubscriptionRecord[]> | null = null;
  /**
   * Plain live deliveries gathered per key, so a fan-out is encoded once per key: the first
   * key in fields, any further ones in `plain` (in order after it). Most messages reach one
   * key, and a Map per routed message was the largest allocation of the plain path.
   */
  private firstKey: string | null = null;
  private firstSockets: BrokerSocket[] | null = null;
  private plain: Map<string, BrokerSocket[]> | null = null;

  constructor(
    private readonly delivery: Delivery,
    private readonly realm: RealmRegistry,
    private readonly msg: ProducedMessage,
    private readonly envelope: DeliveryEnvelope,
    private readonly stored: Promise<StoreOutcome>[],
    private readonly arbiter: GroupArbiter | null,
    private readonly external: Map<string, ExternalGroupMember[]> | null,
  ) {}

  /** Step 4 for one key: records naming this producer exactly, or any producer. */
  exact(key: string): void {
    const byConsumer = this.realm.subscriptions.get(key);
    if (!byConsumer) return;
    const producer = this.msg.from;
    for (const record of byConsumer.values()) {
      if (record.producer === producer || record.producer === Protocol.ALL_PUBLISHERS) {
        this.dispatch(record);
      }
    }
  }

  /** Step 6: grouped records wait for step 7, the others are delivered now. */
  dispatch(record: SubscriptionRecord): void {
    // Relay mode: offline consumers registered here are served as on the origin (see
    // docs/cluster.md): every node keeps the copies of the consumers registered with it, where
    // the reference loses them. Groups: see `deliverGroups`.
    if (record.group === null) {
      this.deliver(record);
      return;
    }
    this.groups ??= new Map();
    const bucket = this.groups.get(record.group);
    if (bucket) bucket.push(record);
    else this.groups.set(record.group, [record]);
  }

  /**
   * Step 7: per group, the next live member round-robin (any member if none is live). In a
   * cluster, the origin records the groups it served; a peer serves a group only if the origin
   * did not and the arbiter picks this node for it (a message from a reference node, which
   * does not say what it served, reaches no group on peers: §17).
   */
  deliverGroups(): void {
    if (this.groups === null && this.external === null) return;
    const msg = this.msg;
    const names = new Set([...(this.groups?.keys() ?? []), ...(this.external?.keys() ?? [])]);
    for (const group of names) {
      const members = this.groups?.get(group) ?? [];
      if (this.arbiter === null) {
        if (msg.relayedFrom === undefined) this.deliverGroup(group, members);
        continue;
      }
      // In a cluster, a node serves a group only if a copy would reach someone: a member is
      // live, or the copy is kept for an offline one (durable subscription or guaranteed
      // message). Otherwise a node whose only member left would drop it for the whole group.
      if (!this.canServe(group, members)) continue;
      if (msg.relayedFrom === undefined) {
        (msg.groupsServed ??= []).push([this.realm.name, group]);
        this.deliverGroup(group, members);
        continue;
      }
      const served = msg.groupsServed;
      if (!served) continue;
      if (served.some(([r, g]) => r === this.realm.name && g === group)) continue;
      // Claimed by one node of the cluster; the winner delivers once the claim answers (after
      // this pass: its plain deliveries are flushed on their own).
      void this.arbiter(this.realm.name, group, msg).then((won) => {
        if (!won) return;
        this.firstKey = null;
        this.firstSockets = null;
        this.plain = null;
        this.deliverGroup(group, members);
        this.flushPlain();
      });
    }
  }

  /** Whether delivering to `members` reaches someone now or later (see `deliverGroups`). */
  private canServe(group: string, members: SubscriptionRecord[]): boolean {
    if (this.msg.guaranteed || this.external?.has(group) === true) return true;
    for (const m of members) {
      if (m.durable || this.realm.consumers.get(m.consumer)?.online === true) return true;
    }
    return false;
  }

  /**
   * The next live member of `group` round-robin (any member if none is live): the live tyo-mq
   * members, then the external ones (always live), one counter for both.
   */
  private deliverGroup(group: string, members: SubscriptionRecord[]): void {
    const live = members.filter((m) => this.realm.consumers.get(m.consumer)?.online === true);
    const external = this.external?.get(group) ?? [];
    const size = live.length + external.length;
    const pool = size > 0 ? live : members;
    const i = (this.realm.nextGroupCount(group) - 1) % (size > 0 ? size : members.length);
    if (i >= pool.length) external[i - pool.length]!.deliver(this.msg);
    else this.deliver(pool[i]!, members);
  }

  /** Emits the gathered plain deliveries, one packet encoding per key. */
  flushPlain(): void {
    if (this.firstKey === null) return;
    this.emitPlain(this.firstKey, this.firstSockets!);
    if (this.plain === null) return;
    for (const [key, sockets] of this.plain) this.emitPlain(key, sockets);
  }

  private emitPlain(key: string, sockets: BrokerSocket[]): void {
    this.delivery.emitToSockets(
      this.realm.name,
      sockets,
      consumeEvent(key),
      this.envelope,
      this.msg.receivedAt,
    );
  }

  /** Adds `socket` to the plain deliveries of `key` (see `firstKey`). */
  private gather(key: string, socket: BrokerSocket): void {
    if (this.firstKey === null) {
      this.firstKey = key;
      this.firstSockets = [socket];
    } else if (this.firstKey === key) {
      this.firstSockets!.push(socket);
    } else {
      this.plain ??= new Map();
      const sockets = this.plain.get(key);
      if (sockets) sockets.push(socket);
      else this.plain.set(key, [socket]);
    }
  }

  private deliver(record: SubscriptionRecord, members?: SubscriptionRecord[]): void {
    if (!record.ackRequired) {
      const socket = liveSocket(this.realm, record.consumer);
      // A durable subscription's backlog drains before live copies (publish order).
      if (
        socket &&
        (!record.durable || this.delivery.mayDeliverPlain(this.realm, record, socket))
      ) {
        this.gather(record.key, socket);
        return;
      }
    }
    const outcome = this.delivery.toSubscription(
      this.realm,
      record,
      this.envelope,
      this.msg,
      members,
    );
    if (outcome) this.stored.push(outcome);
  }
}
