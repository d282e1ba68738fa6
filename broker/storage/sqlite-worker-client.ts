/**
 * Main-thread side of the storage worker (`sqlite-worker.ts`): starts it, waits synchronously
 * for the file to open, and sends it named operations (`sqlite-ops.ts`) as requests whose
 * promises settle when the worker replies. Requests are handled in the order they are sent,
 * so a read sent after a write sees it.
 *
 * Faults: a failed batch rejects its request; a worker that dies (crash, out of memory) rejects
 * every outstanding and later request with `SWB_ERR_STORAGE` — the broker keeps running and
 * reports storage errors instead of crashing.
 *
 * Loading: from a bundle (`scripts/build-electron.mjs`) the worker is `sqlite-worker.mjs` next
 * to the bundle; from sources (`node --import tsx`, vitest) `sqlite-worker.ts` is bundled on
 * the fly (`buildFromSources`).
 */
import { createHash } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort, threadId, Worker } from 'node:worker_threads';
import type * as Esbuild from 'esbuild';
import { SwitchboardError } from '../../shared/error-catalogue';
import type {
  BackupInit,
  OpBatch,
  OpenReply,
  WorkerInit,
  WorkerReply,
  WorkerRequest,
} from './sqlite-ops';

/** Longest wait (ms) for the worker to start and open the file. */
const OPEN_TIMEOUT_MS = 30_000;

interface Waiting {
  resolve: (results: unknown[]) => void;
  reject: (err: SwitchboardError) => void;
}

/** Where the worker's code is (see the module comment). */
export function workerEntry(): URL {
  const bundled = new URL('./sqlite-worker.mjs', import.meta.url);
  if (existsSync(fileURLToPath(bundled))) return bundled;
  sourceBuild ??= buildFromSources();
  return sourceBuild;
}

let sourceBuild: URL | undefined;

/**
 * Running from sources: bundles `sqlite-worker.ts` (and the SQL layer it imports) into one
 * CommonJS file in the temp directory, once per process, with esbuild (synchronous, ~0.1 s).
 * Node 20 cannot give a worker tsx's loader (`--import` in a worker's `execArgv` registers no
 * hooks), and a plain JS worker starts in milliseconds. npm packages stay external and are
 * required relative to the sources.
 */
function buildFromSources(): URL {
  const require = createRequire(import.meta.url);
  const { buildSync } = require('esbuild') as typeof Esbuild;
  const entry = fileURLToPath(new URL('./sqlite-worker.ts', import.meta.url));
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // npm packages resolve from the sources' directory, not from the temp directory.
    banner: { js: `require = require('node:module').createRequire(${JSON.stringify(entry)});` },
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const file = join(tmpdir(), `switchboard-sqlite-worker-${hash}.cjs`);
  if (!existsSync(file)) {
    // Written under a unique name, then renamed: another process may be doing the same.
    const partial = `${file}.${process.pid}.${threadId}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  }
  return pathToFileURL(file);
}

/** A request the worker ran and SQLite refused; `sqliteCode` is e.g. `SQLITE_FULL`. */
export class StoreWriteError extends SwitchboardError {
  constructor(
    /** SQLite's or the OS's own message. */
    readonly reason: string,
    readonly sqliteCode: string | undefined,
  ) {
    super('SWB_ERR_STORAGE', `Message store write failed: ${reason}`);
  }
}

export class SqliteWorkerClient {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private failure: SwitchboardError | null = null;

  /**
   * Starts the worker and blocks until it has opened `filename` (start-up only).
   * @throws SwitchboardError `SWB_ERR_STORAGE` naming the file when it cannot be opened.
   */
  constructor(
    private readonly filename: string,
    synchronous: 'FULL' | 'NORMAL',
  ) {
    const signal = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const init: WorkerInit = { filename, synchronous, signal, port: port2 };
    const openError = (reason: string) =>
      new SwitchboardError('SWB_ERR_STORAGE', `Cannot open message store ${filename}: ${reason}`);
    try {
      this.worker = new Worker(workerEntry(), { workerData: init, transferList: [port2] });
    } catch (err) {
      throw openError(`cannot start the storage worker: ${(err as Error).message}`);
    }
    Atomics.wait(new Int32Array(signal), 0, 0, OPEN_TIMEOUT_MS);
    const reply = receiveMessageOnPort(port1)?.message as OpenReply | undefined;
    port1.close();
    if (!reply?.ok) {
      void this.worker.terminate();
      throw openError(
        !reply
          ? `the storage worker did not start within ${OPEN_TIMEOUT_MS} ms`
          : reply.busy
            ? 'it is in use by another broker process'
            : reply.message,
      );
    }
    this.worker.on('message', (reply: WorkerReply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(`storage worker failed: ${err.message}`));
    this.worker.on('exit', (code) => this.fail(`storage worker exited with code ${code}`));
    // Idle, the worker must not keep the process alive; busy, it must (see `request`).
    this.worker.unref();
  }

  /** Runs `ops` in the worker (one transaction when `tx`); resolves with their results. */
  request(ops: OpBatch, tx: boolean): Promise<unknown[]> {
    return this.send((id) => ({ id, ops, tx }));
  }

  /**
   * Backs the database up to the new file `dest` (`sqlite-backup.ts`) once every earlier
   * request is done, from a second, read-only connection on a worker of its own: this worker
   * keeps committing meanwhile. Resolves with the copy's size in bytes.
   * @throws StoreWriteError carrying the OS or SQLite code (`EEXIST`, `ENOENT`, `SQLITE_FULL`…);
   *   SwitchboardError `SWB_ERR_STORAGE` when the storage worker is gone.
   */
  async backup(dest: string): Promise<number> {
    // A barrier: every write sent before is committed, so the snapshot holds it.
    await this.request([], false);
    const init: BackupInit = { filename: this.filename, backup: dest };
    const worker = new Worker(workerEntry(), { workerData: init });
    const reply = await new Promise<WorkerReply>((resolve) => {
      worker.once('message', resolve);
      worker.once('error', (err) => resolve({ id: 0, ok: false, message: err.message }));
      worker.once('exit', (code) =>
        resolve({ id: 0, ok: false, message: `backup worker exited with code ${code}` }),
      );
    });
    void worker.terminate();
    if (!reply.ok) throw new StoreWriteError(reply.message, reply.code);
    return reply.results[0] as number;
  }

  /** Closes the database after every earlier request, then stops the worker. */
  async close(): Promise<void> {
    if (this.failure === null) await this.send((id) => ({ id, close: true })).catch(() => {});
    await this.worker.terminate();
  }

  private send(make: (id: number) => WorkerRequest): Promise<unknown[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage(make(id));
    });
  }

  private settle(reply: WorkerReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker.unref();
    if (reply.ok) waiting.resolve(reply.results);
    else waiting.reject(new StoreWriteError(reply.message, reply.code));
  }

  private fail(message: string): void {
    // After close() this is the worker's normal exit: nothing is waiting any more.
    this.failure ??= new SwitchboardError('SWB_ERR_STORAGE', message);
    for (const waiting of this.waiting.values()) waiting.reject(this.failure);
    this.waiting.clear();
  }
}
