/**
 * Failed message-store writes (issue 23 item 2): what the `tyo_mq_store_write_failures_total`
 * counter (`broker/metrics/store-metrics.ts`) and `/api/stats` `storage.write_failures` count.
 *
 * A write is one store call that changes data — a copy stored, an ACK's delete, an attempt
 * count, a DLQ move, a subscription saved… — and it failed when its promise rejected: the
 * commit failed (one failed group commit fails every write in it, each counted), the storage
 * worker or the Redis connection was gone, or the free-space reserve refused a new copy before
 * it reached the disk. Reads that fail are not counted. Labels are fixed words, never
 * client input.
 */
import { isOutOfSpace } from './free-space-reserve';

/** `op` label: which kind of write failed. */
export const StoreWriteOp = {
  ENQUEUE: 'enqueue',
  ACK: 'ack',
  SET_ATTEMPTS: 'set_attempts',
  DEAD_LETTER: 'dead_letter',
  DLQ_DISCARD: 'dlq_discard',
  DLQ_REPLAY: 'dlq_replay',
  PURGE_EXPIRED: 'purge_expired',
  PURGE_QUEUE: 'purge_queue',
  PURGE_REALM: 'purge_realm',
  RENAME_REALM: 'rename_realm',
  SAVE_SUBSCRIPTION: 'save_subscription',
  DELETE_SUBSCRIPTION: 'delete_subscription',
  MQTT_WRITE: 'mqtt_write',
  IDENTITY_WRITE: 'identity_write',
} as const;
export type StoreWriteOpValue = (typeof StoreWriteOp)[keyof typeof StoreWriteOp];

/** `reason` label: why it failed. */
export const StoreWriteFailure = {
  /** Refused before reaching the disk: free space below the reserve, or the store was full. */
  REFUSED: 'refused',
  /** The disk or the database ran out of space (`SQLITE_FULL`, `ENOSPC`). */
  STORE_FULL: 'store_full',
  /** Any other failure: an I/O error, a dead storage worker, Redis unreachable, store closed. */
  ERROR: 'error',
} as const;
export type StoreWriteFailureValue = (typeof StoreWriteFailure)[keyof typeof StoreWriteFailure];

/** Told once per failed write. */
export type WriteFailureListener = (op: StoreWriteOpValue, reason: StoreWriteFailureValue) => void;

/** The `reason` of a rejected write: out of space, or any other error. */
export function failureReason(err: unknown): StoreWriteFailureValue {
  // `StoreWriteError.sqliteCode` (the SQLite store); other stores' errors say it in words.
  const code = (err as { sqliteCode?: unknown } | null)?.sqliteCode;
  const message = err instanceof Error ? err.message : undefined;
  return isOutOfSpace(typeof code === 'string' ? code : undefined, message)
    ? StoreWriteFailure.STORE_FULL
    : StoreWriteFailure.ERROR;
}

/** A store's count of failed writes, and the listener it tells (the metric). */
export class WriteFailureCounts {
  private count = 0;
  private listener: WriteFailureListener | null = null;

  /** Failed writes since the store opened. */
  get total(): number {
    return this.count;
  }

  observe(listener: WriteFailureListener): void {
    this.listener = listener;
  }

  failed(op: StoreWriteOpValue, reason: StoreWriteFailureValue): void {
    this.count++;
    this.listener?.(op, reason);
  }

  /** Counts a write of `op` that rejected with `err`, then rethrows it (`.catch` helper). */
  rethrow(op: StoreWriteOpValue): (err: unknown) => never {
    return (err: unknown) => {
      this.failed(op, failureReason(err));
      throw err;
    };
  }
}
