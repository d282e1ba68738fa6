/**
 * SQLite message store (better-sqlite3, WAL), with group commit.
 *
 * Source: `spec/protocol-core.md` §16.3 ("SQLite": tables, ordering by rowid, `deadLetter`
 * upserts into `dlq` then deletes) and ARCHITECTURE §4 (an acknowledged write is on disk).
 *
 * Group commit: writes (`enqueue`, `ack`, `deadLetter`) made in one burst are queued and
 * committed together in one transaction — at the end of the current event-loop turn
 * (`commitDelayMs` 0, the default) or after `commitDelayMs`, or as soon as `maxBatchRows`
 * are waiting — and their promises resolve only after that commit. Reads flush first, so they
 * always see every earlier write. With `synchronous: 'FULL'` (default) each commit is fsynced:
 * a resolved write survives power loss. `'NORMAL'` in WAL mode survives a process crash
 * (`kill -9`) but may lose the last commits on power loss; it is faster.
 * A failed commit rolls back the whole batch and rejects every promise in it.
 */
import Database from 'better-sqlite3';
import { SwitchboardError } from '../../shared/error-catalogue';
import {
  DEFAULT_STORE_TTL_SECONDS,
  expiresAt,
  newMessageId,
  type DlqEntry,
  type EnqueueInput,
  type MessageStore,
  type PersistedSubscription,
  type QueueCount,
  type StoredEntry,
} from './message-store';
import { migrate } from './migrate';
import { SqliteStatements, type Row } from './sqlite-statements';

export interface SqliteStoreOptions {
  filename: string;
  /** `FULL` (default) or `NORMAL`; see the module comment for the trade-off. */
  synchronous?: 'FULL' | 'NORMAL';
  /** Seconds; TTL of copies stored without one (default 86,400). */
  defaultTtl?: number;
  /** Most rows committed in one transaction (default 512). */
  maxBatchRows?: number;
  /** Extra wait (ms) before a commit to gather more writes; 0 = end of the turn (default). */
  commitDelayMs?: number;
}

type Op = {
  run: (s: SqliteStatements) => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
};

export class SqliteStore implements MessageStore {
  readonly backend = 'sqlite';
  private readonly db: Database.Database;
  private readonly s: SqliteStatements;
  private readonly defaultTtl: number;
  private readonly maxBatchRows: number;
  private readonly commitDelayMs: number;
  private batch: Op[] = [];
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  private closed = false;

  /**
   * Opens (creating if needed) and migrates the database.
   * @throws SwitchboardError `SWB_ERR_STORAGE` naming the file when it is unreadable, corrupt,
   *   or from a newer schema — the broker must not silently start empty.
   */
  constructor(options: SqliteStoreOptions) {
    this.defaultTtl = options.defaultTtl ?? DEFAULT_STORE_TTL_SECONDS;
    this.maxBatchRows = options.maxBatchRows ?? 512;
    this.commitDelayMs = options.commitDelayMs ?? 0;
    let db: Database.Database | null = null;
    try {
      db = new Database(options.filename);
      // One broker per store: an exclusive lock, which the OS drops if the process dies (so a
      // restart after kill -9 opens at once) and a second broker on the same file cannot take.
      db.pragma('busy_timeout = 1000');
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
      const check = db.pragma('quick_check(1)', { simple: true });
      if (check !== 'ok') throw new Error(`integrity check failed: ${String(check)}`);
      migrate(db);
      this.s = new SqliteStatements(db);
    } catch (err) {
      db?.close();
      const reason =
        (err as { code?: string }).code === 'SQLITE_BUSY'
          ? 'it is in use by another broker process'
          : (err as Error).message;
      throw new SwitchboardError(
        'SWB_ERR_STORAGE',
        `Cannot open message store ${options.filename}: ${reason}`,
      );
    }
    this.db = db;
  }

  enqueue(realm: string, event: string, input: EnqueueInput): Promise<string> {
    const now = Date.now();
    const id = input.id ?? newMessageId();
    const row: Row = {
      id,
      realm,
      event,
      consumer: input.consumer ?? '',
      payload: JSON.stringify(input.payload),
      producer: input.producer ?? null,
      created_at: new Date(now).toISOString(),
      expires_at: expiresAt(input.ttl, this.defaultTtl, now),
      attempts: input.attempts ?? 0,
    };
    return this.write((s) => {
      s.insert.run(row);
      return id;
    });
  }

  async dequeue(realm: string, event: string, consumer: string): Promise<StoredEntry[]> {
    this.flushNow();
    return this.s.dequeue(realm, event, consumer, Date.now());
  }

  async get(msgId: string): Promise<StoredEntry | null> {
    this.flushNow();
    return this.s.get(msgId, Date.now());
  }

  ack(msgId: string): Promise<boolean> {
    return this.write((s) => s.delete.run(msgId).changes > 0);
  }

  setAttempts(msgId: string, attempts: number): Promise<boolean> {
    return this.write((s) => s.setAttempts.run(attempts, msgId).changes > 0);
  }

  deadLetter(msgId: string, reason: string): Promise<string | null> {
    const now = Date.now();
    const at = new Date(now).toISOString();
    return this.write((s) => (s.deadLetter(msgId, reason, at, now) ? msgId : null));
  }

  async listDlq(realm: string | null): Promise<DlqEntry[]> {
    this.flushNow();
    return this.s.listDlq(realm);
  }

  async discardDlq(msgId: string, realm?: string): Promise<boolean> {
    this.flushNow();
    return this.s.discardDlq(msgId, realm);
  }

  async replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null> {
    this.flushNow();
    const now = Date.now();
    const expires = expiresAt(undefined, this.defaultTtl, now);
    return this.db.transaction(() => this.s.replayDlq(msgId, realm, expires, now))();
  }

  async countQueued(realm: string): Promise<number> {
    this.flushNow();
    return this.s.countQueued(realm, Date.now());
  }

  async queueDepths(): Promise<QueueCount[]> {
    this.flushNow();
    return this.s.queueDepths();
  }

  purgeExpired(limit: number): Promise<QueueCount[]> {
    const now = Date.now();
    return this.write((s) => s.purgeExpired(now, limit));
  }

  purgeQueue(realm: string, event: string, consumer: string): Promise<number> {
    return this.write((s) => s.purgeQueue(realm, event, consumer));
  }

  async purgeRealm(realm: string): Promise<number> {
    this.flushNow();
    return this.db.transaction(() => this.s.purgeRealm(realm))();
  }

  saveSubscription(sub: PersistedSubscription): Promise<void> {
    const record = JSON.stringify(sub.record);
    const at = new Date().toISOString();
    return this.write((s) => {
      s.saveSubscription.run(sub.realm, sub.key, sub.consumer, record, at);
    });
  }

  deleteSubscription(realm: string, key: string, consumer: string): Promise<void> {
    return this.write((s) => {
      s.deleteSubscription.run(realm, key, consumer);
    });
  }

  async loadSubscriptions(): Promise<PersistedSubscription[]> {
    this.flushNow();
    return this.s.loadSubscriptions();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flushNow();
    this.closed = true;
    this.db.close();
  }

  /** Queues one write for the next group commit. */
  private write<T>(run: (s: SqliteStatements) => T): Promise<T> {
    if (this.closed) {
      return Promise.reject(new SwitchboardError('SWB_ERR_STORAGE', 'Message store is closed'));
    }
    return new Promise<T>((resolve, reject) => {
      this.batch.push({ run, resolve: resolve as (v: unknown) => void, reject });
      if (this.batch.length >= this.maxBatchRows) this.flushNow();
      else if (this.scheduled === null) {
        this.scheduled =
          this.commitDelayMs > 0
            ? setTimeout(() => this.flushNow(), this.commitDelayMs)
            : setImmediate(() => this.flushNow());
      }
    });
  }

  /** Commits every queued write in one transaction, then settles their promises. */
  private flushNow(): void {
    if (this.scheduled !== null) {
      clearTimeout(this.scheduled as NodeJS.Timeout);
      clearImmediate(this.scheduled as NodeJS.Immediate);
      this.scheduled = null;
    }
    if (this.batch.length === 0 || this.closed) return;
    const ops = this.batch;
    this.batch = [];
    let results: unknown[];
    try {
      results = this.db.transaction(() => ops.map((op) => op.run(this.s)))();
    } catch (err) {
      const failure = new SwitchboardError(
        'SWB_ERR_STORAGE',
        `Message store write failed: ${(err as Error).message}`,
      );
      for (const op of ops) op.reject(failure);
      return;
    }
    ops.forEach((op, i) => op.resolve(results[i]));
  }
}
