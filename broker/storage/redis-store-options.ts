/**
 * `RedisStoreOptions`: how a Redis message store (redis-store.ts, `spec/protocol-core.md`
 * §16.3) connects: the server or Sentinel set, the key prefix and the default TTL.
 */
import type { Logger } from '../logging/logger';
import type { SentinelSettings } from './redis-target';

export interface RedisStoreOptions {
  /** Default `redis://127.0.0.1:6379`; credentials in it are never logged. */
  url?: string;
  /**
   * A Redis Sentinel set to follow instead of `url`'s server (`redis-target.ts`); `url` then
   * supplies only the password, user, db and TLS.
   */
  sentinel?: SentinelSettings;
  /** Key prefix, default `tyo-mq:queue`. */
  prefix?: string;
  /** ms to establish a connection, default 5,000. */
  connectTimeout?: number;
  /** Seconds; TTL of copies stored without one (default 86,400). */
  defaultTtl?: number;
  logger: Logger;
}
