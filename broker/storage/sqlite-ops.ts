/**
 * The named operations of the SQLite message store, executed inside the storage worker
 * (`sqlite-worker.ts`) against the one SQL layer (`sqlite-statements.ts`).
 *
 * The main thread (`SqliteStore`) calls them by name with structured-clonable arguments and
 * gets their structured-clonable results back, so adding a store method is one line here plus
 * the method that calls it. Writes are grouped: the worker runs a batch of operations in one
 * transaction (one commit, one fsync with `synchronous: FULL`).
 *
 * Hand-off cost: a batch crosses the thread boundary as ONE flat array of primitives
 * (`[name, argc, ...args, name, argc, ...args]`, see `OpBatch`) rather than one object per
 * operation, and a write answers with a primitive (an insert with `true`, not its id, which
 * the caller already has): structured cloning is per value, so nested arrays and objects (each
 * repeating its keys) cost the event loop several times more per message.
 */
import type { MessagePort } from 'node:worker_threads';
import type { IdentityStateWrite } from './identity-state';
import type { MqttStateWrite } from './mqtt-state';
import type { Row, SqliteStatements } from './sqlite-statements';
import { StoreWriteOp, type StoreWriteOpValue } from './store-write-failures';

export const SQLITE_OPS = {
  /** Arguments in `Row` column order (see `rowArgs`); true once inserted. */
  insert: (
    s: SqliteStatements,
    id: string,
    realm: string,
    event: string,
    consumer: string,
    payload: string,
    producer: string | null,
    created_at: string,
    expires_at: number | null,
    attempts: number,
  ) => {
    s.insert.run({
      id,
      realm,
      event,
      consumer,
      payload,
      producer,
      created_at,
      expires_at,
      attempts,
    } satisfies Row);
    return true;
  },
  ack: (s: SqliteStatements, id: string) => s.delete.run(id).changes > 0,
  setAttempts: (s: SqliteStatements, id: string, attempts: number) =>
    s.setAttempts.run(attempts, id).changes > 0,
  deadLetter: (s: SqliteStatements, id: string, reason: string, at: string, now: number) =>
    s.deadLetter(id, reason, at, now) ? id : null,
  purgeExpired: (s: SqliteStatements, now: number, limit: number) => s.purgeExpired(now, limit),
  purgeQueue: (s: SqliteStatements, realm: string, event: string, consumer: string) =>
    s.purgeQueue(realm, event, consumer),
  queueDepths: (s: SqliteStatements) => s.queueDepths(),
  dlqDepths: (s: SqliteStatements) => s.dlqDepths(),
  saveSubscription: (
    s: SqliteStatements,
    realm: string,
    key: string,
    consumer: string,
    record: string,
    at: string,
  ) => {
    s.saveSubscription.run(realm, key, consumer, record, at);
  },
  deleteSubscription: (s: SqliteStatements, realm: string, key: string, consumer: string) => {
    s.deleteSubscription.run(realm, key, consumer);
  },
  dequeue: (s: SqliteStatements, realm: string, event: string, consumer: string, now: number) =>
    s.dequeue(realm, event, consumer, now),
  peekQueue: (
    s: SqliteStatements,
    realm: string,
    event: string,
    consumer: string,
    now: number,
    offset: number,
    limit: number,
  ) => s.peekQueue(realm, event, consumer, now, offset, limit),
  get: (s: SqliteStatements, id: string, now: number) => s.get(id, now),
  listDlq: (s: SqliteStatements, realm: string | null) => s.listDlq(realm),
  discardDlq: (s: SqliteStatements, id: string, realm?: string) => s.discardDlq(id, realm),
  replayDlq: (
    s: SqliteStatements,
    id: string,
    realm: string | undefined,
    expires: number | null,
    now: number,
    newId: string,
  ) => s.replayDlq(id, realm, expires, now, newId),
  countQueued: (s: SqliteStatements, realm: string, now: number) => s.countQueued(realm, now),
  purgeRealm: (s: SqliteStatements, realm: string) => s.purgeRealm(realm),
  renameRealm: (
    s: SqliteStatements,
    from: string,
    to: string,
    mqttPrefixes: Array<[string, string]> | null,
  ) => s.renameRealm(from, to, mqttPrefixes ?? undefined),
  loadSubscriptions: (s: SqliteStatements) => s.loadSubscriptions(),
  mqttWrite: (s: SqliteStatements, change: MqttStateWrite) => s.mqtt.write(change),
  mqttLoad: (s: SqliteStatements) => s.mqtt.load(),
  identityWrite: (s: SqliteStatements, change: IdentityStateWrite) => s.identities.write(change),
  identityLoad: (s: SqliteStatements) => s.identities.load(),
} satisfies Record<string, (s: SqliteStatements, ...args: never[]) => unknown>;

export type SqliteOps = typeof SQLITE_OPS;
export type OpName = keyof SqliteOps;
/** The arguments of operation `K`, without the statements. */
export type OpArgs<K extends OpName> =
  Parameters<SqliteOps[K]> extends [SqliteStatements, ...infer A] ? A : never;
export type OpResult<K extends OpName> = ReturnType<SqliteOps[K]>;
/**
 * Operations as they cross the thread boundary: for each, its name, its argument count, then
 * its arguments (`[name, argc, ...args, name, argc, ...args]`).
 */
export type OpBatch = unknown[];

/** The `op` label of every operation that writes (`store-write-failures.ts`); reads are absent. */
export const WRITE_OP_LABELS: Partial<Record<OpName, StoreWriteOpValue>> = {
  insert: StoreWriteOp.ENQUEUE,
  ack: StoreWriteOp.ACK,
  setAttempts: StoreWriteOp.SET_ATTEMPTS,
  deadLetter: StoreWriteOp.DEAD_LETTER,
  discardDlq: StoreWriteOp.DLQ_DISCARD,
  replayDlq: StoreWriteOp.DLQ_REPLAY,
  purgeExpired: StoreWriteOp.PURGE_EXPIRED,
  purgeQueue: StoreWriteOp.PURGE_QUEUE,
  purgeRealm: StoreWriteOp.PURGE_REALM,
  renameRealm: StoreWriteOp.RENAME_REALM,
  saveSubscription: StoreWriteOp.SAVE_SUBSCRIPTION,
  deleteSubscription: StoreWriteOp.DELETE_SUBSCRIPTION,
  mqttWrite: StoreWriteOp.MQTT_WRITE,
  identityWrite: StoreWriteOp.IDENTITY_WRITE,
};

/** The names of `batch`'s operations, in order (walks the flat layout; failure paths only). */
export function opNames(batch: OpBatch): OpName[] {
  const names: OpName[] = [];
  for (let i = 0; i < batch.length; i += 2 + (batch[i + 1] as number)) {
    names.push(batch[i] as OpName);
  }
  return names;
}

/** Appends operation `name(...args)` to `batch`, type-checked against its signature. */
export function pushOp<K extends OpName>(batch: OpBatch, name: K, args: OpArgs<K>): void {
  batch.push(name, args.length);
  for (let i = 0; i < args.length; i++) batch.push(args[i]);
}

/** Runs every operation of `batch` in order through `run`; returns their results. */
export function runOps(batch: OpBatch, run: (name: OpName, args: unknown[]) => unknown): unknown[] {
  const results: unknown[] = [];
  for (let i = 0; i < batch.length;) {
    const name = batch[i] as OpName;
    const argc = batch[i + 1] as number;
    results.push(run(name, batch.slice(i + 2, i + 2 + argc)));
    i += 2 + argc;
  }
  return results;
}

/** `workerData` of the storage worker. */
export interface WorkerInit {
  filename: string;
  synchronous: 'FULL' | 'NORMAL';
  /** Int32 flag the worker sets to 1 (and notifies) once `port` holds its `OpenReply`. */
  signal: SharedArrayBuffer;
  port: MessagePort;
}
/** `workerData` of a backup worker: copy `filename` to the new file `backup` (sqlite-backup.ts). */
export interface BackupInit {
  filename: string;
  backup: string;
}
/** How opening went; `busy` when another connection holds the file's exclusive lock. */
export type OpenReply = { ok: true } | { ok: false; message: string; busy: boolean };
/** Main thread → worker: run operations (in one transaction when `tx`), or close. */
export type WorkerRequest = { id: number; ops: OpBatch; tx: boolean } | { id: number; close: true };
/**
 * Worker → main thread: every operation's result, in order, or why the batch failed. A backup
 * worker sends one, id 0, whose result is the copy's size in bytes.
 */
export type WorkerReply =
  | { id: number; ok: true; results: unknown[] }
  /** `code`: SQLite's or the OS's error code (`SQLITE_FULL`, `ENOSPC`…) when there is one. */
  | { id: number; ok: false; message: string; code?: string };
