/**
 * Owner-only data directories and database files (issue 20 defect 5): the message store, the
 * auth store and the settings and env files hold messages, tokens and keys, so no other local
 * user may read them whatever the umask. Directories are 0700, files 0600.
 *
 * SQLite (unix VFS) gives a new `-wal`, `-shm` or `-journal` file the main database file's
 * permission bits (and `fchmod`s it to them, umask or not), so creating the main file 0600
 * before SQLite opens it covers its companions; existing ones (an older version made them
 * 0644) are restricted here. POSIX only: on Windows modes mean nothing and nothing is changed.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A path whose mode was restricted, with its old mode in octal (for the log line). */
export interface Restricted {
  path: string;
  was: string;
}

const posix = process.platform !== 'win32';
const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0');

/**
 * Creates `dir` (and missing parents) with mode 0700; an existing `dir` that group or others
 * may enter is restricted to 0700.
 * @returns the restriction made (to be logged), or null.
 * @throws Error from the file system (cannot create, or not ours to chmod).
 */
export function ensurePrivateDir(dir: string): Restricted | null {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (!posix) return null;
  const mode = statSync(dir).mode;
  if ((mode & 0o077) === 0) return null;
  chmodSync(dir, PRIVATE_DIR_MODE);
  return { path: dir, was: octal(mode) };
}

/** SQLite's names that are not files on disk. */
const inMemory = (filename: string) =>
  filename === '' || filename === ':memory:' || filename.startsWith('file:');

/**
 * Before SQLite opens `filename`: creates the file empty with mode 0600 if missing, and
 * restricts an existing file and its `-wal`, `-shm` and `-journal` companions to 0600. The
 * directory is neither created (a missing one is the caller's error, as SQLite's) nor changed
 * (it may be any directory an embedder chose; the runners make their data directory private).
 * @returns what was restricted (to be logged).
 * @throws Error from the file system.
 */
export function preparePrivateDbFile(filename: string): Restricted[] {
  if (inMemory(filename)) return [];
  if (!existsSync(filename)) closeSync(openSync(filename, 'a', PRIVATE_FILE_MODE));
  if (!posix) return [];
  const restricted: Restricted[] = [];
  for (const path of [filename, `${filename}-wal`, `${filename}-shm`, `${filename}-journal`]) {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue; // not there
    }
    if ((mode & 0o777) === PRIVATE_FILE_MODE) continue;
    chmodSync(path, PRIVATE_FILE_MODE);
    restricted.push({ path, was: octal(mode) });
  }
  return restricted;
}
