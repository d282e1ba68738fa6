/**
 * SQLite message store (better-sqlite3, WAL) on a worker thread, with group commit.
 *
 * Source: `spec/protocol-core.md` §16.3 ("SQLite": tables, ordering by rowid, `deadLetter`
 * upserts into `dlq` then deletes), ARCHITECTURE §1 (commits batched and off the event loop)
 * and §4 (an acknowledged write is on disk).
 *
 * The connection lives in a worker (`sqlite-worker.ts`), so a commit's fsync never blocks the
 * sockets. Group commit (`sqlite-group-commit.ts`): writes (`enqueue`, `ack`, `deadLetter`,
 * subscriptions) are queued and sent to the worker as one transaction — at the end of the
 * current event-loop turn (`commitDelayMs` 0, the default) or after `commitDelayMs`, or as soon
 * as `maxBatchRows` are waiting — and while that commit is in flight the next batch keeps
 * growing, so under load every fsync covers many writes. A write's promise resolves only after
 * its commit. Reads send
 * the queued writes first; the worker runs requests in order, so a read sees every earlier
 * write. With `synchronous: 'FULL'` (default) each commit is fsynced: a resolved write
 * survives power loss. `'NORMAL'` in WAL mode survives a process crash (`kill -9`) but may lose
 * the last commits on power loss; it is faster. A failed commit rolls back the whole batch and
 * rejects every promise in it; a dead worker rejects everything with `SWB_ERR_STORAGE`.
 *
 * Free-space reserve (`free-space-reserve.ts`): while the database's filesystem has less free
 * space than the reserve, or after a write failed for lack of space (`SQLITE_FULL`), `enqueue`
 * refuses new copies with `SWB_ERR_STORAGE` before they reach the worker; every other write
 * (ACK deletes, attempt counts, DLQ moves, subscriptions) still goes through, so consumers can
 * drain the store into the space the reserve kept.
 *
 * Failed writes are counted (`store-write-failures.ts`; the metric, `/api/stats`), and
 * `backup(dest)` takes an online copy (`sqlite-backup.ts`, docs/backup.md). Other processes may
 * read the file while the broker runs (`sqlite-lock.ts`).
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import { dirname } from 'node:path';
import type { StorageStatus } from '../../shared/http-api';
import { preparePrivateDbFile, type Restricted } from '../files/private-files';
import type { Logger } from '../logging/logger';
import {
  DEFAULT_STORE_TTL_SECONDS,
  expiresAt,
  newMessageId,
  type DlqEntry,
  type EnqueueInput,
  type MessageStore,
  type PersistedSubscription,
  type QueueCount,
  type RealmRenameCounts,
  type RenameRealmOptions,
  type StoreBackup,
  type StoredEntry,
} from './message-store';
import type { MqttStateStore } from './mqtt-state';
import type { IdentityStateStore } from './identity-state';
import {
  opNames,
  pushOp,
  WRITE_OP_LABELS,
  type OpArgs,
  type OpBatch,
  type OpName,
  type OpResult,
} from './sqlite-ops';
import { FreeSpaceReserve } from './free-space-reserve';
import { backupError } from './sqlite-backup';
import { GroupCommit } from './sqlite-group-commit';
import { SqliteWorkerClient, StoreWriteError } from './sqlite-worker-client';
import {
  failureReason,
  StoreWriteFailure,
  StoreWriteOp,
  WriteFailureCounts,
  type WriteFailureListener,
} from './store-write-failures';

export interface SqliteStoreOptions {
  filename: string;
  /** `FULL` (default) or `NORMAL`; see the module comment for the trade-off. */
  synchronous?: 'FULL' | 'NORMAL';
  /** Seconds; TTL of copies stored without one (default 86,400). */
  defaultTtl?: number;
  /** Most writes committed in one transaction (default 512). */
  maxBatchRows?: number;
  /** Extra wait (ms) before a commit to gather more writes; 0 = end of the turn (default). */
  commitDelayMs?: number;
  /** Told when files of an older version were readable by others and were restricted to 0600. */
  logger?: Logger;
  /**
   * Free-space reserve on the database's filesystem, in bytes and in percent of its size (see
   * `reserveBytes`: neither → the smaller of 256 MiB and 5 %; 0 turns it off).
   */
  minFreeBytes?: number;
  minFreePercent?: number;
  /** Longest age (ms) of the cached free-space reading (default 1,000). */
  freeSpaceRefreshMs?: number;
}

/** `new Date(ms).toISOString()`, computed once per millisecond (many writes share one). */
let isoAt = { ms: Number.NaN, iso: '' };
function isoString(ms: number): string {
  if (isoAt.ms !== ms) isoAt = { ms, iso: new Date(ms).toISOString() };
  return isoAt.iso;
}

export class SqliteStore implements MessageStore {
  readonly backend = 'sqlite';
  /** The database file. */
  readonly filename: string;
  private readonly worker: SqliteWorkerClient;
  private readonly commits: GroupCommit;
  private readonly defaultTtl: number;
  private closed = false;
  private readonly reserve: FreeSpaceReserve;
  private readonly failures = new WriteFailureCounts();

  /**
   * Opens (creating if needed, mode 0600) and migrates the database, in the worker; blocks
   * until done. Existing store files readable by others are restricted to 0600 (logged).
   * @throws SwitchboardError `SWB_ERR_STORAGE` naming the file when it is unreadable, corrupt,
   *   locked by another broker, or from a newer schema — the broker must not silently start empty.
   */
  constructor(options: SqliteStoreOptions) {
    this.defaultTtl = options.defaultTtl ?? DEFAULT_STORE_TTL_SECONDS;
    this.filename = options.filename;
    // Messages are private: the file (hence its -wal/-shm) is 0600 before SQLite creates it.
    let restricted: Restricted[];
    try {
      restricted = preparePrivateDbFile(options.filename);
    } catch (err) {
      throw new SwitchboardError(
        'SWB_ERR_STORAGE',
        `Cannot open message store ${options.filename}: ${(err as Error).message}`,
      );
    }
    for (const { path, was } of restricted) {
      options.logger?.warn(
        { file: path, was, now: '600' },
        'message store file was readable by other users; restricted to 0600',
      );
    }
    this.worker = new SqliteWorkerClient(options.filename, options.synchronous ?? 'FULL');
    this.commits = new GroupCommit(this.worker, {
      maxBatchRows: options.maxBatchRows ?? 512,
      commitDelayMs: options.commitDelayMs ?? 0,
      onFailure: (err, ops) => {
        if (err instanceof StoreWriteError) this.reserve.writeFailed(err.sqliteCode, err.message);
        const reason = failureReason(err);
        for (const name of opNames(ops)) {
          const op = WRITE_OP_LABELS[name];
          if (op) this.failures.failed(op, reason);
        }
      },
    });
    const logger = options.logger;
    this.reserve = new FreeSpaceReserve({
      path: dirname(options.filename),
      minFreeBytes: options.minFreeBytes,
      minFreePercent: options.minFreePercent,
      refreshMs: options.freeSpaceRefreshMs,
      onChange: (status) => {
        if (status.refusing_writes)
          logger?.error(status, 'message store refuses new durable copies: out of free space');
        else logger?.warn(status, 'message store accepts new durable copies again');
      },
    });
  }

  /** Whether new durable copies are refused now and why, and the failed writes so far. */
  storageStatus(): StorageStatus {
    return { ...this.reserve.status(), write_failures: this.failures.total };
  }

  /** Takes a fresh free-space reading now (tests; the cached one is at most 1 s old). */
  refreshStorageStatus(): Promise<StorageStatus> {
    return this.reserve
      .refresh(true)
      .then(() => ({ ...this.reserve.status(false), write_failures: this.failures.total }));
  }

  /** Calls `listener` once per failed write (the `tyo_mq_store_write_failures_total` counter). */
  observeWriteFailures(listener: WriteFailureListener): void {
    this.failures.observe(listener);
  }

  /**
   * Online backup to the new file `dest` (absolute; docs/backup.md): a consistent snapshot
   * holding every write issued before the call, mode 0600, fsynced. Copied by a read-only
   * connection on a worker of its own, so commits go on meanwhile.
   * @throws SwitchboardError `SWB_ERR_CONFLICT` (`dest` exists), `SWB_ERR_VALIDATION` (its
   *   directory does not exist), `SWB_ERR_STORAGE` (closed store, copy failed).
   */
  async backup(dest: string): Promise<StoreBackup> {
    if (this.closed) throw closedError();
    this.commits.flush();
    try {
      return { source: this.filename, bytes: await this.worker.backup(dest) };
    } catch (err) {
      if (!(err instanceof StoreWriteError)) throw err;
      throw backupError(`message store ${this.filename}`, dest, err.reason, err.sqliteCode);
    }
  }

  enqueue(realm: string, event: string, input: EnqueueInput): Promise<string> {
    if (this.closed) return Promise.reject(closedError());
    // New copies stop at the reserve, so the writes that drain the store can still commit.
    const refusal = this.reserve.refusal();
    if (refusal !== null) {
      this.failures.failed(StoreWriteOp.ENQUEUE, StoreWriteFailure.REFUSED);
      return Promise.reject(new SwitchboardError('SWB_ERR_STORAGE', refusal));
    }
    const now = Date.now();
    const id = input.id ?? newMessageId();
    // Columns of `Row`, in order.
    const args: OpArgs<'insert'> = [
      id,
      realm,
      event,
      input.consumer ?? '',
      input.payloadJson ?? JSON.stringify(input.payload),
      input.producer ?? null,
      isoString(now),
      expiresAt(input.ttl, this.defaultTtl, now),
      input.attempts ?? 0,
    ];
    return this.queue('insert', args, id);
  }

  dequeue(realm: string, event: string, consumer: string): Promise<StoredEntry[]> {
    return this.read('dequeue', realm, event, consumer, Date.now());
  }

  peekQueue(
    realm: string,
    event: string,
    consumer: string,
    offset: number,
    limit: number,
  ): Promise<StoredEntry[]> {
    return this.read('peekQueue', realm, event, consumer, Date.now(), offset, limit);
  }

  get(msgId: string): Promise<StoredEntry | null> {
    return this.read('get', msgId, Date.now());
  }

  ack(msgId: string): Promise<boolean> {
    return this.write('ack', msgId);
  }

  setAttempts(msgId: string, attempts: number): Promise<boolean> {
    return this.write('setAttempts', msgId, attempts);
  }

  deadLetter(msgId: string, reason: string): Promise<string | null> {
    const now = Date.now();
    return this.write('deadLetter', msgId, reason, new Date(now).toISOString(), now);
  }

  listDlq(realm: string | null): Promise<DlqEntry[]> {
    return this.read('listDlq', realm);
  }

  discardDlq(msgId: string, realm?: string): Promise<boolean> {
    return this.read('discardDlq', msgId, realm);
  }

  replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null> {
    const now = Date.now();
    const expires = expiresAt(undefined, this.defaultTtl, now);
    // Minted here, not in the worker: ids come from one pool per process (message-store.ts).
    return this.read('replayDlq', msgId, realm, expires, now, newMessageId());
  }

  countQueued(realm: string): Promise<number> {
    return this.read('countQueued', realm, Date.now());
  }

  queueDepths(): Promise<QueueCount[]> {
    return this.read('queueDepths');
  }

  dlqDepths(): Promise<Array<{ realm: string; n: number }>> {
    return this.read('dlqDepths');
  }

  purgeExpired(limit: number): Promise<QueueCount[]> {
    return this.write('purgeExpired', Date.now(), limit);
  }

  purgeQueue(realm: string, event: string, consumer: string): Promise<number> {
    return this.write('purgeQueue', realm, event, consumer);
  }

  purgeRealm(realm: string): Promise<number> {
    return this.read('purgeRealm', realm);
  }

  /** One transaction after every queued write (MQTT state included: the same database). */
  renameRealm(
    from: string,
    to: string,
    options: RenameRealmOptions = {},
  ): Promise<RealmRenameCounts | null> {
    const pairs = options.mqttPrefixes?.map(([f, t]): [string, string] => [f, t]) ?? null;
    return this.read('renameRealm', from, to, pairs);
  }

  saveSubscription(sub: PersistedSubscription): Promise<void> {
    const record = JSON.stringify(sub.record);
    const at = new Date().toISOString();
    return this.write('saveSubscription', sub.realm, sub.key, sub.consumer, record, at);
  }

  deleteSubscription(realm: string, key: string, consumer: string): Promise<void> {
    return this.write('deleteSubscription', realm, key, consumer);
  }

  loadSubscriptions(): Promise<PersistedSubscription[]> {
    return this.read('loadSubscriptions');
  }

  /** MQTT sessions and retained messages (migration 5), through the same group commit. */
  readonly mqttState: MqttStateStore = {
    load: () => this.read('mqttLoad'),
    write: (change) => this.write('mqttWrite', change),
  };

  /** The extensions' per-identity state (migration 6), through the same group commit. */
  readonly identityState: IdentityStateStore = {
    load: () => this.read('identityLoad'),
    write: (change) => this.write('identityWrite', change),
  };

  /** Reports each committed write batch's round trip in ms (one call per batch, not per row). */
  observeCommits(listener: (ms: number) => void): void {
    this.commits.onCommitted = listener;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.commits.flush();
    this.closed = true;
    await this.worker.close();
  }

  /** Queues one write for the next group commit; resolves with its result once committed. */
  private write<K extends OpName>(name: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
    return this.queue<K, OpResult<K>>(name, args, undefined);
  }

  /** `write`, resolving with `value` instead of the result when one is given. */
  private queue<K extends OpName, V = OpResult<K>>(
    name: K,
    args: OpArgs<K>,
    value: V | undefined,
  ): Promise<V> {
    if (this.closed) return Promise.reject(closedError());
    return this.commits.queue(name, args, value);
  }

  /**
   * Runs one operation after every queued write (one transaction, so multi-statement reads
   * such as `replayDlq` and `purgeRealm` are atomic).
   */
  private async read<K extends OpName>(name: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
    if (this.closed) throw closedError();
    this.commits.flush();
    const ops: OpBatch = [];
    pushOp(ops, name, args);
    try {
      const [result] = await this.worker.request(ops, true);
      return result as OpResult<K>;
    } catch (err) {
      if (err instanceof StoreWriteError) this.reserve.writeFailed(err.sqliteCode, err.message);
      const op = WRITE_OP_LABELS[name];
      if (op) this.failures.failed(op, failureReason(err));
      throw err;
    }
  }
}

function closedError(): SwitchboardError {
  return new SwitchboardError('SWB_ERR_STORAGE', 'Message store is closed');
}
