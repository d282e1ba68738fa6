/**
 * The two Redis connections of a cluster node: `command` for commands (PUBLISH, SET NX, …) and
 * `subscriber` for channel subscriptions (a subscribed Redis connection cannot run commands).
 *
 * Both reconnect on their own (ioredis, back-off capped at 2 s) and the subscriber
 * re-subscribes after a reconnect. A Redis outage is never fatal: commands fail fast while the
 * link is down (no offline queue, so nothing piles up in memory), `up` says whether both links
 * are ready, and the transition is logged once each way (the URL without its password).
 * With a Sentinel target each reconnect asks the sentinels for the current master, so the
 * links follow a failover (`broker/storage/redis-target.ts`).
 */
import type { Redis, RedisOptions } from 'ioredis';
import { ioredis } from '../storage/lazy-ioredis';
import type { Logger } from '../logging/logger';
import {
  describeRedisTarget,
  keepConnecting,
  redisConnectionOptions,
  type RedisTarget,
} from '../storage/redis-target';
import { defineInboxCommands } from './inbox-append';

export interface RedisLinksOptions {
  /** A URL or a Sentinel set (`broker/storage/redis-target.ts`). */
  target: RedisTarget;
  connectTimeoutMs: number;
  /** Called with `true` when both links are ready again, `false` when one is lost. */
  onStateChange?: (up: boolean) => void;
}

export class RedisLinks {
  readonly command: Redis;
  readonly subscriber: Redis;
  private wasUp = false;
  /** The last connection error (message), for the logs and `lastError`. */
  private lastErrorText: string | null = null;
  private readonly channels = new Map<string, (text: string) => void>();
  private closed = false;
  private readonly where: string;
  /** Options every connection shares (fail fast, no offline queue, capped back-off). */
  private readonly common: RedisOptions;
  private readonly released = new WeakSet<Redis>();

  constructor(
    private readonly options: RedisLinksOptions,
    private readonly logger: Logger,
  ) {
    this.where = describeRedisTarget(options.target);
    const isClosed = (): boolean => this.closed;
    const common = (this.common = {
      connectTimeout: options.connectTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: (times: number) => (this.closed ? null : Math.min(100 * times, 2_000)),
    });
    this.command = new (ioredis().Redis)(
      redisConnectionOptions(
        options.target,
        { ...common, connectionName: 'switchboard-cmd', enableAutoPipelining: true },
        isClosed,
      ),
    );
    // Scripts are defined before any command: an auto-pipeline started earlier would not
    // know a command defined later (ioredis#1931).
    defineInboxCommands(this.command);
    this.subscriber = new (ioredis().Redis)(
      redisConnectionOptions(
        options.target,
        // Subscriptions are replayed by us on every `ready` (to a new master too): ioredis' own
        // replay leaves its promise unhandled when the link drops again at once (no offline
        // queue), an unhandled rejection that would end the process.
        { ...common, connectionName: 'switchboard-sub', autoResubscribe: false },
        isClosed,
      ),
    );
    this.subscriber.on('ready', () => this.subscribe([...this.channels.keys()]));
    this.subscriber.on('message', (channel: string, text: string) => {
      this.channels.get(channel)?.(text);
    });
    for (const link of [this.command, this.subscriber]) {
      // Each part of a node (relay, interest, settings, requests, renames, ownership) follows
      // the links' `ready`: more than Node's default of 10 listeners, and not a leak.
      link.setMaxListeners(50);
      keepConnecting(link, isClosed);
      link.on('ready', () => this.check());
      link.on('close', () => this.check());
      // ioredis emits `error` on every failed attempt; the state change is what gets logged,
      // with the last reason (a refused password must not read as "unreachable").
      link.on('error', (err: Error) => {
        const first = this.lastErrorText !== err.message;
        this.lastErrorText = err.message;
        if (first && isAuthError(err.message)) {
          this.logger.error(
            { err: err.message, redis: this.where },
            'cluster redis refused the credentials of the URL (check its password)',
          );
        } else if (this.wasUp) {
          this.logger.debug({ err: err.message, redis: this.where }, 'redis error');
        }
      });
    }
  }

  /** Whether both connections are ready. */
  get up(): boolean {
    return this.command.status === 'ready' && this.subscriber.status === 'ready';
  }

  /** Why the links are not up (the last connection error), or null. */
  get lastError(): string | null {
    return this.up ? null : this.lastErrorText;
  }

  /** The URL without its password (or `sentinel://h:p,…/name`), for logs and status. */
  get url(): string {
    return this.where;
  }

  /**
   * Starts connecting. Resolves once both links are ready, or after `connectTimeoutMs` with
   * `false` (the links keep retrying in the background: a node starts without Redis).
   */
  async connect(): Promise<boolean> {
    const attempt = (link: Redis): Promise<void> =>
      link.connect().catch(() => {
        // Failed first attempt: ioredis keeps retrying through retryStrategy.
      });
    void attempt(this.command);
    void attempt(this.subscriber);
    const deadline = Date.now() + this.options.connectTimeoutMs;
    while (!this.up && Date.now() < deadline && !this.closed) {
      await new Promise((r) => setTimeout(r, 25));
    }
    if (!this.up && !this.closed) {
      this.logger.warn(
        { redis: this.where, err: this.lastErrorText ?? 'no answer' },
        'cluster redis not connected; retrying in background',
      );
    }
    return this.up;
  }

  /**
   * Calls `handler` with every message published on `channel` (one handler per channel). The
   * subscription is sent now if the link is ready, else when it connects; ioredis renews it
   * after a reconnect. A handler that throws is logged, never fatal.
   */
  listen(channel: string, handler: (text: string) => void): void {
    this.channels.set(channel, (text) => {
      try {
        handler(text);
      } catch (err) {
        this.logger.error({ err, channel }, 'cluster message handler failed');
      }
    });
    // Otherwise the next `ready` subscribes it with the others.
    if (this.subscriber.status === 'ready') this.subscribe([channel]);
  }

  private subscribe(channels: string[]): void {
    if (channels.length === 0) return;
    this.subscriber.subscribe(...channels).catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message, channels }, 'cluster subscribe failed');
    });
  }

  /**
   * A further connection to the same Redis for a command that blocks it (`XREAD BLOCK`),
   * connecting now and reconnecting like the others until `close()`; its owner disconnects it.
   */
  blockingLink(connectionName: string): Redis {
    let link: Redis | null = null;
    const isClosed = (): boolean => this.closed || (link !== null && this.released.has(link));
    link = new (ioredis().Redis)(
      redisConnectionOptions(
        this.options.target,
        { ...this.common, connectionName, lazyConnect: false },
        isClosed,
      ),
    );
    keepConnecting(link, isClosed);
    link.on('error', () => {
      // Reported through the command and subscriber links' state; retried by ioredis.
    });
    return link;
  }

  /** Disconnects a link of `blockingLink` for good. */
  releaseLink(link: Redis): void {
    this.released.add(link);
    link.disconnect();
  }

  /** Closes both links; no reconnection after this. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [this.command, this.subscriber].map((link) =>
        link.status === 'ready'
          ? link.quit().then(
              () => undefined,
              () => link.disconnect(),
            )
          : link.disconnect(),
      ),
    );
  }

  private check(): void {
    const up = this.up;
    if (up === this.wasUp || this.closed) return;
    this.wasUp = up;
    if (up) {
      this.lastErrorText = null;
      this.logger.info({ redis: this.where }, 'cluster redis connected');
    } else {
      this.logger.warn({ redis: this.where }, 'cluster redis connection lost; retrying');
    }
    this.options.onStateChange?.(up);
  }
}

/** Redis's answers to a missing or wrong password (`NOAUTH`, `WRONGPASS`, `ERR … AUTH …`). */
function isAuthError(message: string): boolean {
  return /NOAUTH|WRONGPASS|invalid password|AUTH <password> called without|without any password/i.test(
    message,
  );
}
