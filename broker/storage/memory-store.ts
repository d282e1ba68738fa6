/**
 * In-memory message store (`spec/protocol-core.md` §16.3 "Memory"): survives client
 * disconnects, not a restart. Copies are indexed by `(realm, event, consumer)` in insertion
 * order. Reads skip expired copies; `purgeExpired` deletes them in bounded steps (a resumable
 * scan), so no read ever pays for a large purge.
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
  type QueueCount,
  type RealmRenameCounts,
  type StoredEntry,
} from './message-store';

/** Entries looked at per expired copy removed, at most, in one `purgeExpired` call. */
const SCAN_FACTOR = 8;

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
  /** Where the last bounded purge stopped (insertion order); null = start over. */
  private sweep: Iterator<StoredEntry> | null = null;

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
      attempts: input.attempts ?? 0,
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
    for (const id of ids) {
      const entry = this.byId.get(id)!;
      if (!isExpired(entry.expires_at, now)) out.push({ ...entry });
    }
    return out;
  }

  async peekQueue(
    realm: string,
    event: string,
    consumer: string,
    offset: number,
    limit: number,
  ): Promise<StoredEntry[]> {
    const ids = this.queues.get(queueKey(realm, event, consumer));
    if (!ids || limit <= 0) return [];
    const now = Date.now();
    const out: StoredEntry[] = [];
    let skipped = 0;
    for (const id of ids) {
      const entry = this.byId.get(id)!;
      if (isExpired(entry.expires_at, now)) continue;
      if (skipped++ < offset) continue;
      out.push({ ...entry });
      if (out.length >= limit) break;
    }
    return out;
  }

  async get(msgId: string): Promise<StoredEntry | null> {
    const entry = this.byId.get(msgId);
    if (!entry || isExpired(entry.expires_at, Date.now())) return null;
    return { ...entry };
  }

  async setAttempts(msgId: string, attempts: number): Promise<boolean> {
    const entry = this.byId.get(msgId);
    if (!entry) return false;
    entry.attempts = attempts;
    return true;
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
    const id = await this.enqueue(entry.realm, entry.event, {
      id: newMessageId(),
      consumer: entry.consumer,
      payload: replayedEnvelope(entry.message, entry.dead_lettered_at),
      producer: entry.producer,
    });
    const requeued = this.byId.get(id);
    return requeued ? { ...requeued } : null;
  }

  async countQueued(realm: string): Promise<number> {
    const now = Date.now();
    let n = 0;
    for (const entry of this.byId.values()) {
      if (entry.realm === realm && !isExpired(entry.expires_at, now)) n++;
    }
    return n;
  }

  async dlqDepths(): Promise<Array<{ realm: string; n: number }>> {
    const out = new Map<string, number>();
    for (const e of this.dlq.values()) out.set(e.realm, (out.get(e.realm) ?? 0) + 1);
    return [...out].map(([realm, n]) => ({ realm, n }));
  }

  async queueDepths(): Promise<QueueCount[]> {
    const out = new Map<string, QueueCount>();
    for (const entry of this.byId.values()) count(out, entry);
    return [...out.values()];
  }

  async purgeExpired(limit: number): Promise<QueueCount[]> {
    const now = Date.now();
    const out = new Map<string, QueueCount>();
    let removed = 0;
    let scanned = 0;
    this.sweep ??= this.byId.values();
    while (removed < limit && scanned < limit * SCAN_FACTOR) {
      const next = this.sweep.next();
      if (next.done) {
        this.sweep = null;
        break;
      }
      scanned++;
      const entry = next.value;
      if (isExpired(entry.expires_at, now) && this.remove(entry.id)) {
        count(out, entry);
        removed++;
      }
    }
    return [...out.values()];
  }

  async purgeQueue(realm: string, event: string, consumer: string): Promise<number> {
    const ids = this.queues.get(queueKey(realm, event, consumer));
    let n = 0;
    for (const id of [...(ids ?? [])]) if (this.remove(id)) n++;
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

  async renameRealm(from: string, to: string): Promise<RealmRenameCounts | null> {
    if (from === to || this.holds(to)) return null;
    const moved: RealmRenameCounts = {
      queued: 0,
      dlq: 0,
      subscriptions: 0,
      retained: 0,
      mqtt_sessions: 0,
    };
    // Entries are this store's own objects (reads hand out copies): renamed in place, so
    // insertion order and attempts stay as they were.
    for (const entry of this.byId.values()) {
      if (entry.realm !== from) continue;
      const oldKey = queueKey(from, entry.event, entry.consumer);
      const newKey = queueKey(to, entry.event, entry.consumer);
      const ids = this.queues.get(oldKey);
      if (ids) {
        this.queues.delete(oldKey);
        this.queues.set(newKey, ids);
      }
      entry.realm = to;
      moved.queued++;
    }
    for (const entry of this.dlq.values()) {
      if (entry.realm !== from) continue;
      entry.realm = to;
      moved.dlq++;
    }
    for (const [k, sub] of [...this.subscriptions]) {
      if (sub.realm !== from) continue;
      this.subscriptions.delete(k);
      this.subscriptions.set(queueKey(to, sub.key, sub.consumer), { ...sub, realm: to });
      moved.subscriptions++;
    }
    return moved;
  }

  /** Whether anything is stored under `realm`. */
  private holds(realm: string): boolean {
    for (const e of this.byId.values()) if (e.realm === realm) return true;
    for (const e of this.dlq.values()) if (e.realm === realm) return true;
    for (const s of this.subscriptions.values()) if (s.realm === realm) return true;
    return false;
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

/** Adds one copy of `entry`'s queue to `out`. */
function count(out: Map<string, QueueCount>, entry: StoredEntry): void {
  const key = queueKey(entry.realm, entry.event, entry.consumer);
  const c = out.get(key);
  if (c) c.n++;
  else out.set(key, { realm: entry.realm, event: entry.event, consumer: entry.consumer, n: 1 });
}
