/**
 * The free-space reserve of a store on a local filesystem (issue 21 item 5): a low-water mark on
 * the data directory's filesystem below which the store refuses **new** durable copies, so that
 * the writes that drain it (ACK deletes, attempt counts, DLQ moves — each needs WAL space) can
 * still commit. Without it a full disk wedges the store: ACKs fail, consumers cannot drain it,
 * and space an operator frees is taken at once by new copies.
 *
 * Cheap by design: `refusal()` reads a cached `fs.statfs` reading (no syscall per message) and,
 * when the reading is older than `refreshMs` (1 s), starts one asynchronous refresh. A write
 * that failed for lack of space (`SQLITE_FULL`, `ENOSPC`) flips the store into the refusing
 * state at once (`reason: 'store_full'`) and forces a refresh; that state clears only once a
 * reading taken after the failure shows free space above the reserve.
 */
import { statfs } from 'node:fs/promises';
import type { StorageStatus } from '../../shared/http-api';

/** Default reserve: the smaller of 256 MiB and 5 % of the filesystem (docs/configuration.md). */
export const DEFAULT_MIN_FREE_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MIN_FREE_PERCENT = 5;
/** Longest age (ms) of the cached free-space reading. */
export const FREE_SPACE_REFRESH_MS = 1_000;

export interface FreeSpaceReserveOptions {
  /** A path on the filesystem to watch (the database file's directory). */
  path: string;
  /** Bytes; see `reserveBytes`. */
  minFreeBytes?: number;
  /** Percent of the filesystem's size; see `reserveBytes`. */
  minFreePercent?: number;
  refreshMs?: number;
  /** Told when the refusing state starts or ends (for a log line). */
  onChange?: (status: StorageStatus) => void;
}

interface Reading {
  /** Bytes available to the broker's user (`bavail × bsize`). */
  free: number;
  total: number;
  /** `performance.now()` when the reading was started. */
  at: number;
}

/**
 * The reserve in bytes for a filesystem of `total` bytes: neither option given → the smaller of
 * the defaults; one given → that one; both → the smaller. 0 turns the reserve off.
 */
export function reserveBytes(
  total: number,
  minFreeBytes: number | undefined,
  minFreePercent: number | undefined,
): number {
  const percent = (p: number) => Math.floor((total * p) / 100);
  if (minFreeBytes === undefined && minFreePercent === undefined)
    return Math.min(DEFAULT_MIN_FREE_BYTES, percent(DEFAULT_MIN_FREE_PERCENT));
  if (minFreeBytes === undefined) return percent(minFreePercent!);
  if (minFreePercent === undefined) return minFreeBytes;
  return Math.min(minFreeBytes, percent(minFreePercent));
}

/** Whether a store error says the disk (or the database) is out of space. */
export function isOutOfSpace(code: string | undefined, message: string | undefined): boolean {
  return (
    code === 'SQLITE_FULL' ||
    code === 'ENOSPC' ||
    (message !== undefined && /database or disk is full|ENOSPC|no space left/i.test(message))
  );
}

export class FreeSpaceReserve {
  private readonly path: string;
  private readonly minFreeBytes: number | undefined;
  private readonly minFreePercent: number | undefined;
  private readonly refreshMs: number;
  private readonly onChange: ((status: StorageStatus) => void) | undefined;
  private reading: Reading | null = null;
  private refreshing: Promise<void> | null = null;
  /** `performance.now()` of the last out-of-space write error not yet cleared, else null. */
  private fullAt: number | null = null;
  private fullMessage = '';
  private lastError: string | null = null;
  private wasRefusing = false;

  constructor(options: FreeSpaceReserveOptions) {
    this.path = options.path;
    this.minFreeBytes = options.minFreeBytes;
    this.minFreePercent = options.minFreePercent;
    this.refreshMs = options.refreshMs ?? FREE_SPACE_REFRESH_MS;
    this.onChange = options.onChange;
    void this.refresh();
  }

  /**
   * Null when a new durable copy may be written, else why not (the `SWB_ERR_STORAGE` message).
   * Per message: a comparison on the cached reading, and a refresh started when it is stale.
   */
  refusal(): string | null {
    this.refreshIfStale();
    const status = this.status(false);
    if (!status.refusing_writes) return null;
    return status.reason === 'store_full'
      ? `Message store is full (${this.fullMessage}); new durable copies are refused until space is freed`
      : `Free space on the store's filesystem (${status.free_bytes} bytes) is below its reserve ` +
          `(${status.reserve_bytes} bytes); new durable copies are refused`;
  }

  /** A write failed: when for lack of space, refuse new copies now and re-read the free space. */
  writeFailed(code: string | undefined, message: string): void {
    if (!isOutOfSpace(code, message)) return;
    this.fullAt = performance.now();
    this.fullMessage = message;
    this.notify();
    void this.refresh(true);
  }

  /** The state for `/api/stats` and the metric; starts a refresh when the reading is stale. */
  status(refresh = true): StorageStatus {
    if (refresh) this.refreshIfStale();
    const r = this.reading;
    const reserve = r ? reserveBytes(r.total, this.minFreeBytes, this.minFreePercent) : null;
    const low = r !== null && reserve !== null && reserve > 0 && r.free < reserve;
    const full = this.fullAt !== null;
    return {
      refusing_writes: full || low,
      reason: full ? 'store_full' : low ? 'low_free_space' : null,
      free_bytes: r?.free ?? null,
      total_bytes: r?.total ?? null,
      reserve_bytes: reserve,
      path: this.path,
      ...(this.lastError !== null ? { error: this.lastError } : {}),
    };
  }

  /** Resolves once a reading started now has been taken (tests, start-up). */
  refresh(force = false): Promise<void> {
    if (this.refreshing && !force) return this.refreshing;
    const at = performance.now();
    const done = statfs(this.path).then(
      (s) => {
        // A later reading may have landed first (a forced one): keep the newest.
        if (this.reading && this.reading.at > at) return;
        this.lastError = null;
        this.reading = { free: s.bavail * s.bsize, total: s.blocks * s.bsize, at };
        // An out-of-space error clears only on a reading taken after it, above the reserve.
        if (this.fullAt !== null && at > this.fullAt) {
          const reserve = reserveBytes(this.reading.total, this.minFreeBytes, this.minFreePercent);
          if (this.reading.free > reserve) this.fullAt = null;
        }
      },
      (err: unknown) => {
        // Unreadable (the directory vanished?): keep the last reading, report why.
        this.lastError = (err as Error).message;
      },
    );
    const tracked = done.finally(() => {
      if (this.refreshing === tracked) this.refreshing = null;
      this.notify();
    });
    this.refreshing = tracked;
    return tracked;
  }

  private refreshIfStale(): void {
    if (this.refreshing) return;
    if (this.reading === null || performance.now() - this.reading.at >= this.refreshMs)
      void this.refresh();
  }

  private notify(): void {
    const status = this.status(false);
    if (status.refusing_writes === this.wasRefusing) return;
    this.wasRefusing = status.refusing_writes;
    this.onChange?.(status);
  }
}
