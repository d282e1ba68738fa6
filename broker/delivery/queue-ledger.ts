/**
 * The broker's in-memory account of its durable queues: how many copies each queue
 * `(realm, subscription key, consumer_id)` holds, the queue caps, publish order per queue, and
 * one owner per stored copy.
 *
 * Sources: `spec/protocol-core.md` §9.1 (queue cap), `spec/protocol-admin.md` §11 (`limits`),
 * ARCHITECTURE §4 (per durable subscription, copies arrive in publish order) and
 * `docs/delivery-guarantees.md`.
 *
 * - **Exact caps.** Depths are seeded once from the store (`queueDepths`) and then counted
 *   here: an enqueue reserves its place synchronously (`reserve`), so any number of concurrent
 *   enqueues can never pass `limits.max_queued_per_realm` / `max_queued_per_consumer`; a failed
 *   write releases it. Every removal (ACK, dead-letter, legacy replay, expiry purge) reports
 *   back here. Expired copies count until the purge (at most `PURGE_INTERVAL_MS` later)
 *   removes them.
 * - **Backlog before live.** A queue is *live* for one socket only after a replay on that
 *   socket read the queue and found nothing newer stored behind it (`liveSocket`). Until then,
 *   new copies for the subscription are stored (`parked`) behind the backlog.
 * - **One owner.** A live copy whose write is still in the group-commit batch is *claimed* by
 *   the enqueue's continuation; a replay that reads it first takes the claim, so exactly one of
 *   them delivers it.
 * - **Bounded.** Queue keys are client input, so an empty queue whose subscription is gone
 *   (unsubscribed, evicted, its realm removed) is forgotten by `sweepOrphans` (every
 *   `ORPHAN_SWEEP_MS`, and after each idle-eviction pass), with its consumer's and realm's
 *   entries once they hold nothing (issue 20 item 4).
 */
import type { Logger } from '../logging/logger';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { MessageStore, QueueCount } from '../storage/message-store';
import {
  queueId,
  type QueueLimits,
  type QueueOwners,
  type QueueState,
  type RealmQueues,
  type Refusal,
} from './queue-state';

/** How often (ms) expired copies are purged, in batches of `PURGE_BATCH`. */
export const PURGE_INTERVAL_MS = 1_000;
/** Most expired copies deleted by one store call. */
export const PURGE_BATCH = 1_000;
/** Most batches per purge pass; the rest waits for the next pass. */
const PURGE_BATCHES_PER_PASS = 20;
/** How often (ms) empty queues whose subscription is gone are forgotten. */
export const ORPHAN_SWEEP_MS = 30_000;

export class QueueLedger {
  /** Ids of live copies whose write is in flight and whose continuation will deliver them. */
  readonly claims = new Set<string>();
  /** Resolves once the depths are seeded from the store. */
  readonly ready: Promise<void>;
  private isReady = false;
  private readonly realms = new Map<string, RealmQueues>();
  private readonly byRecord = new WeakMap<SubscriptionRecord, QueueState>();
  private lastPurge = Date.now();
  private lastOrphanSweep = Date.now();
  private purging = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: MessageStore,
    private readonly limits: QueueLimits,
    private readonly logger: Logger,
    /** Who owns queues now (`sweepOrphans`); without it queues are only dropped explicitly. */
    private readonly owners?: QueueOwners,
  ) {
    this.ready = store.queueDepths().then(
      (counts) => {
        for (const c of counts) this.seed(c.realm, c.event, c.consumer, c.n);
        this.isReady = true;
      },
      (err: unknown) => {
        this.logger.error({ err }, 'queue depths not read; counting from zero');
        this.isReady = true;
      },
    );
    this.timer = setInterval(() => {
      void this.purge();
      if (Date.now() - this.lastOrphanSweep >= ORPHAN_SWEEP_MS) this.sweepOrphans();
    }, PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Whether `ready` has resolved (the hot path then stays synchronous). */
  get seeded(): boolean {
    return this.isReady;
  }

  /** The queue of `record` in `realm` (cached per record object). */
  queueOf(realm: string, record: SubscriptionRecord): QueueState {
    const cached = this.byRecord.get(record);
    if (cached && !cached.dropped) return cached;
    const q = this.queue(realm, record.key, record.consumerId);
    this.byRecord.set(record, q);
    return q;
  }

  /** The queue `(realm, key, consumer)`, created empty when unknown. */
  queue(realm: string, key: string, consumer: string): QueueState {
    const r = this.realm(realm);
    const id = queueId(key, consumer);
    let q = r.queues.get(id);
    if (!q) {
      let owner = r.consumers.get(consumer);
      if (!owner) {
        owner = { stored: 0, reserved: 0, queues: 0 };
        r.consumers.set(consumer, owner);
      }
      owner.queues++;
      q = {
        realm,
        key,
        consumer,
        stored: 0,
        reserved: 0,
        parked: 0,
        liveSocket: null,
        replayGen: 0,
        owner,
        dropped: false,
        outSeq: 0,
        outNext: 0,
        outHeld: null,
        totals: { enqueued: 0, delivered: 0, acked: 0 },
      };
      r.queues.set(id, q);
    }
    return q;
  }

  /**
   * Reserves a place for one more copy in `q`, synchronously; returns the cap that refuses
   * it, or null. Pair with `committed` or `failed`.
   */
  reserve(q: QueueState): Refusal | null {
    const perRealm = this.limits.perRealm(q.realm);
    const perConsumer = this.limits.perConsumer(q.realm);
    const depth = this.realm(q.realm).depth;
    if (perRealm !== undefined && depth.stored + depth.reserved >= perRealm) return 'realm';
    if (perConsumer !== undefined && q.owner.stored + q.owner.reserved >= perConsumer) {
      return 'consumer';
    }
    depth.reserved++;
    q.owner.reserved++;
    q.reserved++;
    q.parked++;
    this.purgeIfDue();
    return null;
  }

  /** The reserved copy was written. */
  committed(q: QueueState): void {
    const depth = this.realm(q.realm).depth;
    depth.reserved--;
    q.owner.reserved--;
    q.reserved--;
    depth.stored++;
    q.owner.stored++;
    q.stored++;
    q.totals.enqueued++;
  }

  /** The reserved copy was not written: its place is free again. */
  failed(q: QueueState): void {
    const depth = this.realm(q.realm).depth;
    depth.reserved--;
    q.owner.reserved--;
    q.reserved--;
  }

  /** `n` copies entered a queue outside `reserve` (DLQ replay, a move). */
  added(realm: string, key: string, consumer: string, n = 1): void {
    this.seed(realm, key, consumer, n).totals.enqueued += n;
  }

  /** `n` copies of an existing queue counted in (found in the store at start). */
  private seed(realm: string, key: string, consumer: string, n: number): QueueState {
    const q = this.queue(realm, key, consumer);
    this.realm(realm).depth.stored += n;
    q.owner.stored += n;
    q.stored += n;
    return q;
  }

  /** The queue `(realm, key, consumer)` if the ledger holds it (never creates one). */
  find(realm: string, key: string, consumer: string): QueueState | undefined {
    return this.realms.get(realm)?.queues.get(queueId(key, consumer));
  }

  /** A delivery (or redelivery) of a copy of `(realm, key, consumer)` was sent. */
  delivered(realm: string, key: string, consumer: string): void {
    const q = this.find(realm, key, consumer);
    if (q) q.totals.delivered++;
  }

  /** A consumer's ACK of a copy of `(realm, key, consumer)` was committed. */
  acked(realm: string, key: string, consumer: string): void {
    const q = this.find(realm, key, consumer);
    if (q) q.totals.acked++;
  }

  /** `n` copies left a queue (ACK, dead-letter, legacy replay, purge). */
  removed(realm: string, key: string, consumer: string, n = 1): void {
    const r = this.realms.get(realm);
    const q = r?.queues.get(queueId(key, consumer));
    if (!r || !q) return;
    const k = Math.min(n, q.stored);
    r.depth.stored -= k;
    q.owner.stored -= k;
    q.stored -= k;
  }

  /**
   * Deletes copy `msgId` of queue `(realm, key, consumer)` from the store and counts it out.
   * @returns whether the copy existed.
   */
  ack(msgId: string, realm: string, key: string, consumer: string): Promise<boolean> {
    return this.store.ack(msgId).then((existed) => {
      if (existed) this.removed(realm, key, consumer);
      return existed;
    });
  }

  /** Moves copy `msgId` to the DLQ and counts it out; resolves with its id or null. */
  async deadLetter(msgId: string, reason: string, realm: string, key: string, consumer: string) {
    const id = await this.store.deadLetter(msgId, reason);
    if (id !== null) this.removed(realm, key, consumer);
    return id;
  }

  /** Deletes a whole queue (expired durable subscription); resolves with the copies removed. */
  async dropQueue(realm: string, key: string, consumer: string): Promise<number> {
    const n = await this.store.purgeQueue(realm, key, consumer);
    this.removed(realm, key, consumer, n);
    const r = this.realms.get(realm);
    const q = r?.queues.get(queueId(key, consumer));
    if (r && q && q.stored === 0 && q.reserved === 0) this.forget(realm, r, q);
    return n;
  }

  /** Removes the empty queue `q` of `r`, then its consumer's and realm's entries if empty. */
  private forget(realm: string, r: RealmQueues, q: QueueState): void {
    q.dropped = true;
    r.queues.delete(queueId(q.key, q.consumer));
    const owner = q.owner;
    owner.queues--;
    if (owner.queues <= 0 && owner.stored === 0 && owner.reserved === 0) {
      if (r.consumers.get(q.consumer) === owner) r.consumers.delete(q.consumer);
    }
    if (r.queues.size === 0 && r.depth.stored === 0 && r.depth.reserved === 0) {
      if (this.realms.get(realm) === r) this.realms.delete(realm);
    }
  }

  /**
   * Forgets every empty queue (no copy held or being written) whose durable subscription is
   * gone, per `owners`; returns how many. A queue with copies is kept until they are ACKed,
   * dead-lettered or purged. O(queues + subscriptions of the realms with empty queues).
   */
  sweepOrphans(): number {
    this.lastOrphanSweep = Date.now();
    if (!this.owners) return 0;
    let n = 0;
    for (const [name, r] of [...this.realms]) {
      let owned: Set<string> | null = null;
      for (const q of [...r.queues.values()]) {
        if (q.stored !== 0 || q.reserved !== 0) continue;
        if (owned === null) {
          owned = new Set();
          for (const o of this.owners(name) ?? []) owned.add(queueId(o.key, o.consumerId));
        }
        if (owned.has(queueId(q.key, q.consumer))) continue;
        this.forget(name, r, q);
        n++;
      }
    }
    return n;
  }

  /** Queues, consumer entries and realms the ledger holds (the bounds tests). */
  get size(): { realms: number; queues: number; consumers: number } {
    let queues = 0;
    let consumers = 0;
    for (const r of this.realms.values()) {
      queues += r.queues.size;
      consumers += r.consumers.size;
    }
    return { realms: this.realms.size, queues, consumers };
  }

  /**
   * Every stored copy of `realm` was deleted (realm disposal, `spec/protocol-admin.md` §9.4):
   * its counts go to zero and its queues are forgotten, so a realm re-created under the same
   * name starts empty rather than against a stale cap. Writes still in flight keep their
   * reservations (and their queue) until they settle.
   */
  clearRealm(realm: string): void {
    const r = this.realms.get(realm);
    if (!r) return;
    r.depth.stored = 0;
    for (const owner of r.consumers.values()) owner.stored = 0;
    for (const [id, q] of r.queues) {
      q.stored = 0;
      if (q.reserved === 0) {
        q.dropped = true;
        r.queues.delete(id);
        q.owner.queues--;
      }
    }
    for (const [name, owner] of r.consumers) {
      if (owner.queues <= 0 && owner.reserved === 0) r.consumers.delete(name);
    }
    if (r.depth.reserved === 0) this.realms.delete(realm);
  }

  /**
   * `rename_realm`: the store moved every copy of `from` to `to` (which held none), so its
   * counts, reservations and queues move with it. Returns false when `to` already has counts
   * (nothing changes then).
   */
  renameRealm(from: string, to: string): boolean {
    const r = this.realms.get(from);
    if (!r) return true;
    if (this.realms.has(to)) return false;
    this.realms.delete(from);
    for (const q of r.queues.values()) q.realm = to;
    this.realms.set(to, r);
    return true;
  }

  /** Copies held in `realm` (expired ones until purged). */
  depth(realm: string): number {
    return this.realms.get(realm)?.depth.stored ?? 0;
  }

  /** Realm names with their depth. */
  *realmDepths(): Iterable<[string, number]> {
    for (const [name, r] of this.realms) yield [name, r.depth.stored];
  }

  /** Every non-empty queue of `realm` (all realms when omitted). */
  *queues(realm?: string): Iterable<QueueState> {
    for (const [name, r] of this.realms) {
      if (realm !== undefined && name !== realm) continue;
      for (const q of r.queues.values()) if (q.stored > 0) yield q;
    }
  }

  /**
   * One bounded purge pass of expired copies (on the timer, and from `reserve` when one is
   * due): batches of `PURGE_BATCH`, each its own store call, at most
   * `PURGE_BATCHES_PER_PASS` per pass.
   */
  async purge(): Promise<number> {
    if (this.purging) return 0;
    this.purging = true;
    this.lastPurge = Date.now();
    let total = 0;
    try {
      for (let i = 0; i < PURGE_BATCHES_PER_PASS; i++) {
        const counts: QueueCount[] = await this.store.purgeExpired(PURGE_BATCH);
        let n = 0;
        for (const c of counts) {
          this.removed(c.realm, c.event, c.consumer, c.n);
          n += c.n;
        }
        total += n;
        if (n < PURGE_BATCH) break;
        // Let other work run between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (err) {
      if (!this.closed) this.logger.error({ err }, 'expired copies not purged');
    } finally {
      this.purging = false;
    }
    return total;
  }

  /** Stops the purge timer. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private purgeIfDue(): void {
    if (!this.purging && Date.now() - this.lastPurge >= PURGE_INTERVAL_MS) void this.purge();
  }

  private realm(name: string): RealmQueues {
    let r = this.realms.get(name);
    if (!r) {
      r = { depth: { stored: 0, reserved: 0 }, queues: new Map(), consumers: new Map() };
      this.realms.set(name, r);
    }
    return r;
  }
}

/** The `/api/stats` numbers of one realm: copies held, and per non-empty durable queue. */
export function queueStats(ledger: QueueLedger, realm: string) {
  const queues = [...ledger.queues(realm)].map((q) => ({
    key: q.key,
    consumer_id: q.consumer,
    queued: q.stored,
  }));
  return { queued: ledger.depth(realm), queues };
}
