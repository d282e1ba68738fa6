/**
 * The storage worker: owns the better-sqlite3 connection of one `SqliteStore`, so that commits
 * (an fsync each with `synchronous: FULL`) never block the broker's event loop (ARCHITECTURE §1,
 * "The broker's event loop is for sockets"). Runs the named operations of `sqlite-ops.ts` in
 * the order it receives them; a batch flagged `tx` is one transaction, rolled back as a whole
 * when any statement fails.
 *
 * Start-up handshake: the worker opens and migrates the file, leaves an `OpenReply` on
 * `workerData.port` and sets `workerData.signal`, which the main thread waits on synchronously
 * (so `new SqliteStore()` still throws at once for a corrupt, locked or newer file).
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { migrate } from './migrate';
import {
  SQLITE_OPS,
  runOps,
  type OpBatch,
  type OpName,
  type WorkerInit,
  type WorkerReply,
  type WorkerRequest,
} from './sqlite-ops';
import { SqliteStatements } from './sqlite-statements';

const init = workerData as WorkerInit;

function open(): { db: Database.Database; s: SqliteStatements } {
  const db = new Database(init.filename);
  try {
    // One broker per store: an exclusive lock, which the OS drops if the process dies (so a
    // restart after kill -9 opens at once) and a second broker on the same file cannot take.
    db.pragma('busy_timeout = 1000');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${init.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    const check = db.pragma('quick_check(1)', { simple: true });
    if (check !== 'ok') throw new Error(`integrity check failed: ${String(check)}`);
    migrate(db);
    return { db, s: new SqliteStatements(db) };
  } catch (err) {
    db.close();
    throw err;
  }
}

function serve(db: Database.Database, s: SqliteStatements): void {
  const run = (name: OpName, args: unknown[]): unknown =>
    (SQLITE_OPS[name] as (s: SqliteStatements, ...a: unknown[]) => unknown)(s, ...args);
  const runAll = db.transaction((ops: OpBatch) => runOps(ops, run));
  parentPort!.on('message', (req: WorkerRequest) => {
    let reply: WorkerReply;
    if ('close' in req) {
      db.close();
      parentPort!.postMessage({ id: req.id, ok: true, results: [] } satisfies WorkerReply);
      parentPort!.close();
      return;
    }
    try {
      reply = { id: req.id, ok: true, results: req.tx ? runAll(req.ops) : runOps(req.ops, run) };
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      reply = {
        id: req.id,
        ok: false,
        message: (err as Error).message,
        ...(typeof code === 'string' ? { code } : {}),
      };
    }
    parentPort!.postMessage(reply);
  });
}

const flag = new Int32Array(init.signal);
try {
  const { db, s } = open();
  init.port.postMessage({ ok: true });
  serve(db, s);
} catch (err) {
  const busy = (err as { code?: string }).code === 'SQLITE_BUSY';
  init.port.postMessage({ ok: false, message: (err as Error).message, busy });
} finally {
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
