/**
 * One broker per message store file (issue 23 item 3), without locking outside readers out.
 *
 * The store used to hold its database with `locking_mode = EXCLUSIVE`: a second broker could
 * not open it, and neither could anything else — `sqlite3 tyo-mq.sqlite 'select count(*) …'`
 * answered "database is locked" for as long as the broker ran. Now the database is opened in
 * the normal WAL mode (readers in other processes see a consistent snapshot and never block
 * the broker's commits) and the one-broker rule moves to a companion file, `<db>-lock`: an
 * empty SQLite database the storage worker holds an exclusive lock on (`locking_mode =
 * EXCLUSIVE` plus one exclusive transaction) for as long as the store is open. The lock is an
 * OS file lock, so the OS drops it when the process dies (a restart after `kill -9` opens at
 * once), and SQLite tracks it per file across the threads of one process too (two stores in one
 * process exclude each other). The file itself holds nothing and may be deleted while no broker
 * runs.
 */
import Database from 'better-sqlite3';
import { preparePrivateDbFile } from '../files/private-files';

/** The lock file of the message store `filename`. */
export function storeLockFile(filename: string): string {
  return `${filename}-lock`;
}

/**
 * Takes the store's lock, waiting at most `busyMs` for a broker that is closing the file.
 * Close the returned connection to release it.
 * @throws SqliteError `SQLITE_BUSY` while another store (process or thread) holds it.
 */
export function holdStoreLock(filename: string, busyMs = 1_000): Database.Database {
  const file = storeLockFile(filename);
  preparePrivateDbFile(file);
  const lock = new Database(file);
  try {
    lock.pragma(`busy_timeout = ${busyMs}`);
    lock.pragma('locking_mode = EXCLUSIVE');
    // No journal: the lock's one transaction writes nothing worth recovering.
    lock.pragma('journal_mode = OFF');
    lock.exec('BEGIN EXCLUSIVE; COMMIT');
    return lock;
  } catch (err) {
    lock.close();
    throw err;
  }
}
