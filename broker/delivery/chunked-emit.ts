/**
 * Emitting one delivery, chunked when large.
 *
 * Source: `spec/protocol-core.md` §14.2: before each delivery the envelope is serialised; if
 * the JSON text is longer than 262,144 UTF-16 code units it goes out as `CONSUME_CHUNK`
 * frames `{transferId, event, index, total, data}` emitted back to back (so ordering with
 * other deliveries is kept) instead of one `CONSUME-<key>` event.
 */
import { randomBytes } from 'node:crypto';
import { Protocol, ServerEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import type { BrokerSocket } from '../transport/socket-types';

/**
 * A string message shorter than this cannot exceed the chunk threshold once JSON-escaped
 * (each code unit escapes to at most 6), so the serialisation can be skipped on the hot path.
 */
const SHORT_STRING = Math.floor(Protocol.CHUNK_SIZE / 6) - 1024;

/** `<base36 ms>-<random base36>`, the transfer-id format of the reference clients (§14.1). */
export function newTransferId(): string {
  return `${Date.now().toString(36)}-${randomBytes(8).readBigUInt64BE().toString(36)}`;
}

function mayBeLarge(envelope: DeliveryEnvelope): boolean {
  const m = envelope.message;
  if (m === null || typeof m === 'number' || typeof m === 'boolean' || m === undefined) {
    return envelope.event.length > SHORT_STRING;
  }
  if (typeof m === 'string') return m.length + envelope.event.length > SHORT_STRING;
  return true;
}

/**
 * Emits `envelope` on `eventName` to `socket`, as `CONSUME_CHUNK` frames when its JSON text
 * exceeds `Protocol.CHUNK_SIZE`. `volatile` skips buffering (used by one broadcast extra).
 */
export function emitDelivery(
  socket: BrokerSocket,
  eventName: `CONSUME-${string}`,
  envelope: DeliveryEnvelope,
  chunkSize: number = Protocol.CHUNK_SIZE,
): void {
  if (mayBeLarge(envelope)) {
    const text = JSON.stringify(envelope);
    if (text.length > chunkSize) {
      emitChunks(socket, eventName, text, chunkSize);
      return;
    }
  }
  socket.emit(eventName, envelope);
}

function emitChunks(socket: BrokerSocket, event: string, text: string, chunkSize: number): void {
  const transferId = newTransferId();
  const total = Math.ceil(text.length / chunkSize);
  for (let index = 0; index < total; index++) {
    // Slicing by code units may split a surrogate pair; clients join before parsing (Note 14-A).
    const data = text.slice(index * chunkSize, (index + 1) * chunkSize);
    socket.emit(ServerEvent.CONSUME_CHUNK, { transferId, event, index, total, data });
  }
}
