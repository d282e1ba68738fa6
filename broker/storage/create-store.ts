/**
 * Builds the message store the settings ask for (`spec/protocol-core.md` §16.1): `memory`
 * (default) or `sqlite` (file `storage_options.filename`, default `tyo-mq.sqlite`, relative
 * paths resolved against the broker's data directory).
 */
import { isAbsolute, resolve } from 'node:path';
import type { Settings } from '../config/settings-schema';
import { MemoryStore } from './memory-store';
import { DEFAULT_STORE_TTL_SECONDS, type MessageStore } from './message-store';
import { SqliteStore } from './sqlite-store';

/** Default SQLite file name (§18). */
export const DEFAULT_SQLITE_FILENAME = 'tyo-mq.sqlite';

/**
 * @throws SwitchboardError `SWB_ERR_STORAGE` when the SQLite file cannot be opened or is corrupt.
 */
export function createStore(settings: Settings, dataDir: string): MessageStore {
  const o = settings.storage_options;
  const defaultTtl = o.default_ttl ?? settings.default_ttl ?? DEFAULT_STORE_TTL_SECONDS;
  if (settings.storage === 'sqlite') {
    const name = o.filename ?? DEFAULT_SQLITE_FILENAME;
    return new SqliteStore({
      filename: isAbsolute(name) ? name : resolve(dataDir, name),
      synchronous: o.synchronous,
      defaultTtl,
      maxBatchRows: o.max_batch_rows,
      commitDelayMs: o.commit_delay_ms,
    });
  }
  return new MemoryStore(defaultTtl);
}
