/**
 * The named operations of the SQLite message store, executed inside the storage worker
 * (`sqlite-worker.ts`) against the one SQL layer (`sqlite-statements.ts`).
 *
 * The main thread (`SqliteStore`) calls them by name with structured-clonable arguments and
 * gets their structured-clonable results back, so adding a store method is one line here plus
 * the method that calls it. Writes are grouped: the worker runs a batch of operations in one
 * transaction (one commit, one fsync with `synchronous: FULL`).
 */
import type { MessagePort } from 'node:worker_threads';
import type { MqttStateWrite } from './mqtt-state';
import type { SqliteStatements, Row } from './sqlite-statements';

export const SQLITE_OPS = {
  insert: (s: SqliteStatements, row: Row) => {
    s.insert.run(row);
    return row.id;
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
  get: (s: SqliteStatements, id: string, now: number) => s.get(id, now),
  listDlq: (s: SqliteStatements, realm: string | null) => s.listDlq(realm),
  discardDlq: (s: SqliteStatements, id: string, realm?: string) => s.discardDlq(id, realm),
  replayDlq: (
    s: SqliteStatements,
    id: string,
    realm: string | undefined,
    expires: number | null,
    now: number,
  ) => s.replayDlq(id, realm, expires, now),
  countQueued: (s: SqliteStatements, realm: string, now: number) => s.countQueued(realm, now),
  purgeRealm: (s: SqliteStatements, realm: string) => s.purgeRealm(realm),
  loadSubscriptions: (s: SqliteStatements) => s.loadSubscriptions(),
  mqttWrite: (s: SqliteStatements, change: MqttStateWrite) => s.mqtt.write(change),
  mqttLoad: (s: SqliteStatements) => s.mqtt.load(),
} satisfies Record<string, (s: SqliteStatements, ...args: never[]) => unknown>;

export type SqliteOps = typeof SQLITE_OPS;
export type OpName = keyof SqliteOps;
/** The arguments of operation `K`, without the statements. */
export type OpArgs<K extends OpName> =
  Parameters<SqliteOps[K]> extends [SqliteStatements, ...infer A] ? A : never;
export type OpResult<K extends OpName> = ReturnType<SqliteOps[K]>;
/** One operation as it crosses the thread boundary. */
export type OpCall = { [K in OpName]: [K, OpArgs<K>] }[OpName];
/** `[name, args]`, type-checked against the operation's signature. */
export const opCall = <K extends OpName>(name: K, args: OpArgs<K>) =>
  [name, args] as unknown as OpCall;

/** `workerData` of the storage worker. */
export interface WorkerInit {
  filename: string;
  synchronous: 'FULL' | 'NORMAL';
  /** Int32 flag the worker sets to 1 (and notifies) once `port` holds its `OpenReply`. */
  signal: SharedArrayBuffer;
  port: MessagePort;
}
/** How opening went; `busy` when another connection holds the file's exclusive lock. */
export type OpenReply = { ok: true } | { ok: false; message: string; busy: boolean };
/** Main thread → worker: run operations (in one transaction when `tx`), or close. */
export type WorkerRequest =
  { id: number; ops: OpCall[]; tx: boolean } | { id: number; close: true };
/** Worker → main thread: every operation's result, in order, or why the batch failed. */
export type WorkerReply =
  { id: number; ok: true; results: unknown[] } | { id: number; ok: false; message: string };
