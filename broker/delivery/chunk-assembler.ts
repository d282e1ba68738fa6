/**
 * Reassembly of chunked `PRODUCE`s (`PRODUCE_CHUNK`), hardened.
 *
 * Source: `spec/protocol-core.md` §14.1 and Note 14-A: transfers are keyed by
 * `(socket id, transferId)`; chunks may come in any order; `total` is fixed by the first
 * chunk; repeated indexes are ignored; a socket holds a bounded number of partial transfers,
 * each bounded in length and dropped after an idle timeout; all are freed on disconnect.
 * Slices are joined before parsing, so a surrogate pair split across chunks survives.
 */

export interface ChunkLimits {
  /** Longest reassembled text, in UTF-16 code units. */
  maxLength: number;
  /** Partial transfers one socket may hold at once. */
  maxPartialPerSocket: number;
  /** A partial transfer idle this long (ms) is dropped. */
  idleTimeoutMs: number;
}

export type ChunkResult =
  | { status: 'partial' }
  | { status: 'complete'; text: string }
  | { status: 'rejected'; reason: string };

interface Transfer {
  total: number;
  parts: Array<string | undefined>;
  received: number;
  length: number;
  timer: NodeJS.Timeout;
}

export class ChunkAssembler {
  private readonly bySocket = new Map<string, Map<string, Transfer>>();

  constructor(
    private readonly limits: ChunkLimits,
    private readonly onExpire: (socketId: string, transferId: string) => void = () => {},
  ) {}

  /** Adds one chunk; returns the whole text once every index has arrived. */
  add(
    socketId: string,
    chunk: { transferId: string; index: number; total: number; data: string },
  ): ChunkResult {
    let transfers = this.bySocket.get(socketId);
    let transfer = transfers?.get(chunk.transferId);
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
        timer: this.timer(socketId, chunk.transferId),
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
    if (transfer.parts[chunk.index] !== undefined) return { status: 'partial' };
    transfer.length += chunk.data.length;
    if (transfer.length > this.limits.maxLength) {
      this.remove(socketId, chunk.transferId);
      return {
        status: 'rejected',
        reason: `Chunked message exceeds ${this.limits.maxLength} characters`,
      };
    }
    transfer.parts[chunk.index] = chunk.data;
    transfer.received++;
    transfer.timer.refresh();
    if (transfer.received < transfer.total) return { status: 'partial' };
    this.remove(socketId, chunk.transferId);
    return { status: 'complete', text: transfer.parts.join('') };
  }

  /** Frees every partial transfer of a socket (disconnect, §15 step 1). */
  dropSocket(socketId: string): void {
    const transfers = this.bySocket.get(socketId);
    if (!transfers) return;
    for (const t of transfers.values()) clearTimeout(t.timer);
    this.bySocket.delete(socketId);
  }

  close(): void {
    for (const id of [...this.bySocket.keys()]) this.dropSocket(id);
  }

  private timer(socketId: string, transferId: string): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.remove(socketId, transferId);
      this.onExpire(socketId, transferId);
    }, this.limits.idleTimeoutMs);
    t.unref();
    return t;
  }

  private remove(socketId: string, transferId: string): void {
    const transfers = this.bySocket.get(socketId);
    const t = transfers?.get(transferId);
    if (!transfers || !t) return;
    clearTimeout(t.timer);
    transfers.delete(transferId);
    if (transfers.size === 0) this.bySocket.delete(socketId);
  }
}
