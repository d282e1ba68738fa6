/**
 * Keeps durable subscriptions in the message store and rebuilds them at start-up, so that a
 * restarted broker keeps storing copies for consumers that are offline (ARCHITECTURE §4: a
 * durable copy for an offline subscriber is committed before the PRODUCE is confirmed — which
 * needs the broker to still know the subscriber after a `kill -9`).
 */
import { z } from 'zod';
import type { Logger } from '../logging/logger';
import type { MessageStore } from '../storage/message-store';
import { Protocol } from '../../shared/protocol-events';
import type { RealmDirectory } from './realm-directory';
import type { SubscriptionRecord } from './registry-types';
import { SubscriptionRecordSchema } from './subscription-options';

/** The persisted form of a record: the `SUBSCRIBE` schema, durable (the file may be old or edited). */
const PersistedRecord = SubscriptionRecordSchema.extend({ durable: z.literal(true) });

export class SubscriptionPersistence {
  constructor(
    private readonly store: MessageStore,
    private readonly logger: Logger,
  ) {}

  /** After an upsert: save a durable record, or forget one that is no longer durable. */
  upserted(realm: string, record: SubscriptionRecord, previous: SubscriptionRecord | undefined) {
    if (record.durable) {
      const { announced: _announced, ...rest } = record;
      this.track(
        this.store.saveSubscription({
          realm,
          key: record.key,
          consumer: record.consumer,
          record: rest,
        }),
      );
    } else if (previous?.durable) {
      this.removed(realm, previous);
    }
  }

  /** After a removal (UNSUBSCRIBE). */
  removed(realm: string, record: SubscriptionRecord): void {
    if (record.durable)
      this.track(this.store.deleteSubscription(realm, record.key, record.consumer));
  }

  /**
   * Rebuilds every persisted durable subscription (of realm `only` when given: a renamed realm)
   * as an offline consumer's; returns the count.
   */
  async restore(realms: RealmDirectory, only?: string): Promise<number> {
    let restored = 0;
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
      const record: SubscriptionRecord = { ...parsed.data, announced: false };
      const realm = realms.get(sub.realm, true);
      const consumer = realm.restoreConsumer(record.consumer, record.consumerId);
      consumer.subscribeTos.add(record.producer);
      if (record.producer !== Protocol.ALL_PUBLISHERS) realm.producer(record.producer, true);
      realm.upsertSubscription(record);
      restored++;
    }
    return restored;
  }

  private track(write: Promise<void>): void {
    write.catch((err: unknown) => this.logger.error({ err }, 'durable subscription not persisted'));
  }
}
