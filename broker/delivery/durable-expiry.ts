/**
 * Opt-in expiry of abandoned durable subscriptions (`limits.expire_durable_after_ms`, default
 * off; docs/configuration.md). A durable subscription whose consumer has been offline longer
 * than the limit is removed — from the registry and from the persisted subscriptions — and its
 * stored copies are deleted, so a consumer that never returns stops holding a growing queue.
 *
 * "Offline since" is the consumer entry's `offlineAt`: for subscriptions restored at start-up
 * the clock starts at the restart. Copies already in the DLQ are kept.
 * Each pass looks at each realm's records once (no per-message work).
 */
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { SubscriptionPersistence } from '../routing/subscription-persistence';
import type { QueueLedger } from './queue-ledger';

/** Shortest and longest time (ms) between two expiry passes. */
const MIN_INTERVAL_MS = 1_000;
const MAX_INTERVAL_MS = 60_000;

export class DurableExpiry {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly realms: RealmDirectory,
    private readonly ledger: QueueLedger,
    private readonly persistence: SubscriptionPersistence,
    private readonly logger: Logger,
    /** ms; undefined = off. */
    private readonly afterMs: number | undefined,
  ) {}

  /** Starts the periodic pass (every tenth of the limit, between 1 s and 60 s); no-op when off. */
  start(): void {
    if (this.afterMs === undefined || this.timer) return;
    const every = Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, this.afterMs / 10));
    this.timer = setInterval(() => {
      void this.sweep();
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * One pass at `now` (epoch ms): removes every expired durable subscription; resolves with
   * how many were removed.
   */
  async sweep(now = Date.now()): Promise<number> {
    if (this.afterMs === undefined) return 0;
    const expired: Array<{ realm: string; record: SubscriptionRecord }> = [];
    for (const realm of this.realms.values()) {
      for (const byConsumer of realm.subscriptions.values()) {
        for (const record of byConsumer.values()) {
          if (!record.durable) continue;
          const consumer = realm.consumers.get(record.consumer);
          if (consumer?.online || consumer?.offlineAt == null) continue;
          if (now - consumer.offlineAt > this.afterMs) expired.push({ realm: realm.name, record });
        }
      }
    }
    for (const { realm, record } of expired) {
      const registry = this.realms.get(realm);
      if (registry?.consumers.get(record.consumer)?.online) continue; // came back meanwhile
      if (!registry?.removeSubscription(record.key, record.consumer)) continue;
      this.persistence.removed(realm, record);
      try {
        const dropped = await this.ledger.dropQueue(realm, record.key, record.consumerId);
        this.logger.info(
          { realm, key: record.key, consumer: record.consumer, dropped },
          'durable subscription expired: consumer away too long',
        );
      } catch (err) {
        this.logger.error({ err, realm, key: record.key }, 'expired durable queue not deleted');
      }
    }
    return expired.length;
  }
}
