/**
 * Start-up of the Redis store (`spec/protocol-core.md` §16.1 "async factory"): the broker
 * builds its store synchronously, so `storage: "redis"` gets a {@link RedisStartupStore} at
 * once — a MessageStore that connects in the background, probes Redis (connect, then `PING`)
 * within `probe_timeout`, and then forwards every call to the store it settled on. Calls made
 * meanwhile wait for the probe.
 *
 * - Probe passes: the Redis store (`fellBack: false`).
 * - Probe fails, `fallback` set: a warning is logged and the fallback store (SQLite or memory)
 *   is used until the next restart (`fellBack: true`); Redis is not retried.
 * - Probe fails, no `fallback`: `opened` rejects with `SWB_ERR_STORAGE` naming the URL
 *   (without credentials), the broker's `listen()` rejects with it, and store calls reject.
 *   Refusing to start is deliberate: a broker that accepts durable subscriptions and guaranteed
 *   messages it cannot store would lose them silently (the same rule as a corrupt SQLite
 *   file). Once started, Redis outages are never fatal: the store reconnects by itself.
 *
 * Failed writes on Redis are counted here (`store-write-failures.ts`); a fallback store counts
 * its own. `backup` is the fallback SQLite store's; Redis has its own tools (docs/backup.md).
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import type {
  DlqEntry,
  EnqueueInput,
  FallbackStatus,
  MessageStore,
  PersistedSubscription,
  RenameRealmOptions,
  QueueCount,
  StoreBackup,
  StoredEntry,
} from './message-store';
import type { IdentityStateStore } from './identity-state';
import { RedisReprobe } from './redis-reprobe';
import { RedisStore } from './redis-store';
import type { RedisStoreOptions } from './redis-store-options';
import {
  failureReason,
  StoreWriteOp as Op,
  WriteFailureCounts,
  type StoreWriteOpValue,
  type WriteFailureListener,
} from './store-write-failures';

/** What the start-up factory settled on (§16.1). */
export interface OpenedStore {
  store: MessageStore;
  /** `redis`, or the fallback's backend. */
  backend: string;
  fellBack: boolean;
  /** Why Redis was not used (`fellBack`), else null. */
  error: Error | null;
}

export interface RedisStartupOptions extends RedisStoreOptions {
  /** ms, default 5,000. */
  probeTimeout?: number;
  /** Builds the fallback store; absent = no fallback. */
  fallback?: () => MessageStore;
  /** ms between probes of Redis after a fallback (Note 7-A); default 30,000. */
  reprobeIntervalMs?: number;
}

export class RedisStartupStore implements MessageStore {
  /** Settles once the probe decided; rejects (handled) when Redis is down and no fallback. */
  readonly opened: Promise<OpenedStore>;
  private inner: MessageStore | null = null;
  private readonly redis: RedisStore;
  private closing = false;
  private commitListener: ((ms: number) => void) | null = null;
  private failureListener: WriteFailureListener | null = null;
  private readonly failures = new WriteFailureCounts();
  private reprobe: RedisReprobe | null = null;

  constructor(options: RedisStartupOptions) {
    const { logger } = options;
    const redis = new RedisStore(options);
    this.redis = redis;
    this.opened = redis.probe(options.probeTimeout ?? 5_000).then(
      () => this.settle({ store: redis, backend: 'redis', fellBack: false, error: null }),
      async (error: Error) => {
        await redis.close();
        if (this.closing) throw error;
        if (!options.fallback) {
          logger.error({ url: redis.safeUrl, error: error.message }, 'Redis store unreachable');
          throw new SwitchboardError(
            'SWB_ERR_STORAGE',
            `${error.message} (set storage_options.fallback to start on sqlite or memory instead)`,
          );
        }
        const store = options.fallback();
        logger.error(
          { url: redis.safeUrl, error: error.message, fallback: store.backend },
          'Redis store unreachable at start-up: durable storage fell back to the fallback store until restart',
        );
        this.reprobe = new RedisReprobe(options, logger, error.message, options.reprobeIntervalMs);
        return this.settle({ store, backend: store.backend, fellBack: true, error });
      },
    );
    // Awaited by listen() and by every call; never an unhandled rejection on its own.
    this.opened.catch(() => {});
  }

  /** Note 7-A: whether the store fell back, and whether Redis answers again since. */
  fallbackStatus(): FallbackStatus {
    const r = this.reprobe;
    return r
      ? { fell_back: true, since: r.since, redis_reachable: r.redisReachable, error: r.error }
      : { fell_back: false, since: null, redis_reachable: null, error: null };
  }

  /**
   * The extensions' per-identity state of the store settled on (Redis, or a SQLite fallback);
   * a memory fallback keeps none (nothing to load, writes are no-ops). Calls made before the
   * probe wait for it, as every other call does.
   */
  readonly identityState: IdentityStateStore = {
    load: () => this.use((s) => s.identityState?.load() ?? Promise.resolve([])),
    write: (change) =>
      this.write(Op.IDENTITY_WRITE, (s) => s.identityState?.write(change) ?? Promise.resolve()),
  };

  /** `redis` until the probe fell back, then the fallback's backend. */
  get backend(): string {
    return this.inner?.backend ?? 'redis';
  }

  enqueue(realm: string, event: string, input: EnqueueInput): Promise<string> {
    return this.write(Op.ENQUEUE, (s) => s.enqueue(realm, event, input));
  }
  dequeue(realm: string, event: string, consumer: string): Promise<StoredEntry[]> {
    return this.use((s) => s.dequeue(realm, event, consumer));
  }
  get(msgId: string): Promise<StoredEntry | null> {
    return this.use((s) => s.get(msgId));
  }
  ack(msgId: string): Promise<boolean> {
    return this.write(Op.ACK, (s) => s.ack(msgId));
  }
  setAttempts(msgId: string, attempts: number): Promise<boolean> {
    return this.write(Op.SET_ATTEMPTS, (s) => s.setAttempts(msgId, attempts));
  }
  deadLetter(msgId: string, reason: string): Promise<string | null> {
    return this.write(Op.DEAD_LETTER, (s) => s.deadLetter(msgId, reason));
  }
  listDlq(realm: string | null): Promise<DlqEntry[]> {
    return this.use((s) => s.listDlq(realm));
  }
  discardDlq(msgId: string, realm?: string): Promise<boolean> {
    return this.write(Op.DLQ_DISCARD, (s) => s.discardDlq(msgId, realm));
  }
  replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null> {
    return this.write(Op.DLQ_REPLAY, (s) => s.replayDlq(msgId, realm));
  }
  countQueued(realm: string): Promise<number> {
    return this.use((s) => s.countQueued(realm));
  }
  queueDepths(): Promise<QueueCount[]> {
    return this.use((s) => s.queueDepths());
  }
  dlqDepths(): Promise<Array<{ realm: string; n: number }>> {
    return this.use((s) => (s.dlqDepths ? s.dlqDepths() : Promise.resolve([])));
  }
  purgeExpired(limit: number): Promise<QueueCount[]> {
    return this.write(Op.PURGE_EXPIRED, (s) => s.purgeExpired(limit));
  }
  purgeQueue(realm: string, event: string, consumer: string): Promise<number> {
    return this.write(Op.PURGE_QUEUE, (s) => s.purgeQueue(realm, event, consumer));
  }
  purgeRealm(realm: string): Promise<number> {
    return this.write(Op.PURGE_REALM, (s) => s.purgeRealm(realm));
  }
  renameRealm(from: string, to: string, options?: RenameRealmOptions) {
    return this.write(Op.RENAME_REALM, (s) => s.renameRealm(from, to, options));
  }
  saveSubscription(sub: PersistedSubscription): Promise<void> {
    return this.write(Op.SAVE_SUBSCRIPTION, (s) => s.saveSubscription(sub));
  }
  deleteSubscription(realm: string, key: string, consumer: string): Promise<void> {
    return this.write(Op.DELETE_SUBSCRIPTION, (s) => s.deleteSubscription(realm, key, consumer));
  }
  loadSubscriptions(): Promise<PersistedSubscription[]> {
    return this.use((s) => s.loadSubscriptions());
  }

  observeCommits(listener: (ms: number) => void): void {
    this.commitListener = listener;
    this.inner?.observeCommits?.(listener);
  }

  observeWriteFailures(listener: WriteFailureListener): void {
    this.failureListener = listener;
    this.failures.observe(listener);
    if (this.inner !== this.redis) this.inner?.observeWriteFailures?.(listener);
  }

  /** The fallback store's backup. @throws SwitchboardError `SWB_ERR_NOT_SUPPORTED` on Redis. */
  backup(dest: string): Promise<StoreBackup> {
    return this.use(async (s) => {
      if (s.backup) return s.backup(dest);
      throw new SwitchboardError(
        'SWB_ERR_NOT_SUPPORTED',
        `Online backup is not supported for the ${s.backend} storage backend (SQLite only)`,
      );
    });
  }

  /** Closes the store in use; during the probe, stops it (no fallback is opened then). */
  async close(): Promise<void> {
    this.closing = true;
    this.reprobe?.stop();
    // Still probing: dropping the connection ends the probe now, not after its timeout.
    if (!this.inner) await this.redis.close();
    try {
      const { store } = await this.opened;
      await store.close();
    } catch {
      // The probe failed: the Redis connection is already closed.
    }
  }

  private settle(opened: OpenedStore): OpenedStore {
    this.inner = opened.store;
    if (this.commitListener) opened.store.observeCommits?.(this.commitListener);
    if (this.failureListener && opened.fellBack)
      opened.store.observeWriteFailures?.(this.failureListener);
    return opened;
  }

  private use<T>(call: (store: MessageStore) => Promise<T>): Promise<T> {
    if (this.inner) return call(this.inner);
    return this.opened.then(({ store }) => call(store));
  }

  /** A write: counted when it fails on Redis (or for want of any store), not on a fallback. */
  private write<T>(op: StoreWriteOpValue, call: (store: MessageStore) => Promise<T>): Promise<T> {
    return this.use(call).catch((err: unknown) => {
      if (this.inner === null || this.inner === this.redis) {
        this.failures.failed(op, failureReason(err));
      }
      throw err;
    });
  }
}

/** Resolves once a store built by `createStore` is usable; rejects when it cannot start. */
export async function storeOpened(store: MessageStore): Promise<void> {
  if (store instanceof RedisStartupStore) await store.opened;
}
