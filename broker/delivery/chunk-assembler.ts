/**
 * Reassembly of chunked `PRODUCE`s (`PRODUCE_CHUNK`), hardened.
 *
 * Source: `spec/protocol-core.md` §14.1 and Note 14-A: transfers are keyed by
 * `(socket id, transferId)`; chunks may come in any order; `total` is fixed by the first
 * chunk; repeated indexes are ignored; a socket holds a bounded number of partial transfers,
 * each bounded in length; all are freed on disconnect. Slices are joined before parsing, so a
 * surrogate pair split across chunks survives.
 *
 * Memory is bounded broker-wide, not only per socket (issue 8 item 2): every partial transfer
 * counts against one budget of bytes held (2 bytes per UTF-16 code unit, the worst case of a V8
 * string), and a transfer is dropped when it goes idle or when its deadline — counted from its
 * first chunk, so a trickle of chunks cannot extend it — passes.
 */
import { MAX_TIMER_DELAY_MS } from '../../shared/duration';

export interface ChunkLimits {
  /** Longest reassembled text, in UTF-16 code units. */
  maxLength: number;
  /** Partial transfers one socket may hold at once. */
  maxPartialPerSocket: number;
  /** A partial transfer idle this long (ms) is dropped. */
  idleTimeoutMs: number;
  /** A partial transfer not complete this long (ms) after its first chunk is dropped. */
  deadlineMs: number;
  /** Bytes all partial transfers of the broker may hold together (2 per code unit). */
  maxHeldBytes: number;
}

export type ChunkResult =
  | { status: 'partial' }
  | { status: 'complete'; text: string }
  | { status: 'rejected'; reason: string };

/** Why a partial transfer was dropped by a timer. */
export type ExpiryReason = 'idle' | 'deadline';

interface Transfer {
  total: number;
  parts: Array<string | undefined>;
  received: number;
  /** Code units held. */
  length: number;
  /** Epoch ms of the first chunk. */
  startedAt: number;
  timer: NodeJS.Timeout;
}

const BYTES_PER_CODE_UNIT = 2;

export class ChunkAssembler {
  private readonly bySocket = new Map<string, Map<string, Transfer>>();
  private held = 0;

  constructor(
    private readonly limits: ChunkLimits,
    private readonly onExpire: (
      socketId: string,
      transferId: string,
      reason: ExpiryReason,
    ) => void = () => {},
  ) {}

  /** Bytes held by partial transfers now (2 per code unit). */
  get heldBytes(): number {
    return this.held * BYTES_PER_CODE_UNIT;
  }

  /** Partial transfers held now, over all sockets. */
  get partialTransfers(): number {
    let n = 0;
    for (const t of this.bySocket.values()) n += t.size;
    return n;
  }

  /** Adds one chunk; returns the whole text once every index has arrived. */
  add(
    socketId: string,
    chunk: { transferId: string; index: number; total: number; data: string },
  ): ChunkResult {
    let transfers = this.bySocket.get(socketId);
    let transfer = transfers?.get(chunk.transferId);
    const now = Date.now();
    if (!transfer) {
      transfers ??= new Map();
      if (transfers.size >= this.limits.maxPartialPerSocket) {
        return {
          status: 'rejected',
          reason: `Too many partial chunked messages on this connection (limit ${this.limits.maxPartialPerSocket})`,
        };
      }
      transfer = {
        total: chunk.total,
        parts: new Array<string | undefined>(chunk.total),
        received: 0,
        length: 0,
        startedAt: now,
        timer: this.timer(socketId, chunk.transferId, this.limits.idleTimeoutMs, 'idle'),
      };
      transfers.set(chunk.transferId, transfer);
      this.bySocket.set(socketId, transfers);
    }
    if (chunk.total !== transfer.total || chunk.index >= transfer.total) {
      return {
        status: 'rejected',
        reason: `Chunk index/total do not match transfer ${chunk.transferId}`,
      };
    }
    if (now - transfer.startedAt >= this.limits.deadlineMs) {
      this.remove(socketId, chunk.transferId);
      return { status: 'rejected', reason: this.deadlineReason(chunk.transferId) };
    }
    if (transfer.parts[chunk.index] !== undefined) return { status: 'partial' };
    if (transfer.length + chunk.data.length > this.limits.maxLength) {
      this.remove(socketId, chunk.transferId);
      return {
        status: 'rejected',
        reason: `Chunked message exceeds ${this.limits.maxLength} characters`,
      };
    }
    if ((this.held + chunk.data.length) * BYTES_PER_CODE_UNIT > this.limits.maxHeldBytes) {
      // The newcomer gives way: the transfers already held are not punished for it.
      this.remove(socketId, chunk.transferId);
      return {
        status: 'rejected',
        reason: `Broker is holding its limit of ${this.limits.maxHeldBytes} bytes of partial chunked messages; retry later`,
      };
    }
    transfer.length += chunk.data.length;
    this.held += chunk.data.length;
    transfer.parts[chunk.index] = chunk.data;
    transfer.received++;
    if (transfer.received < transfer.total) {
      clearTimeout(transfer.timer);
      const untilDeadline = transfer.startedAt + this.limits.deadlineMs - now;
      transfer.timer =
        untilDeadline <= this.limits.idleTimeoutMs
          ? this.timer(socketId, chunk.transferId, untilDeadline, 'deadline')
          : this.timer(socketId, chunk.transferId, this.limits.idleTimeoutMs, 'idle');
      return { status: 'partial' };
    }
    this.remove(socketId, chunk.transferId);
    return { status: 'complete', text: transfer.parts.join('') };
  }

  /** The message refusing a transfer past its deadline (also used by expiry notices). */
  deadlineReason(transferId: string): string {
    return `Chunked message ${transferId} not complete within ${this.limits.deadlineMs} ms`;
  }

  /** Frees every partial transfer of a socket (disconnect, §15 step 1). */
  dropSocket(socketId: string): void {
    const transfers = this.bySocket.get(socketId);
    if (!transfers) return;
    for (const t of transfers.values()) {
      clearTimeout(t.timer);
      this.held -= t.length;
    }
    this.bySocket.delete(socketId);
  }

  close(): void {
    for (const id of [...this.bySocket.keys()]) this.dropSocket(id);
  }

  private timer(
    socketId: string,
    transferId: string,
    delayMs: number,
    reason: ExpiryReason,
  ): NodeJS.Timeout {
    const t = setTimeout(
      () => {
        this.remove(socketId, transferId);
        this.onExpire(socketId, transferId, reason);
      },
      Math.min(Math.max(delayMs, 0), MAX_TIMER_DELAY_MS),
    );
    t.unref();
    return t;
  }

  private remove(socketId: string, transferId: string): void {
    const transfers = this.bySocket.get(socketId);
    const t = transfers?.get(transferId);
    if (!transfers || !t) return;
    clearTimeout(t.timer);
    this.held -= t.length;
    transfers.delete(transferId);
    if (transfers.size === 0) this.bySocket.delete(socketId);
  }
}
