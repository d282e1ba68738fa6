/**
 * One realm's registries: producers, consumers, subscriptions by key, the topic index and
 * the consumer-group counters.
 *
 * Source: `spec/protocol-core.md` §1.4 (everything is per realm), §5.1 (registry model),
 * §6.1–§6.3 (subscriptions and topic index, with Note 6.2-B: the index entry is rebuilt from
 * the latest subscription state), §12 (group counters) and Note 15-C (lookups never create
 * entries, except the placeholder producer created by `SUBSCRIBE`).
 *
 * Indexes kept beside the maps (issue 8 items 8 and 10), so that the idle sweep and removals
 * cost what they remove, not the size of the realm: keys per consumer, keys per producer name,
 * the producers whose `subscribers` hold a consumer, and a count of records per group. A group
 * counter and a placeholder producer go away with the last subscription that refers to them.
 *
 * Interest hooks (issue 21, `broker/cluster/local-interest.ts`): the optional `InterestListener`
 * is told when a key gains its first record or loses its last, a topic key appears or goes, a
 * group gains its first record or loses its last, and the realm gets its first online name or
 * loses its last. Only these counter transitions call it: no work per message.
 */
import type { BrokerSocket } from '../transport/socket-types';
import type { ConsumerEntry, ProducerEntry, SubscriptionRecord } from './registry-types';
import { TopicTrie } from './topic-trie';

/**
 * Told when a producer or consumer name comes online on a socket (`new`) and when it goes
 * offline (`disconnect`): the `$SYS/<realm>/…/clients` presence topics (docs/mqtt.md).
 */
export type PresenceListener = (realm: string, name: string, kind: 'new' | 'disconnect') => void;

/**
 * What can change in a realm's interest: `key` (value: a subscription key), `topic` (value: a
 * topic-mode key; read its pattern with `topicPattern`), `group` (value: a group name) and
 * `live` (value: `''`; read `liveCount`). Told the transition only: the listener reads the
 * state it needs from the registry.
 */
export type InterestKind = 'key' | 'topic' | 'group' | 'live';
export type InterestListener = (realm: RealmRegistry, kind: InterestKind, value: string) => void;

export class RealmRegistry {
  readonly producers = new Map<string, ProducerEntry>();
  readonly consumers = new Map<string, ConsumerEntry>();
  /** `key → (consumer name → record)`, both in registration order (§12 collection order). */
  readonly subscriptions = new Map<string, Map<string, SubscriptionRecord>>();
  readonly topics = new TopicTrie();
  /** Per key: the topic pattern and how many topic-mode records share it. */
  private readonly topicKeys = new Map<string, { pattern: string; count: number }>();
  private readonly groupCounters = new Map<string, number>();
  /** `group → records naming it`; the counter is dropped with the last one. */
  private readonly groupRefs = new Map<string, number>();
  /** `consumer name → keys it holds a record under`. */
  private readonly keysOfConsumer = new Map<string, Set<string>>();
  /** `producer name (as subscribed) → key → records naming it under that key`. */
  private readonly keysOfProducer = new Map<string, Map<string, number>>();
  /** `consumer name → producers whose subscribers hold it` (reverse of `subscribers`). */
  private readonly linkedProducers = new Map<string, Set<string>>();
  /** Producer and consumer entries with `online` set (each entry counted once). */
  private live = 0;

  constructor(
    readonly name: string,
    private readonly presence?: PresenceListener,
    private readonly interest?: InterestListener,
  ) {}

  /** How many producer and consumer entries are online (a name bound as both counts twice). */
  get liveCount(): number {
    return this.live;
  }

  /** The pattern of topic-mode key `key`, or null when no topic-mode record has it. */
  topicPattern(key: string): string | null {
    return this.topicKeys.get(key)?.pattern ?? null;
  }

  /** Topic-mode keys and their patterns. */
  topicEntries(): IterableIterator<[string, { pattern: string; count: number }]> {
    return this.topicKeys.entries();
  }

  /** Whether any record names `group`. */
  hasGroup(group: string): boolean {
    return this.groupRefs.has(group);
  }

  /** Groups that some record names. */
  groupNames(): IterableIterator<string> {
    return this.groupRefs.keys();
  }

  /**
   * Takes an entry offline (its socket went away, §15): clears `online` and keeps `liveCount`.
   * The caller clears `socket` and sets `offlineAt`.
   */
  setOffline(entry: ProducerEntry | ConsumerEntry): void {
    if (!entry.online) return;
    entry.online = false;
    this.countLive(-1);
  }

  private countLive(delta: 1 | -1): void {
    this.live = Math.max(0, this.live + delta);
    if ((delta === 1 && this.live === 1) || (delta === -1 && this.live === 0)) {
      this.interest?.(this, 'live', '');
    }
  }

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
    const joined = !entry.online || entry.socket !== socket;
    const wasOnline = entry.online;
    entry.id = id;
    entry.idFromSocket = id === socket.id;
    entry.socket = socket;
    entry.online = true;
    if (!wasOnline) this.countLive(1);
    entry.offlineAt = null;
    entry.placeholder = false;
    if (joined) this.presence?.(this.name, name, 'new');
    return entry;
  }

  /** Binds `name` to `socket` as a consumer, keeping its subscriptions (§5.1). */
  bindConsumer(name: string, socket: BrokerSocket, id: string): ConsumerEntry {
    let entry = this.consumers.get(name);
    let joined = true;
    let wasOnline = false;
    if (!entry) {
      entry = { name, id, socket, online: true, offlineAt: null, subscribeTos: new Set() };
      this.consumers.set(name, entry);
    } else {
      wasOnline = entry.online;
      if (entry.online && entry.socket === socket) joined = false;
    }
    if (!wasOnline) this.countLive(1);
    entry.id = id;
    entry.socket = socket;
    entry.online = true;
    entry.offlineAt = null;
    if (joined) this.presence?.(this.name, name, 'new');
    return entry;
  }

  /** A name bound by `bindProducer`/`bindConsumer` went offline with its socket (§15). */
  released(name: string): void {
    this.presence?.(this.name, name, 'disconnect');
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
      this.interest?.(this, 'key', record.key);
    }
    const previous = byConsumer.get(record.consumer);
    if (previous) {
      record.announced = previous.announced;
      this.untrackTopic(previous);
      this.untrackRefs(previous);
    }
    byConsumer.set(record.consumer, record);
    this.trackTopic(record);
    this.trackRefs(record);
    if (previous) this.dropPlaceholderIfUnused(previous.producer);
    return previous;
  }

  /** Removes one consumer's subscription under `key`; returns the removed record. */
  removeSubscription(key: string, consumer: string): SubscriptionRecord | undefined {
    const byConsumer = this.subscriptions.get(key);
    const record = byConsumer?.get(consumer);
    if (!byConsumer || !record) return undefined;
    byConsumer.delete(consumer);
    this.untrackTopic(record);
    this.untrackRefs(record);
    if (byConsumer.size === 0) {
      this.subscriptions.delete(key);
      this.interest?.(this, 'key', key);
    }
    this.dropPlaceholderIfUnused(record.producer);
    return record;
  }

  /** Records `consumer` in `producer.subscribers` (§5.3, §5.4), keeping the reverse index. */
  linkSubscriber(producer: ProducerEntry, consumer: string): void {
    producer.subscribers.add(consumer);
    let linked = this.linkedProducers.get(consumer);
    if (!linked) {
      linked = new Set();
      this.linkedProducers.set(consumer, linked);
    }
    linked.add(producer.name);
  }

  /** How many producers' `subscribers` hold `consumer`. */
  linkCount(consumer: string): number {
    return this.linkedProducers.get(consumer)?.size ?? 0;
  }

  /** Removes a consumer entry and its links from producers' `subscribers` (not its records). */
  deleteConsumer(name: string): void {
    for (const producerName of this.linkedProducers.get(name) ?? []) {
      this.producers.get(producerName)?.subscribers.delete(name);
    }
    this.linkedProducers.delete(name);
    const entry = this.consumers.get(name);
    if (entry?.online) this.countLive(-1);
    this.consumers.delete(name);
  }

  /** Removes a producer entry, and itself from its subscribers' reverse links. */
  deleteProducer(name: string): void {
    const producer = this.producers.get(name);
    if (!producer) return;
    for (const consumer of producer.subscribers) {
      const linked = this.linkedProducers.get(consumer);
      linked?.delete(name);
      if (linked?.size === 0) this.linkedProducers.delete(consumer);
    }
    if (producer.online) this.countLive(-1);
    this.producers.delete(name);
  }

  /** Records that name `producer` (exactly as subscribed), across keys. */
  subscriptionsNaming(producer: string): SubscriptionRecord[] {
    const out: SubscriptionRecord[] = [];
    for (const key of this.keysOfProducer.get(producer)?.keys() ?? []) {
      for (const record of this.subscriptions.get(key)?.values() ?? []) {
        if (record.producer === producer) out.push(record);
      }
    }
    return out;
  }

  /** Sizes of the internal indexes, for leak tests. */
  indexSizes(): Record<string, number> {
    return {
      groupCounters: this.groupCounters.size,
      groupRefs: this.groupRefs.size,
      keysOfConsumer: this.keysOfConsumer.size,
      keysOfProducer: this.keysOfProducer.size,
      linkedProducers: this.linkedProducers.size,
      topicKeys: this.topicKeys.size,
    };
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

  /** Every record of a consumer, across keys (indexed: costs the consumer's records only). */
  subscriptionsOf(consumer: string): SubscriptionRecord[] {
    const out: SubscriptionRecord[] = [];
    for (const key of this.keysOfConsumer.get(consumer) ?? []) {
      const record = this.subscriptions.get(key)?.get(consumer);
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

  private trackRefs(record: SubscriptionRecord): void {
    let keys = this.keysOfConsumer.get(record.consumer);
    if (!keys) {
      keys = new Set();
      this.keysOfConsumer.set(record.consumer, keys);
    }
    keys.add(record.key);
    let byKey = this.keysOfProducer.get(record.producer);
    if (!byKey) {
      byKey = new Map();
      this.keysOfProducer.set(record.producer, byKey);
    }
    byKey.set(record.key, (byKey.get(record.key) ?? 0) + 1);
    if (record.group !== null) {
      const refs = (this.groupRefs.get(record.group) ?? 0) + 1;
      this.groupRefs.set(record.group, refs);
      if (refs === 1) this.interest?.(this, 'group', record.group);
    }
  }

  private untrackRefs(record: SubscriptionRecord): void {
    const keys = this.keysOfConsumer.get(record.consumer);
    keys?.delete(record.key);
    if (keys?.size === 0) this.keysOfConsumer.delete(record.consumer);
    const byKey = this.keysOfProducer.get(record.producer);
    const n = byKey?.get(record.key);
    if (byKey && n !== undefined) {
      if (n > 1) byKey.set(record.key, n - 1);
      else byKey.delete(record.key);
      if (byKey.size === 0) this.keysOfProducer.delete(record.producer);
    }
    if (record.group !== null) {
      const refs = (this.groupRefs.get(record.group) ?? 1) - 1;
      if (refs > 0) this.groupRefs.set(record.group, refs);
      else {
        this.groupRefs.delete(record.group);
        this.groupCounters.delete(record.group);
        this.interest?.(this, 'group', record.group);
      }
    }
  }

  /** A placeholder producer (never connected) lives only as long as a record names it. */
  private dropPlaceholderIfUnused(name: string): void {
    const producer = this.producers.get(name);
    if (producer?.placeholder && producer.socket === null && !this.keysOfProducer.has(name)) {
      this.deleteProducer(name);
    }
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
    this.interest?.(this, 'topic', record.key);
  }

  private untrackTopic(record: SubscriptionRecord): void {
    if (record.mode !== 'topic') return;
    const tracked = this.topicKeys.get(record.key);
    if (!tracked) return;
    if (--tracked.count > 0) return;
    this.topicKeys.delete(record.key);
    this.topics.remove(tracked.pattern, record.key);
    this.interest?.(this, 'topic', record.key);
  }
}
