/**
 * Joins the `CONSUME_CHUNK` frames of a tap's large deliveries back into envelopes.
 *
 * The broker sends a delivery whose JSON text is longer than 262,144 code units as frames
 * `{transferId, event, index, total, data}` instead of one `CONSUME-<key>` event
 * (`spec/protocol-core.md` §14.2); a tap that listened only to `CONSUME-<key>` lost every such
 * message without counting it. Frames of one transfer are emitted back to back, so at most a few
 * transfers are open at once; the joiner still caps them (`MAX_OPEN_TRANSFERS`, oldest dropped)
 * so a broker that never finishes one cannot grow the console's memory.
 */
import type { ConsumeChunkFrame } from '../../shared/protocol-events';

/** Transfers being joined at once; a new one beyond this drops the oldest. */
export const MAX_OPEN_TRANSFERS = 4;

/** A finished transfer: the envelope's JSON text (parsed by the caller only when it is shown). */
export interface JoinedDelivery {
  text: string;
}

interface OpenTransfer {
  parts: string[];
  seen: number;
}

export class TapChunkJoiner {
  private readonly open = new Map<string, OpenTransfer>();

  /** @param eventName the tap's `CONSUME-<key>`: frames of other events are ignored. */
  constructor(private readonly eventName: string) {}

  /**
   * Takes one frame; returns the joined delivery when this frame completes its transfer, else
   * null. Malformed frames and frames of other events are ignored (null).
   */
  add(frame: ConsumeChunkFrame): JoinedDelivery | null {
    if (!frame || frame.event !== this.eventName || typeof frame.transferId !== 'string') {
      return null;
    }
    const { index, total, data } = frame;
    if (
      !Number.isInteger(total) ||
      total < 1 ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= total ||
      typeof data !== 'string'
    ) {
      return null;
    }
    let transfer = this.open.get(frame.transferId);
    if (!transfer) {
      if (this.open.size >= MAX_OPEN_TRANSFERS) {
        const oldest = this.open.keys().next().value as string;
        this.open.delete(oldest);
      }
      transfer = { parts: new Array<string>(total), seen: 0 };
      this.open.set(frame.transferId, transfer);
    }
    if (transfer.parts[index] !== undefined) return null;
    transfer.parts[index] = data;
    transfer.seen += 1;
    if (transfer.seen < transfer.parts.length) return null;
    this.open.delete(frame.transferId);
    return { text: transfer.parts.join('') };
  }

  /** Forgets every open transfer (the tap stopped). */
  clear(): void {
    this.open.clear();
  }
}
