/**
 * Applies pending migrations to an open better-sqlite3 database.
 */
import type { Database } from 'better-sqlite3';
import { MIGRATIONS, LATEST_SCHEMA_VERSION, type Migration } from './migrations/index';

/**
 * Brings `db` to `upTo` (default: latest), one transaction per migration. `list` defaults to
 * the message store's migrations; other databases pass their own list and `upTo`.
 * @throws Error when the file's schema is newer than this build (a downgrade would corrupt it).
 */
export function migrate(
  db: Database,
  upTo: number = LATEST_SCHEMA_VERSION,
  list: readonly Migration[] = MIGRATIONS,
): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  // The newest version `list` knows (the auth store has its own list, with its own versions).
  const latest = list.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > latest) {
    throw new Error(`schema version ${current} is newer than this build supports (${latest})`);
  }
  for (const m of list) {
    if (m.version <= current || m.version > upTo) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return db.pragma('user_version', { simple: true }) as number;
}
