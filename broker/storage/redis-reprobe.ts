/**
 * After a start-up fallback (`spec/protocol-extensions.md` §7.1 Note 7-A, Switchboard
 * extension): this node's durable messages live on local disk (or in memory) while its cluster
 * peers use Redis, so cross-node replay misses them. Redis is probed again every
 * `storage_options.reprobe_interval_ms` (default 30 s) with a fresh, short-lived connection; when
 * it answers, that is logged (error level: an operator must act) and reported
 * (`storage_fell_back` in `/health` and `/api/stats`, `tyo_mq_storage_fallback`, the
 * `storage_fell_back` alarm). Nothing is migrated automatically: which messages go where is the
 * operator's decision (restart on Redis, or drain the fallback first).
 */
import type { Logger } from '../logging/logger';
import { RedisStore } from './redis-store';
import type { RedisStoreOptions } from './redis-store-options';

/** Default ms between probes after a fallback. */
export const DEFAULT_REPROBE_INTERVAL_MS = 30_000;

export class RedisReprobe {
  private timer: NodeJS.Timeout | null = null;
  private probing = false;
  private reachable: boolean | null = null;
  readonly since = Date.now();

  constructor(
    private readonly options: RedisStoreOptions & { probeTimeout?: number },
    private readonly logger: Logger,
    readonly error: string,
    intervalMs: number = DEFAULT_REPROBE_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => void this.probe(), intervalMs);
    this.timer.unref();
  }

  get redisReachable(): boolean | null {
    return this.reachable;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async probe(): Promise<void> {
    if (this.probing || !this.timer) return;
    this.probing = true;
    // Its own connection errors are expected while Redis is down: not logged.
    const redis = new RedisStore({
      ...this.options,
      logger: this.logger.child({}, { level: 'silent' }),
    });
    let ok = false;
    try {
      await redis.probe(this.options.probeTimeout ?? 5_000);
      ok = true;
    } catch {
      // Still down: the state below says so.
    } finally {
      await redis.close().catch(() => undefined);
      this.probing = false;
    }
    if (ok === this.reachable || !this.timer) return;
    this.reachable = ok;
    if (ok) {
      this.logger.error(
        { url: redis.safeUrl, since: new Date(this.since).toISOString() },
        'Redis is reachable again, but this node keeps its fallback store until restart: ' +
          'durable messages stored since the fallback are not on Redis (restart on Redis once they are drained)',
      );
    } else {
      this.logger.warn({ url: redis.safeUrl }, 'Redis unreachable again (fallback store in use)');
    }
  }
}
