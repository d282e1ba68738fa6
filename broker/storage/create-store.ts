/**
 * Builds the message store the settings ask for (`spec/protocol-core.md` §16.1): `memory`
 * (default), `sqlite` (file `storage_options.filename`, default `tyo-mq.sqlite`, relative
 * paths resolved against the broker's data directory) or `redis` (`redis-startup.ts`: probed
 * in the background, with an optional `fallback`; `storeOpened` says when it is usable).
 */
import { isAbsolute, resolve } from 'node:path';
import type { Settings } from '../config/settings-schema';
import type { Logger } from '../logging/logger';
import { MemoryStore } from './memory-store';
import { DEFAULT_STORE_TTL_SECONDS, type MessageStore } from './message-store';
import { RedisStartupStore } from './redis-startup';
import { SqliteStore } from './sqlite-store';

export { storeOpened } from './redis-startup';

/** Default SQLite file name (§18). */
export const DEFAULT_SQLITE_FILENAME = 'tyo-mq.sqlite';

/**
 * @param logger receives Redis connection errors and the fallback warning.
 * @throws SwitchboardError `SWB_ERR_STORAGE` when the SQLite file cannot be opened or is corrupt.
 */
export function createStore(settings: Settings, dataDir: string, logger: Logger): MessageStore {
  const o = settings.storage_options;
  const defaultTtl = o.default_ttl ?? settings.default_ttl ?? DEFAULT_STORE_TTL_SECONDS;
  const sqlite = (name: string) =>
    new SqliteStore({
      filename: isAbsolute(name) ? name : resolve(dataDir, name),
      synchronous: o.synchronous,
      defaultTtl,
      maxBatchRows: o.max_batch_rows,
      commitDelayMs: o.commit_delay_ms,
      minFreeBytes: o.min_free_bytes,
      minFreePercent: o.min_free_percent,
      logger,
    });
  if (settings.storage === 'sqlite') return sqlite(o.filename ?? DEFAULT_SQLITE_FILENAME);
  if (settings.storage === 'redis') {
    const fallback = o.fallback;
    return new RedisStartupStore({
      url: o.url,
      sentinel: o.sentinel,
      prefix: o.prefix,
      connectTimeout: o.connect_timeout,
      probeTimeout: o.probe_timeout,
      reprobeIntervalMs: o.reprobe_interval_ms,
      defaultTtl,
      logger,
      fallback:
        fallback === 'memory'
          ? () => new MemoryStore(defaultTtl)
          : fallback === 'sqlite'
            ? () => sqlite(o.fallback_filename ?? DEFAULT_SQLITE_FILENAME)
            : undefined,
    });
  }
  return new MemoryStore(defaultTtl);
}
