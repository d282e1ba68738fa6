/**
 * The storage worker: owns the better-sqlite3 connection of one `SqliteStore`, so that commits
 * (an fsync each with `synchronous: FULL`) never block the broker's event loop (ARCHITECTURE §1,
 * "The broker's event loop is for sockets"). Runs the named operations of `sqlite-ops.ts` in
 * the order it receives them; a batch flagged `tx` is one transaction, rolled back as a whole
 * when any statement fails.
 *
 * Start-up handshake: the worker takes the store's lock (`sqlite-lock.ts`), opens and migrates
 * the file, leaves an `OpenReply` on `workerData.port` and sets `workerData.signal`, which the
 * main thread waits on synchronously (so `new SqliteStore()` still throws at once for a
 * corrupt, locked or newer file).
 *
 * Backup mode (`workerData.backup` set; `sqlite-backup.ts`): a short-lived second worker that
 * opens the same file read-only — a WAL reader, so the store's own worker keeps committing
 * meanwhile — copies it with `VACUUM INTO`, posts one `WorkerReply` and exits.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { migrate } from './migrate';
import { vacuumInto } from './sqlite-backup';
import { holdStoreLock } from './sqlite-lock';
import {
  SQLITE_OPS,
  runOps,
  type OpBatch,
  type BackupInit,
  type OpName,
  type WorkerInit,
  type WorkerReply,
  type WorkerRequest,
} from './sqlite-ops';
import { SqliteStatements } from './sqlite-statements';

const data = workerData as WorkerInit | BackupInit;

interface Opened {
  db: Database.Database;
  s: SqliteStatements;
  lock: Database.Database;
}

function open(init: WorkerInit): Opened {
  // One broker per store, but readers welcome: the lock is on a companion file (sqlite-lock.ts).
  const lock = holdStoreLock(init.filename);
  let db: Database.Database | null = null;
  try {
    db = new Database(init.filename);
    db.pragma('busy_timeout = 1000');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${init.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    const check = db.pragma('quick_check(1)', { simple: true });
    if (check !== 'ok') throw new Error(`integrity check failed: ${String(check)}`);
    migrate(db);
    return { db, s: new SqliteStatements(db), lock };
  } catch (err) {
    db?.close();
    lock.close();
    throw err;
  }
}

/** The reply to a request that failed with `err`. */
function failed(id: number, err: unknown): WorkerReply {
  const code = (err as { code?: unknown }).code;
  return {
    id,
    ok: false,
    message: (err as Error).message,
    ...(typeof code === 'string' ? { code } : {}),
  };
}

function serve({ db, s, lock }: Opened): void {
  const run = (name: OpName, args: unknown[]): unknown =>
    (SQLITE_OPS[name] as (s: SqliteStatements, ...a: unknown[]) => unknown)(s, ...args);
  const runAll = db.transaction((ops: OpBatch) => runOps(ops, run));
  parentPort!.on('message', (req: WorkerRequest) => {
    let reply: WorkerReply;
    if ('close' in req) {
      db.close();
      // After the database: the next broker must find it closed (its WAL checkpointed).
      lock.close();
      parentPort!.postMessage({ id: req.id, ok: true, results: [] } satisfies WorkerReply);
      parentPort!.close();
      return;
    }
    try {
      reply = { id: req.id, ok: true, results: req.tx ? runAll(req.ops) : runOps(req.ops, run) };
    } catch (err) {
      reply = failed(req.id, err);
    }
    parentPort!.postMessage(reply);
  });
}

/** Backup mode: copies the database from a read-only connection; replies with its size. */
function backup({ filename, backup: dest }: BackupInit): void {
  let reply: WorkerReply;
  try {
    const db = new Database(filename, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 1000');
      reply = { id: 0, ok: true, results: [vacuumInto(db, dest)] };
    } finally {
      db.close();
    }
  } catch (err) {
    reply = failed(0, err);
  }
  parentPort!.postMessage(reply);
}

function start(init: WorkerInit): void {
  const flag = new Int32Array(init.signal);
  try {
    const opened = open(init);
    init.port.postMessage({ ok: true });
    serve(opened);
  } catch (err) {
    const busy = (err as { code?: string }).code === 'SQLITE_BUSY';
    init.port.postMessage({ ok: false, message: (err as Error).message, busy });
  } finally {
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }
}

if ('backup' in data) backup(data);
else start(data);
