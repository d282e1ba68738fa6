/**
 * The message store: durable copies for offline or ACK-tracked consumers, and the
 * dead-letter queue.
 *
 * Source: `spec/protocol-core.md` §16.2 (methods and semantics), §9.3 (TTL → `expires_at`)
 * and §10.5 (DLQ entry shape). Every backend (memory, SQLite, Redis) passes the one
 * conformance suite in `test/broker/storage/`. Ordering: entries come back in insertion
 * order; ties within one millisecond are broken by a per-process sequence (Note 16-A).
 */
import { randomFillSync } from 'node:crypto';
import type { StorageStatus } from '../../shared/http-api';
import type { DeliveryEnvelope } from '../../shared/protocol-events';
import type { IdentityStateStore } from './identity-state';
import type { MqttStateStore } from './mqtt-state';
import type { WriteFailureListener } from './store-write-failures';

/** Default store TTL (§9.3, §18): 86,400 s. */
export const DEFAULT_STORE_TTL_SECONDS = 86_400;

/** What `enqueue` stores: one copy for one consumer. */
export interface EnqueueInput {
  /** Message id; minted (`msg-<base36 ms>-<12 hex>`) when absent. */
  id?: string;
  /** Durable queue identity of the consumer (`consumer_id`). */
  consumer: string;
  /** The whole §8 envelope (without `msgId`). */
  payload: DeliveryEnvelope;
  /**
   * `JSON.stringify(payload)` when the caller has it already (serialised once for the store
   * and the wire); a store that keeps text uses it instead of serialising again.
   */
  payloadJson?: string;
  producer: string;
  /** Seconds; `undefined` = the store's default TTL, `null` or negative = never, 0 = at once. */
  ttl?: number | null;
  /**
   * Deliveries of this copy already counted (default 0). A copy stored to be delivered live at
   * once is stored with 1, so that attempt needs no second write.
   */
  attempts?: number;
}

/** A stored copy as `dequeue` returns it. `created_at` is ISO, `expires_at` epoch ms or null. */
export interface StoredEntry {
  id: string;
  realm: string;
  /** The subscription key the copy was stored under (§9.1), e.g. `fleet-job`. */
  event: string;
  consumer: string;
  message: DeliveryEnvelope;
  producer: string;
  created_at: string;
  expires_at: number | null;
  /**
   * Deliveries of this copy so far, across connections and restarts (Switchboard extension,
   * ARCHITECTURE §4): the next one is `attempts + 1`, marked as a redelivery when ≥ 2.
   */
  attempts: number;
}

/** How many copies one queue `(realm, event, consumer)` holds or lost. */
export interface QueueCount {
  realm: string;
  event: string;
  consumer: string;
  n: number;
}

/** A dead-lettered copy (§10.5): a stored entry plus why and when. */
export interface DlqEntry extends StoredEntry {
  reason: string;
  dead_lettered_at: string;
}

/**
 * A durable subscription as persisted, so that copies keep being stored for an offline
 * consumer across broker restarts (Switchboard extension; the reference loses its
 * subscription registry on restart and silently stops storing).
 */
export interface PersistedSubscription {
  realm: string;
  key: string;
  consumer: string;
  /**
   * The subscription record (JSON-safe). A clustered node also writes `owner` into it: the
   * cluster node id that registered the subscription (docs/cluster.md "A consumer that moves
   * between nodes"). Kept inside the record so that every store (SQLite column, Redis hash
   * value, memory) carries it without a schema change; rows without it (single brokers, rows
   * written before owners existed) belong to whichever broker restores them.
   */
  record: Record<string, unknown>;
}

/** What `renameRealm` moved from the old name to the new one. */
export interface RealmRenameCounts {
  /** Queued copies (expired ones not yet purged included). */
  queued: number;
  /** DLQ entries. */
  dlq: number;
  /** Durable subscriptions. */
  subscriptions: number;
  /** MQTT retained messages (stores with `mqttState` given `mqttPrefixes`; else 0). */
  retained: number;
  /** MQTT client sessions: distinct client ids with stored state (as `retained`). */
  mqtt_sessions: number;
}

export interface RenameRealmOptions {
  /**
   * MQTT internal-name prefixes of the two realms as `[from, to]` pairs (realm-topics.ts
   * `realmPrefixes`), for a store that keeps MQTT state (`mqttState`): its retained messages,
   * subscriptions, queued packets, QoS 2 receipts and wills move in the same transaction.
   */
  mqttPrefixes?: ReadonlyArray<readonly [string, string]>;
}

/** What a store's `backup` wrote: the live file it copied and the copy's size. */
export interface StoreBackup {
  /** The store's database file. */
  source: string;
  bytes: number;
}

/** A store's fallback state, for `/health`, stats, metrics and alarms. */
export interface FallbackStatus {
  fell_back: boolean;
  /** Epoch ms of the fallback; null when none. */
  since: number | null;
  /** Whether the last re-probe reached Redis; null before the first one (or no fallback). */
  redis_reachable: boolean | null;
  /** The error that caused the fallback (credentials never included). */
  error: string | null;
}

export interface MessageStore {
  /** Backend name: `memory`, `sqlite` or `redis`. */
  readonly backend: string;
  /** The database file of a store on local disk (SQLite); undefined for the others. */
  readonly filename?: string;
  /**
   * Whether the store fell back from Redis at start-up (Note 7-A of
   * `spec/protocol-extensions.md` §7.1); only the Redis start-up store has it.
   */
  fallbackStatus?(): FallbackStatus;
  /** Stores one copy; resolves with its id once it is committed. */
  enqueue(realm: string, event: string, input: EnqueueInput): Promise<string>;
  /** Non-destructive: the unexpired copies of `(realm, event, consumer)`, oldest first. */
  dequeue(realm: string, event: string, consumer: string): Promise<StoredEntry[]>;
  /**
   * Optional, non-destructive: at most `limit` unexpired copies of `(realm, event, consumer)`
   * from position `offset` (0 = the oldest), oldest first — one page of `dequeue` without
   * reading the whole queue (`list_queues`, `peek_queue`; docs/management.md). The memory and
   * SQLite stores have it; without it the commands page `dequeue`'s result.
   */
  peekQueue?(
    realm: string,
    event: string,
    consumer: string,
    offset: number,
    limit: number,
  ): Promise<StoredEntry[]>;
  /** One stored copy by id, or null (unknown or expired). */
  get(msgId: string): Promise<StoredEntry | null>;
  /** Deletes a copy; resolves true when one existed. Unknown ids are ignored. */
  ack(msgId: string): Promise<boolean>;
  /**
   * Records that copy `msgId` has been delivered `attempts` times (a batched write, like
   * `ack`); resolves false when the copy no longer exists.
   */
  setAttempts(msgId: string, attempts: number): Promise<boolean>;
  /**
   * Moves a copy to the DLQ; resolves with its id, or null when it no longer exists or has
   * expired (§16.2: an expired copy is never dead-lettered).
   */
  deadLetter(msgId: string, reason: string): Promise<string | null>;
  /** DLQ entries of a realm (all realms for null), oldest first. */
  listDlq(realm: string | null): Promise<DlqEntry[]>;
  /** Removes a DLQ entry; resolves true when one existed (restricted to `realm` if given). */
  discardDlq(msgId: string, realm?: string): Promise<boolean>;
  /**
   * Moves a DLQ entry back into the queue of its original consumer with the default TTL
   * (§10.5 replay), in one transaction, under a **new** message id (`newMessageId()`, as the
   * reference mints one for the re-queued copy), with attempts 0 and the envelope marked by
   * `replayedEnvelope`. Resolves with the re-queued entry (its `id` is the new one), or null
   * when not found (in `realm`, when given).
   */
  replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null>;
  /** Unexpired queued copies in a realm (queue cap). */
  countQueued(realm: string): Promise<number>;
  /**
   * Copies held per queue, expired ones not yet purged included (they leave through
   * `purgeExpired`); read once at start-up to seed the broker's queue depths.
   */
  queueDepths(): Promise<QueueCount[]>;
  /** Optional: dead-lettered entries per realm now (the `tyo_mq_dlq_depth` gauge, at scrape). */
  dlqDepths?(): Promise<Array<{ realm: string; n: number }>>;
  /**
   * Deletes at most `limit` expired copies (bounded work, called on a timer); resolves with
   * how many each queue lost. Reads never delete: they skip expired copies.
   */
  purgeExpired(limit: number): Promise<QueueCount[]>;
  /** Deletes every copy of one queue (an expired durable subscription); resolves the count. */
  purgeQueue(realm: string, event: string, consumer: string): Promise<number>;
  /**
   * Deletes every queued and DLQ entry of a realm, and its durable subscriptions; resolves
   * with the number of queued and DLQ entries removed.
   */
  purgeRealm(realm: string): Promise<number>;
  /**
   * Moves everything stored under realm `from` to realm `to` in one atomic step (one SQLite
   * transaction, one Redis Lua script): queued copies (ids, order, attempts and expiries kept),
   * DLQ entries, durable subscriptions and, with `options.mqttPrefixes`, MQTT state
   * (`rename_realm`, docs/management.md). Resolves with what moved, or with null — nothing
   * changed — when `to` already holds any of these (two tenants' data are never merged) or
   * `from === to`.
   */
  renameRealm(
    from: string,
    to: string,
    options?: RenameRealmOptions,
  ): Promise<RealmRenameCounts | null>;
  /** Inserts or replaces a durable subscription. */
  saveSubscription(sub: PersistedSubscription): Promise<void>;
  /** Removes a durable subscription; unknown ones are ignored. */
  deleteSubscription(realm: string, key: string, consumer: string): Promise<void>;
  /** Every persisted durable subscription, in the order they were first saved. */
  loadSubscriptions(): Promise<PersistedSubscription[]>;
  /** Flushes pending writes and releases resources. */
  close(): Promise<void>;
  /**
   * Optional: calls `listener(ms)` once per committed write batch with the time it took (the
   * SQLite store: worker round trip, fsync included). For the storage commit histogram.
   */
  observeCommits?(listener: (ms: number) => void): void;
  /**
   * Optional: whether the store refuses new durable copies now and why (the SQLite store's
   * free-space reserve, `free-space-reserve.ts`). Cheap: a cached reading.
   */
  storageStatus?(): StorageStatus;
  /**
   * Optional: calls `listener(op, reason)` once per write that failed (`store-write-failures.ts`;
   * the `tyo_mq_store_write_failures_total` counter).
   */
  observeWriteFailures?(listener: WriteFailureListener): void;
  /**
   * Optional: online backup to the new file `dest` (the SQLite store; docs/backup.md).
   * @throws SwitchboardError `SWB_ERR_CONFLICT` (`dest` exists), `SWB_ERR_VALIDATION` (no such
   *   directory), `SWB_ERR_STORAGE` (the copy failed, or this backend cannot copy itself).
   */
  backup?(dest: string): Promise<StoreBackup>;
  /**
   * Optional: MQTT sessions and retained messages kept across restarts (the SQLite store).
   * Without it the MQTT listener keeps them in memory.
   */
  readonly mqttState?: MqttStateStore;
  /**
   * Optional: the extensions' per-identity state (E2EE keys, principal pins) kept across
   * restarts (the SQLite store; `identity-state.ts`). Without it that state is memory-only.
   */
  readonly identityState?: IdentityStateStore;
}

/** Random bytes drawn in blocks: one `randomFillSync` per 4 KiB instead of one call per id. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `msg-<base36 ms>-<12 hex>` (§16.2): 48 random bits per id. */
export function newMessageId(): string {
  if (poolOffset + 6 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + 6);
  poolOffset += 6;
  return `msg-${Date.now().toString(36)}-${hex}`;
}

/**
 * `expires_at` for a TTL (§9.3): default TTL for undefined, never (null) for null or
 * negative/non-finite values, `now` for 0 (gone by the next operation).
 */
export function expiresAt(ttl: number | null | undefined, defaultTtl: number, now: number) {
  const seconds = ttl === undefined ? defaultTtl : ttl;
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return null;
  return now + Math.round(seconds * 1000);
}

/** Whether an entry with `expires_at` has expired at `now` (an expiry of `now` has). */
export function isExpired(expires: number | null, now: number): boolean {
  return expires !== null && expires <= now;
}

/**
 * The envelope a DLQ replay re-queues (Switchboard extension, docs/management.md): the stored
 * envelope with `replay_count` incremented and `first_dead_lettered_at` set on the first replay
 * and kept afterwards. Both stores apply it inside the replay's one transaction.
 */
export function replayedEnvelope(
  message: DeliveryEnvelope,
  deadLetteredAt: string,
): DeliveryEnvelope {
  return {
    ...message,
    replay_count: (typeof message.replay_count === 'number' ? message.replay_count : 0) + 1,
    first_dead_lettered_at: message.first_dead_lettered_at ?? deadLetteredAt,
  };
}
