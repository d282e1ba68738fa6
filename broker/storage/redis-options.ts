/**
 * The Redis keys of `storage_options` (`spec/protocol-core.md` §16.1, §16.3;
 * `spec/protocol-admin.md` §12.1), spread into the settings schema's `StorageOptionsSchema`.
 * No defaults here (they would show in every settings view); `create-store.ts` applies them:
 * `url` `redis://127.0.0.1:6379`, `prefix` `tyo-mq:queue`, `connect_timeout` 5,000 ms,
 * `probe_timeout` 5,000 ms, no `fallback`, `fallback_filename` `tyo-mq.sqlite`.
 */
import { z } from 'zod';
import { MAX_TIMER_DELAY_MS } from '../../shared/duration';
import { SentinelSettingsSchema } from './redis-target';

/** `redis:` or `rediss:` (TLS) URLs only. */
export function isRedisUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'redis:' || protocol === 'rediss:';
  } catch {
    return false;
  }
}

const ms = z.number().int().positive().max(MAX_TIMER_DELAY_MS);

export const RedisStorageOptionsShape = {
  /** Redis URL, credentials allowed (never logged; redacted in settings views). */
  url: z.string().refine(isRedisUrl, { message: 'must be a redis:// or rediss:// URL' }).optional(),
  /**
   * A Redis Sentinel set to follow instead of `url`'s server (shape: `redis-target.ts`); `url`
   * then supplies only the password, user, db and TLS. Its passwords are redacted in settings
   * views.
   */
  sentinel: SentinelSettingsSchema.optional(),
  /** Key prefix. */
  prefix: z.string().min(1).max(256).optional(),
  /** ms to establish a connection. */
  connect_timeout: ms.optional(),
  /**
   * Store used when Redis does not answer the start-up probe. `true` and `redis` mean `sqlite`
   * (§16.1). Absent: a broker whose Redis is unreachable at start-up refuses to start.
   */
  fallback: z
    .union([z.literal(true), z.enum(['sqlite', 'memory', 'redis'])])
    .transform((v): 'sqlite' | 'memory' => (v === 'memory' ? 'memory' : 'sqlite'))
    .optional(),
  /** SQLite file of the `sqlite` fallback, relative to the data directory. */
  fallback_filename: z.string().min(1).optional(),
  /** ms the start-up probe (connect, then PING) may take. */
  probe_timeout: ms.optional(),
  /** ms between probes of Redis after a start-up fallback (Note 7-A); default 30,000. */
  reprobe_interval_ms: ms.optional(),
};
