/**
 * In-memory message store (`spec/protocol-core.md` §16.3 "Memory"): survives client
 * disconnects, not a restart. Copies are indexed by `(realm, event, consumer)` in insertion
 * order; expired copies are purged lazily on every operation that reads them.
 */
import {
  DEFAULT_STORE_TTL_SECONDS,
  expiresAt,
  isExpired,
  newMessageId,
  replayedEnvelope,
  type DlqEntry,
  type EnqueueInput,
  type MessageStore,
  type PersistedSubscription,
  type StoredEntry,
} from './message-store';

/** One unambiguous string per `(realm, event, consumer)`: length-prefixed parts. */
const queueKey = (realm: string, event: string, consumer: string): string =>
  `${realm.length}:${realm}${event.length}:${event}${consumer}`;

export class MemoryStore implements MessageStore {
  readonly backend = 'memory';
  private readonly byId = new Map<string, StoredEntry>();
  /** Queue key → ids in insertion order. */
  private readonly queues = new Map<string, Set<string>>();
  private readonly dlq = new Map<string, DlqEntry>();
  private readonly subscriptions = new Map<string, PersistedSubscription>();

  constructor(private readonly defaultTtl = DEFAULT_STORE_TTL_SECONDS) {}

  async enqueue(realm: string, event: string, input: EnqueueInput): Promise<string> {
    const now = Date.now();
    const entry: StoredEntry = {
      id: input.id ?? newMessageId(),
      realm,
      event,
      consumer: input.consumer,
      message: input.payload,
      producer: input.producer,
      created_at: new Date(now).toISOString(),
      expires_at: expiresAt(input.ttl, this.defaultTtl, now),
    };
    this.remove(entry.id);
    this.byId.set(entry.id, entry);
    const key = queueKey(realm, event, input.consumer);
    let ids = this.queues.get(key);
    if (!ids) {
      ids = new Set();
      this.queues.set(key, ids);
    }
    ids.add(entry.id);
    return entry.id;
  }

  async dequeue(realm: string, event: string, consumer: string): Promise<StoredEntry[]> {
    const ids = this.queues.get(queueKey(realm, event, consumer));
    if (!ids) return [];
    const now = Date.now();
    const out: StoredEntry[] = [];
    for (const id of [...ids]) {
      const entry = this.byId.get(id)!;
      if (isExpired(entry.expires_at, now)) this.remove(id);
      else out.push(entry);
    }
    return out;
  }

  async get(msgId: string): Promise<StoredEntry | null> {
    const entry = this.byId.get(msgId);
    if (!entry) return null;
    if (isExpired(entry.expires_at, Date.now())) {
      this.remove(msgId);
      return null;
    }
    return entry;
  }

  async ack(msgId: string): Promise<boolean> {
    return this.remove(msgId);
  }

  async deadLetter(msgId: string, reason: string): Promise<string | null> {
    const entry = await this.get(msgId);
    if (!entry) return null;
    this.remove(msgId);
    this.dlq.set(msgId, { ...entry, reason, dead_lettered_at: new Date().toISOString() });
    return msgId;
  }

  async listDlq(realm: string | null): Promise<DlqEntry[]> {
    const all = [...this.dlq.values()];
    return realm === null ? all : all.filter((e) => e.realm === realm);
  }

  async discardDlq(msgId: string, realm?: string): Promise<boolean> {
    const entry = this.dlq.get(msgId);
    if (!entry || (realm !== undefined && entry.realm !== realm)) return false;
    return this.dlq.delete(msgId);
  }

  async replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null> {
    const entry = this.dlq.get(msgId);
    if (!entry || (realm !== undefined && entry.realm !== realm)) return null;
    this.dlq.delete(msgId);
    await this.enqueue(entry.realm, entry.event, {
      id: entry.id,
      consumer: entry.consumer,
      payload: replayedEnvelope(entry.message, entry.dead_lettered_at),
      producer: entry.producer,
    });
    return this.byId.get(entry.id) ?? null;
  }

  async countQueued(realm: string): Promise<number> {
    const now = Date.now();
    let n = 0;
    for (const entry of [...this.byId.values()]) {
      if (entry.realm !== realm) continue;
      if (isExpired(entry.expires_at, now)) this.remove(entry.id);
      else n++;
    }
    return n;
  }

  async purgeRealm(realm: string): Promise<number> {
    let n = 0;
    for (const entry of [...this.byId.values()]) {
      if (entry.realm === realm && this.remove(entry.id)) n++;
    }
    for (const entry of [...this.dlq.values()]) {
      if (entry.realm === realm && this.dlq.delete(entry.id)) n++;
    }
    for (const [k, sub] of [...this.subscriptions])
      if (sub.realm === realm) this.subscriptions.delete(k);
    return n;
  }

  async saveSubscription(sub: PersistedSubscription): Promise<void> {
    this.subscriptions.set(queueKey(sub.realm, sub.key, sub.consumer), structuredClone(sub));
  }

  async deleteSubscription(realm: string, key: string, consumer: string): Promise<void> {
    this.subscriptions.delete(queueKey(realm, key, consumer));
  }

  async loadSubscriptions(): Promise<PersistedSubscription[]> {
    return [...this.subscriptions.values()].map((s) => structuredClone(s));
  }

  async close(): Promise<void> {}

  private remove(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.byId.delete(id);
    const key = queueKey(entry.realm, entry.event, entry.consumer);
    const ids = this.queues.get(key);
    ids?.delete(id);
    if (ids?.size === 0) this.queues.delete(key);
    return true;
  }
}
