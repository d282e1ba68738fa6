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
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import type {
  DlqEntry,
  EnqueueInput,
  MessageStore,
  PersistedSubscription,
  RenameRealmOptions,
  QueueCount,
  StoredEntry,
} from './message-store';
import { RedisStore, type RedisStoreOptions } from './redis-store';

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
}

export class RedisStartupStore implements MessageStore {
  /** Settles once the probe decided; rejects (handled) when Redis is down and no fallback. */
  readonly opened: Promise<OpenedStore>;
  private inner: MessageStore | null = null;
  private readonly redis: RedisStore;
  private closing = false;
  private commitListener: ((ms: number) => void) | null = null;

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
        logger.warn(
          { url: redis.safeUrl, error: error.message, fallback: store.backend },
          'Redis store unreachable at start-up; using the fallback store until restart',
        );
        return this.settle({ store, backend: store.backend, fellBack: true, error });
      },
    );
    // Awaited by listen() and by every call; never an unhandled rejection on its own.
    this.opened.catch(() => {});
  }

  /** `redis` until the probe fell back, then the fallback's backend. */
  get backend(): string {
    return this.inner?.backend ?? 'redis';
  }

  enqueue(realm: string, event: string, input: EnqueueInput): Promise<string> {
    return this.use((s) => s.enqueue(realm, event, input));
  }
  dequeue(realm: string, event: string, consumer: string): Promise<StoredEntry[]> {
    return this.use((s) => s.dequeue(realm, event, consumer));
  }
  get(msgId: string): Promise<StoredEntry | null> {
    return this.use((s) => s.get(msgId));
  }
  ack(msgId: string): Promise<boolean> {
    return this.use((s) => s.ack(msgId));
  }
  setAttempts(msgId: string, attempts: number): Promise<boolean> {
    return this.use((s) => s.setAttempts(msgId, attempts));
  }
  deadLetter(msgId: string, reason: string): Promise<string | null> {
    return this.use((s) => s.deadLetter(msgId, reason));
  }
  listDlq(realm: string | null): Promise<DlqEntry[]> {
    return this.use((s) => s.listDlq(realm));
  }
  discardDlq(msgId: string, realm?: string): Promise<boolean> {
    return this.use((s) => s.discardDlq(msgId, realm));
  }
  replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null> {
    return this.use((s) => s.replayDlq(msgId, realm));
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
    return this.use((s) => s.purgeExpired(limit));
  }
  purgeQueue(realm: string, event: string, consumer: string): Promise<number> {
    return this.use((s) => s.purgeQueue(realm, event, consumer));
  }
  purgeRealm(realm: string): Promise<number> {
    return this.use((s) => s.purgeRealm(realm));
  }
  renameRealm(from: string, to: string, options?: RenameRealmOptions) {
    return this.use((s) => s.renameRealm(from, to, options));
  }
  saveSubscription(sub: PersistedSubscription): Promise<void> {
    return this.use((s) => s.saveSubscription(sub));
  }
  deleteSubscription(realm: string, key: string, consumer: string): Promise<void> {
    return this.use((s) => s.deleteSubscription(realm, key, consumer));
  }
  loadSubscriptions(): Promise<PersistedSubscription[]> {
    return this.use((s) => s.loadSubscriptions());
  }

  observeCommits(listener: (ms: number) => void): void {
    this.commitListener = listener;
    this.inner?.observeCommits?.(listener);
  }

  /** Closes the store in use; during the probe, stops it (no fallback is opened then). */
  async close(): Promise<void> {
    this.closing = true;
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
    return opened;
  }

  private use<T>(call: (store: MessageStore) => Promise<T>): Promise<T> {
    if (this.inner) return call(this.inner);
    return this.opened.then(({ store }) => call(store));
  }
}

/** Resolves once a store built by `createStore` is usable; rejects when it cannot start. */
export async function storeOpened(store: MessageStore): Promise<void> {
  if (store instanceof RedisStartupStore) await store.opened;
}
