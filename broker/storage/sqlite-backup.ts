/**
 * Online backup of one SQLite database (issue 23 item 1), shared by the message store (run by
 * a backup worker on a read-only connection, `sqlite-worker.ts`) and the auth store
 * (`sqlite-auth-store.ts`, on its own connection: a small file).
 *
 * `VACUUM INTO` writes a consistent snapshot — the database as of one read transaction, so a
 * commit in progress is either wholly in the copy or not at all — as a compact, standalone file
 * (no `-wal` to carry along). Run from a WAL reader, it blocks no writer: the snapshot is that
 * reader's, whatever commits meanwhile (better-sqlite3's page-stepping `db.backup()` would
 * restart, or follow, every change made during the copy).
 *
 * - The destination is created here first, empty, with mode 0600 and `O_EXCL`: an existing
 *   file (or a link) is refused atomically, and the copy is never readable by others, not even
 *   while it is being written (`VACUUM INTO` accepts an existing empty file).
 * - SQLite does not fsync the file `VACUUM INTO` wrote; this does, and its directory too, so a
 *   backup reported done survives a power cut.
 * - A failed backup removes what it wrote: no half-written copy is left to be restored.
 */
import type { Database } from 'better-sqlite3';
import { closeSync, fsyncSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { SwitchboardError } from '../../shared/error-catalogue';
import { PRIVATE_FILE_MODE } from '../files/private-files';

/**
 * Copies `db` to the new file `dest` (absolute path); returns its size in bytes.
 * @throws Error with `code` `EEXIST` (dest exists), `ENOENT` (its directory does not exist),
 *   `EACCES`…, or SQLite's (`SQLITE_FULL`…) when the copy fails; nothing is left at `dest` then
 *   unless it was there before.
 */
export function vacuumInto(db: Database, dest: string): number {
  closeSync(openSync(dest, 'wx', PRIVATE_FILE_MODE));
  try {
    db.prepare('VACUUM INTO ?').run(dest);
    const fd = openSync(dest, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    fsyncDir(dirname(dest));
    return statSync(dest).size;
  } catch (err) {
    try {
      unlinkSync(dest);
    } catch {
      // Already gone: nothing to clean up.
    }
    throw err;
  }
}

/** Makes a new directory entry durable; a no-op where directories cannot be opened (Windows). */
function fsyncDir(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the file itself is synced.
  } finally {
    closeSync(fd);
  }
}

/**
 * The error to report for a failed backup of `what` (e.g. "message store /data/tyo-mq.sqlite")
 * to `dest`: `SWB_ERR_CONFLICT` when `dest` exists, `SWB_ERR_VALIDATION` when its directory
 * does not (or is no directory), else `SWB_ERR_STORAGE`; the message names both files.
 * @param code the OS or SQLite error code (`EEXIST`, `SQLITE_FULL`…), when known.
 */
export function backupError(
  what: string,
  dest: string,
  reason: string,
  code: string | undefined,
): SwitchboardError {
  const kind =
    code === 'EEXIST'
      ? 'SWB_ERR_CONFLICT'
      : code === 'ENOENT' || code === 'ENOTDIR'
        ? 'SWB_ERR_VALIDATION'
        : 'SWB_ERR_STORAGE';
  const why =
    code === 'EEXIST'
      ? 'the file already exists'
      : kind === 'SWB_ERR_VALIDATION'
        ? 'its directory does not exist'
        : reason;
  return new SwitchboardError(kind, `Backup of the ${what} to ${dest} failed: ${why}`);
}
