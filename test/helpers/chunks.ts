/**
 * Chunked transfer helpers (spec §14): send a `PRODUCE` as `PRODUCE_CHUNK` frames, and reassemble
 * `CONSUME_CHUNK` frames the way the stock clients do (join the strings, *then* parse: Note 14-A).
 */
import type { Socket } from 'socket.io-client';
import { ClientEvent, ServerEvent, type ConsumeChunkFrame } from '../../shared/protocol-events';
import type { Harness } from './broker-harness';
import { subscribe } from './broker-harness';
import { chunkFrames, producePayload, type ChunkFrame } from './stock-clients';
import { DEFAULT_WAIT_MS } from './wait';

/** Producer `fleet` and consumer `worker` subscribed to `(fleet, big)`, the chunking fixture. */
export async function bigPair(h: Harness): Promise<{ producer: Socket; consumer: Socket }> {
  const producer = await h.producer('fleet');
  const consumer = await h.consumer('worker');
  await subscribe(consumer, 'worker', 'fleet', 'big');
  return { producer, consumer };
}

/** A `PRODUCE` of `message` on event `big` from `fleet`. */
export function bigProduce(message: unknown): Record<string, unknown> {
  return producePayload('big', message, { from: 'fleet' });
}

/** Emits every frame of `produce` in the given index order (default: in order). */
export function sendChunked(socket: Socket, produce: unknown, order?: number[]): ChunkFrame[] {
  const frames = chunkFrames(produce);
  const sequence = order ?? frames.map((_, i) => i);
  for (const i of sequence) {
    const frame = frames[i];
    if (!frame) throw new Error(`no frame ${i} (total ${frames.length})`);
    socket.emit(ClientEvent.PRODUCE_CHUNK, frame);
  }
  return frames;
}

export interface ChunkedDelivery<T = unknown> {
  /** The frames of this transfer, in arrival order. */
  frames: ConsumeChunkFrame[];
  /** The reassembled, parsed envelope. */
  envelope: T;
}

/**
 * Resolves with the next complete chunked delivery whose frames name `event`.
 * Reassembles per `transferId` like the stock JS client (`lib/socket.js`).
 */
export function collectChunked<T = unknown>(
  socket: Socket,
  event: string,
  timeoutMs = DEFAULT_WAIT_MS * 3,
): Promise<ChunkedDelivery<T>> {
  return new Promise<ChunkedDelivery<T>>((resolve, reject) => {
    const transfers = new Map<
      string,
      { frames: ConsumeChunkFrame[]; parts: string[]; seen: Set<number> }
    >();
    const listener = (frame: ConsumeChunkFrame): void => {
      if (!frame || frame.event !== event) return;
      let t = transfers.get(frame.transferId);
      if (!t) {
        t = { frames: [], parts: new Array<string>(frame.total), seen: new Set() };
        transfers.set(frame.transferId, t);
      }
      t.frames.push(frame);
      t.parts[frame.index] = frame.data;
      t.seen.add(frame.index);
      if (t.seen.size === frame.total) {
        clearTimeout(timer);
        socket.off(ServerEvent.CONSUME_CHUNK, listener);
        try {
          resolve({ frames: t.frames, envelope: JSON.parse(t.parts.join('')) as T });
        } catch (err) {
          reject(new Error(`reassembled CONSUME_CHUNK text does not parse: ${String(err)}`));
        }
      }
    };
    const timer = setTimeout(() => {
      socket.off(ServerEvent.CONSUME_CHUNK, listener);
      const partial = [...transfers.values()].map((t) => `${t.seen.size}/${t.frames[0]?.total}`);
      reject(
        new Error(
          `timed out after ${timeoutMs} ms waiting for a chunked "${event}" (partial: ${partial.join(', ') || 'none'})`,
        ),
      );
    }, timeoutMs);
    socket.on(ServerEvent.CONSUME_CHUNK, listener);
  });
}

/** A string of `n` code units with distinct first, middle and last characters. */
export function marked(n: number): string {
  const body = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26)));
  body[0] = 'F';
  body[Math.floor(n / 2)] = 'M';
  body[n - 1] = 'L';
  return body.join('');
}
