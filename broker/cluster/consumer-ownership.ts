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
 * Announcements are fire-and-forget: one lost while Redis is down is not repeated (a node
 * that missed it keeps storing copies until the consumer binds again somewhere).
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
  /** Whether the message store is the cluster's shared Redis store (read when a notice arrives). */
  sharedStore: () => boolean;
  logger: Logger;
}

/** The channel ownership announcements go over. */
export function ownerChannel(prefix: string): string {
  return `${prefix}:owner`;
}

export class ConsumerOwnership {
  private readonly channel: string;
  /** The socket each consumer entry was last announced for: one notice per binding. */
  private readonly announced = new WeakMap<ConsumerEntry, object | null>();
  private started = false;
  private closed = false;

  constructor(private readonly deps: ConsumerOwnershipDeps) {
    this.channel = ownerChannel(deps.prefix);
  }

  /** Listens for other nodes' announcements (subscribed once the links are up). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.deps.links.listen(this.channel, (text) => this.received(text));
  }

  close(): void {
    this.closed = true;
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
    this.deps.links.command.publish(this.channel, JSON.stringify(notice)).catch((err: unknown) => {
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
      if (!shared) this.deps.persistence.handedOver(realmName, record, owner);
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
