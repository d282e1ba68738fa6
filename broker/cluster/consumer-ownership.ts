/**
 * One owner per durable consumer in a cluster (issue 21; docs/cluster.md "A consumer that
 * moves between nodes").
 *
 * A node that a consumer with durable subscriptions binds to (or subscribes durable on) takes
 * it over: its saves write `owner` = its node id (subscription-persistence.ts), and it
 * announces `{realm, consumer, node_id}` on `<prefix>:owner`. Every other node that holds an
 * OFFLINE registration of that consumer in that realm drops its durable records from memory,
 * so it stops storing copies for it; its interest (local-interest.ts) follows the registry.
 *
 * Store rows are never deleted here (`SubscriptionPersistence.removed` would): in a shared
 * Redis store they are the new owner's now. In a node's own store (SQLite, memory) the rows
 * are rewritten with the new owner, so that the next restart leaves them alone, and the copies
 * already stored stay there (replayed if the consumer comes back to this node).
 *
 * A consumer LIVE here under the same name (connected to two nodes at once) is kept, and logged.
 *
 * The owner is also recorded in the hash `<prefix>:owners` (field `<realm length>:<realm>:
 * <consumer>`, value the node id), written before the announcement on the same connection. A
 * node that missed announcements (it was down, or its Redis links were) reconciles against it
 * when it starts and whenever its subscriber link is ready again: every offline durable consumer
 * it holds that the hash gives to another node is dropped as above.
 */
import { z } from 'zod';
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { ConsumerEntry } from '../routing/registry-types';
import type { SubscriptionPersistence } from '../routing/subscription-persistence';
import type { RedisLinks } from './redis-links';

/** An ownership announcement as published: who took which consumer over. */
const OwnerNotice = z.object({
  realm: z.string(),
  consumer: z.string(),
  node_id: z.string().min(1),
});
export type OwnerNotice = z.infer<typeof OwnerNotice>;

export interface ConsumerOwnershipDeps {
  nodeId: string;
  /** The cluster key prefix: the channel is `<prefix>:owner`. */
  prefix: string;
  links: RedisLinks;
  realms: RealmDirectory;
  persistence: SubscriptionPersistence;
  /**
   * Moves this node's stored copies of a taken-over consumer to its new owner (own stores on
   * the streams relay; `queue-handover.ts`): `(realm, key, consumer, consumerId, owner)`.
   */
  handover?: (
    realm: string,
    key: string,
    consumer: string,
    consumerId: string,
    owner: string,
  ) => void;
  /** Whether the message store is the cluster's shared Redis store (read when a notice arrives). */
  sharedStore: () => boolean;
  logger: Logger;
}

/** The hash field of `consumer` of `realm` in `<prefix>:owners` (unambiguous for any names). */
export function ownerField(realm: string, consumer: string): string {
  return `${realm.length}:${realm}:${consumer}`;
}

/** Fields asked per `HMGET` while reconciling. */
const RECONCILE_BATCH = 500;

/** The channel ownership announcements go over. */
export function ownerChannel(prefix: string): string {
  return `${prefix}:owner`;
}

export class ConsumerOwnership {
  private readonly channel: string;
  private readonly ownersKey: string;
  private unhook: (() => void) | null = null;
  /** The socket each consumer entry was last announced for: one notice per binding. */
  private readonly announced = new WeakMap<ConsumerEntry, object | null>();
  private started = false;
  /** Set by the first `reconcile()` (start-up, after the durable subscriptions are restored). */
  private reconciled = false;
  private closed = false;

  constructor(private readonly deps: ConsumerOwnershipDeps) {
    this.channel = ownerChannel(deps.prefix);
    this.ownersKey = `${deps.prefix}:owners`;
  }

  /** Listens for other nodes' announcements (subscribed once the links are up). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.deps.links.listen(this.channel, (text) => this.received(text));
    // Announcements made while this node's subscriber link was down were not heard.
    const subscriber = this.deps.links.subscriber;
    // Not before the first `reconcile()` of start-up: the link's first `ready` is part of it.
    const onReady = (): void => {
      if (this.reconciled) void this.reconcile();
    };
    subscriber.on('ready', onReady);
    this.unhook = () => subscriber.off('ready', onReady);
  }

  close(): void {
    this.closed = true;
    this.unhook?.();
    this.unhook = null;
  }

  /**
   * Drops every offline durable consumer held here that `<prefix>:owners` gives to another
   * node; returns how many were dropped. Never throws (Redis down: nothing is dropped).
   */
  async reconcile(): Promise<number> {
    this.reconciled = true;
    if (this.closed || !this.deps.links.up) return 0;
    const held: { realm: string; consumer: string }[] = [];
    for (const realm of this.deps.realms.values()) {
      for (const [name, entry] of realm.consumers) {
        if (entry.online) continue;
        if (realm.subscriptionsOf(name).some((r) => r.durable)) {
          held.push({ realm: realm.name, consumer: name });
        }
      }
    }
    let dropped = 0;
    try {
      for (let i = 0; i < held.length; i += RECONCILE_BATCH) {
        const batch = held.slice(i, i + RECONCILE_BATCH);
        const owners = await this.deps.links.command.hmget(
          this.ownersKey,
          ...batch.map((h) => ownerField(h.realm, h.consumer)),
        );
        batch.forEach((h, k) => {
          const owner = owners[k];
          if (owner && owner !== this.deps.nodeId) {
            dropped +=
              this.drop({ realm: h.realm, consumer: h.consumer, node_id: owner }) > 0 ? 1 : 0;
          }
        });
      }
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'consumer ownership not reconciled');
    }
    return dropped;
  }

  /**
   * This node took `consumer` of `realm` over: announces it, once per binding of the entry
   * (a consumer subscribing to many durable keys is announced once). Never throws.
   */
  claim(realm: string, consumer: string): void {
    if (this.closed) return;
    const entry = this.deps.realms.get(realm)?.consumers.get(consumer);
    if (!entry) return;
    const socket = entry.socket;
    if (this.announced.has(entry) && this.announced.get(entry) === socket) return;
    this.announced.set(entry, socket);
    const notice: OwnerNotice = { realm, consumer, node_id: this.deps.nodeId };
    const command = this.deps.links.command;
    // One connection: the record is written before the announcement goes out.
    Promise.all([
      command.hset(this.ownersKey, ownerField(realm, consumer), this.deps.nodeId),
      command.publish(this.channel, JSON.stringify(notice)),
    ]).catch((err: unknown) => {
      // Forget it, so that the next bind or durable SUBSCRIBE tries again.
      this.announced.delete(entry);
      this.deps.logger.warn(
        { err: (err as Error).message, realm, consumer },
        'consumer ownership not announced',
      );
    });
  }

  /** Another node's announcement: drop this node's offline registration of that consumer. */
  private received(text: string): void {
    let notice: OwnerNotice;
    try {
      notice = OwnerNotice.parse(JSON.parse(text));
    } catch {
      this.deps.logger.warn({ channel: this.channel }, 'invalid consumer ownership notice ignored');
      return;
    }
    if (notice.node_id === this.deps.nodeId || this.closed) return;
    this.drop(notice);
  }

  /** Drops `notice.consumer`'s durable records here (not its store rows); returns how many. */
  drop(notice: OwnerNotice): number {
    const { realm: realmName, consumer, node_id: owner } = notice;
    const realm = this.deps.realms.get(realmName);
    const entry = realm?.consumers.get(consumer);
    if (!realm || !entry) return 0;
    const durable = realm.subscriptionsOf(consumer).filter((r) => r.durable);
    if (durable.length === 0) return 0;
    if (entry.online) {
      // Same name connected here and there: both keep serving it (docs/cluster.md).
      this.deps.logger.warn(
        { realm: realmName, consumer, owner },
        'consumer taken over by another node is live here too: kept',
      );
      return 0;
    }
    const shared = this.deps.sharedStore();
    for (const record of durable) {
      if (!realm.removeSubscription(record.key, consumer)) continue;
      // A shared store's row is the new owner's already; an own store's row is marked so.
      if (!shared) {
        this.deps.persistence.handedOver(realmName, record, owner);
        this.deps.handover?.(realmName, record.key, consumer, record.consumerId, owner);
      }
    }
    if (realm.subscriptionsOf(consumer).length === 0) realm.deleteConsumer(consumer);
    this.deps.realms.dropIfEmpty(realmName);
    this.deps.logger.info(
      { realm: realmName, consumer, owner, subscriptions: durable.length },
      'durable consumer taken over by another node: registration dropped',
    );
    return durable.length;
  }
}
