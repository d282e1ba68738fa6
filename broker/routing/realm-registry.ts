/**
 * One realm's registries: producers, consumers, subscriptions by key, the topic index and
 * the consumer-group counters.
 *
 * Source: `spec/protocol-core.md` §1.4 (everything is per realm), §5.1 (registry model),
 * §6.1–§6.3 (subscriptions and topic index, with Note 6.2-B: the index entry is rebuilt from
 * the latest subscription state), §12 (group counters) and Note 15-C (lookups never create
 * entries, except the placeholder producer created by `SUBSCRIBE`).
 */
import type { BrokerSocket } from '../transport/socket-types';
import type { ConsumerEntry, ProducerEntry, SubscriptionRecord } from './registry-types';
import { TopicTrie } from './topic-trie';

export class RealmRegistry {
  readonly producers = new Map<string, ProducerEntry>();
  readonly consumers = new Map<string, ConsumerEntry>();
  /** `key → (consumer name → record)`, both in registration order (§12 collection order). */
  readonly subscriptions = new Map<string, Map<string, SubscriptionRecord>>();
  readonly topics = new TopicTrie();
  /** Per key: the topic pattern and how many topic-mode records share it. */
  private readonly topicKeys = new Map<string, { pattern: string; count: number }>();
  private readonly groupCounters = new Map<string, number>();

  constructor(readonly name: string) {}

  /** Returns the producer, creating an offline placeholder when `create` is set (§5.1). */
  producer(name: string, create = false): ProducerEntry | undefined {
    let entry = this.producers.get(name);
    if (!entry && create) {
      entry = {
        name,
        id: null,
        socket: null,
        online: false,
        offlineAt: null,
        placeholder: true,
        subscribers: new Set(),
        defaultTtl: undefined,
      };
      this.producers.set(name, entry);
    }
    return entry;
  }

  /** Binds `name` to `socket` as a producer and returns the entry (§5.3 step 3). */
  bindProducer(name: string, socket: BrokerSocket, id: string): ProducerEntry {
    const entry = this.producer(name, true)!;
    entry.id = id;
    entry.socket = socket;
    entry.online = true;
    entry.offlineAt = null;
    entry.placeholder = false;
    return entry;
  }

  /** Binds `name` to `socket` as a consumer, keeping its subscriptions (§5.1). */
  bindConsumer(name: string, socket: BrokerSocket, id: string): ConsumerEntry {
    let entry = this.consumers.get(name);
    if (!entry) {
      entry = { name, id, socket, online: true, offlineAt: null, subscribeTos: new Set() };
      this.consumers.set(name, entry);
    }
    entry.id = id;
    entry.socket = socket;
    entry.online = true;
    entry.offlineAt = null;
    return entry;
  }

  /**
   * Inserts or overwrites the record for `(record.key, record.consumer)` (§6.1); returns the
   * record it replaced, if any.
   */
  upsertSubscription(record: SubscriptionRecord): SubscriptionRecord | undefined {
    let byConsumer = this.subscriptions.get(record.key);
    if (!byConsumer) {
      byConsumer = new Map();
      this.subscriptions.set(record.key, byConsumer);
    }
    const previous = byConsumer.get(record.consumer);
    if (previous) {
      record.announced = previous.announced;
      this.untrackTopic(previous);
    }
    byConsumer.set(record.consumer, record);
    this.trackTopic(record);
    return previous;
  }

  /** Removes one consumer's subscription under `key`; returns the removed record. */
  removeSubscription(key: string, consumer: string): SubscriptionRecord | undefined {
    const byConsumer = this.subscriptions.get(key);
    const record = byConsumer?.get(consumer);
    if (!byConsumer || !record) return undefined;
    byConsumer.delete(consumer);
    this.untrackTopic(record);
    if (byConsumer.size === 0) this.subscriptions.delete(key);
    return record;
  }

  /** An offline consumer entry rebuilt from persisted durable subscriptions. */
  restoreConsumer(name: string, id: string): ConsumerEntry {
    let entry = this.consumers.get(name);
    if (!entry) {
      entry = {
        name,
        id,
        socket: null,
        online: false,
        offlineAt: Date.now(),
        subscribeTos: new Set(),
      };
      this.consumers.set(name, entry);
    }
    return entry;
  }

  /** Every record of a consumer, across keys. */
  subscriptionsOf(consumer: string): SubscriptionRecord[] {
    const out: SubscriptionRecord[] = [];
    for (const byConsumer of this.subscriptions.values()) {
      const record = byConsumer.get(consumer);
      if (record) out.push(record);
    }
    return out;
  }

  /** Next round-robin count for group `group`: 1, 2, 3… shared by all events (§12). */
  nextGroupCount(group: string): number {
    const next = (this.groupCounters.get(group) ?? 0) + 1;
    this.groupCounters.set(group, next);
    return next;
  }

  /** Whether the realm holds nothing worth keeping (used to drop empty realms). */
  get isEmpty(): boolean {
    return this.producers.size === 0 && this.consumers.size === 0 && this.subscriptions.size === 0;
  }

  private trackTopic(record: SubscriptionRecord): void {
    if (record.mode !== 'topic' || record.pattern === null) return;
    const tracked = this.topicKeys.get(record.key);
    if (tracked) {
      tracked.count++;
      return;
    }
    this.topicKeys.set(record.key, { pattern: record.pattern, count: 1 });
    this.topics.add(record.pattern, record.key);
  }

  private untrackTopic(record: SubscriptionRecord): void {
    if (record.mode !== 'topic') return;
    const tracked = this.topicKeys.get(record.key);
    if (!tracked) return;
    if (--tracked.count > 0) return;
    this.topicKeys.delete(record.key);
    this.topics.remove(tracked.pattern, record.key);
  }
}
