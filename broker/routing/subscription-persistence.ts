/**
 * Keeps durable subscriptions in the message store and rebuilds them at start-up, so that a
 * restarted broker keeps storing copies for consumers that are offline (ARCHITECTURE §4: a
 * durable copy for an offline subscriber is committed before the PRODUCE is confirmed — which
 * needs the broker to still know the subscriber after a `kill -9`).
 *
 * In a cluster each row names its owner node (`record.owner`, message-store.ts
 * `PersistedSubscription`): with a shared Redis store every node loads every node's rows, and
 * a node adopting its peers' offline consumers would store an extra copy of every message for
 * each (issue 21). A clustered node restores only its own rows and rows without an owner, and
 * tells the cluster when it takes a consumer over (`consumer-ownership.ts`).
 */
import { z } from 'zod';
import type { Logger } from '../logging/logger';
import type { MessageStore } from '../storage/message-store';
import { Protocol } from '../../shared/protocol-events';
import type { RealmDirectory } from './realm-directory';
import type { RealmRegistry } from './realm-registry';
import type { SubscriptionRecord } from './registry-types';
import { SubscriptionRecordSchema } from './subscription-options';

/**
 * The persisted form of a record: the `SUBSCRIBE` schema, durable (the file may be old or
 * edited), with the optional owner node id. Unknown keys are stripped (zod's default).
 */
const PersistedRecord = SubscriptionRecordSchema.extend({
  durable: z.literal(true),
  owner: z.string().min(1).optional(),
});

/** Told when this node takes `consumer` of `realm` over (a durable record saved or bound). */
export type OwnershipClaim = (realm: string, consumer: string) => void;

export class SubscriptionPersistence {
  /** This node's cluster id (`joinCluster`); null for a single broker: rows get no owner. */
  private owner: string | null = null;
  private claim: OwnershipClaim | null = null;

  constructor(
    private readonly store: MessageStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Makes this a cluster node's persistence: saves write `owner` = `nodeId`, `restore` skips
   * rows another node owns, and `claim` hears of every consumer taken over. Call before
   * `restore`.
   */
  joinCluster(nodeId: string, claim: OwnershipClaim): void {
    this.owner = nodeId;
    this.claim = claim;
  }

  /**
   * After an upsert: save a durable record, or forget one that is no longer durable. Returns
   * the save of a durable record (rejects when the store refused it: full disk, store down —
   * logged here already), so the subscriber can be told that its subscription will not
   * survive a restart; undefined otherwise.
   */
  upserted(
    realm: string,
    record: SubscriptionRecord,
    previous: SubscriptionRecord | undefined,
  ): Promise<void> | undefined {
    if (record.durable) {
      const saved = this.save(realm, record, this.owner);
      this.claim?.(realm, record.consumer);
      return saved;
    }
    if (previous?.durable) this.removed(realm, previous);
    return undefined;
  }

  /**
   * After `consumer` was bound (`CONSUMER`, or the bind of a `SUBSCRIBE`) on this node: if it
   * has durable records here, this node holds it, and the cluster is told (the records were
   * saved with this node as owner already: restored or subscribed here).
   */
  bound(realm: RealmRegistry, consumer: string): void {
    if (!this.claim) return;
    if (realm.subscriptionsOf(consumer).some((r) => r.durable)) this.claim(realm.name, consumer);
  }

  /**
   * Rewrites a durable row as `owner`'s, without touching this node's registry: for a node's own
   * (not shared) store when another node took the consumer over, so that this node's next
   * `restore` leaves it alone while its stored copies stay (replayed if the consumer returns).
   */
  handedOver(realm: string, record: SubscriptionRecord, owner: string): void {
    if (record.durable) void this.save(realm, record, owner);
  }

  /** After a removal (UNSUBSCRIBE). */
  removed(realm: string, record: SubscriptionRecord): void {
    if (record.durable)
      this.track(this.store.deleteSubscription(realm, record.key, record.consumer));
  }

  /**
   * Rebuilds every persisted durable subscription (of realm `only` when given: a renamed realm)
   * as an offline consumer's; returns the count. A cluster node (`joinCluster`) rebuilds only
   * the rows it owns and those without an owner.
   */
  async restore(realms: RealmDirectory, only?: string): Promise<number> {
    let restored = 0;
    let others = 0;
    for (const sub of await this.store.loadSubscriptions()) {
      if (only !== undefined && sub.realm !== only) continue;
      const parsed = PersistedRecord.safeParse(sub.record);
      if (!parsed.success) {
        this.logger.warn(
          { realm: sub.realm, key: sub.key, consumer: sub.consumer },
          'persisted subscription skipped: invalid',
        );
        continue;
      }
      const { owner, ...fields } = parsed.data;
      // Another node's consumer (shared store, or one handed over): it stores the copies.
      if (this.owner !== null && owner !== undefined && owner !== this.owner) {
        others++;
        continue;
      }
      const record: SubscriptionRecord = { ...fields, announced: false };
      const realm = realms.get(sub.realm, true);
      const consumer = realm.restoreConsumer(record.consumer, record.consumerId);
      consumer.subscribeTos.add(record.producer);
      if (record.producer !== Protocol.ALL_PUBLISHERS) realm.producer(record.producer, true);
      realm.upsertSubscription(record);
      restored++;
    }
    if (others > 0)
      this.logger.info(
        { subscriptions: others },
        "other nodes' durable subscriptions left to them",
      );
    return restored;
  }

  /** Saves a durable row; the returned promise rejects as the write did (already logged). */
  private save(realm: string, record: SubscriptionRecord, owner: string | null): Promise<void> {
    const { announced: _announced, ...rest } = record;
    const write = this.store.saveSubscription({
      realm,
      key: record.key,
      consumer: record.consumer,
      record: owner === null ? rest : { ...rest, owner },
    });
    this.track(write);
    return write;
  }

  private track(write: Promise<void>): void {
    write.catch((err: unknown) => this.logger.error({ err }, 'durable subscription not persisted'));
  }
}
