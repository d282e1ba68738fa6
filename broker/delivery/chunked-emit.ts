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

/** `<base36 ms>-<random base36>`, the transfer-id format of the reference clients (§14.1). */
export function newTransferId(): string {
  return `${Date.now().toString(36)}-${randomBytes(8).readBigUInt64BE().toString(36)}`;
}

/**
 * An upper bound of `JSON.stringify(value).length`, computed without building the string and
 * abandoned as soon as it passes `budget` (each code unit of a string escapes to at most 6).
 * Returns the bound when it is at most `budget`, else some number above `budget`.
 *
 * Allocation-free for the usual envelope (issue 25 item 1: it runs once per delivered message,
 * and its `Object.keys` arrays and work stack were a quarter of the garbage the broker makes
 * per message beyond a bare relay): nesting up to `MAX_RECURSION` levels is walked by
 * recursion and own keys by `for…in`; deeper values go to the explicit stack of
 * `jsonLengthUpperBoundDeep`, so a deeply nested message cannot overflow the call stack.
 */
export function jsonLengthUpperBound(value: unknown, budget: number): number {
  return boundOf(value, budget, 0, 0);
}

/** Levels walked by recursion before the explicit stack takes over. */
const MAX_RECURSION = 32;
const hasOwn = Object.prototype.hasOwnProperty;

function boundOf(v: unknown, budget: number, total: number, depth: number): number {
  if (typeof v === 'string') return total + 2 + 6 * v.length;
  if (typeof v === 'number' || typeof v === 'bigint') return total + 24;
  if (typeof v === 'boolean' || v === null) return total + 5;
  if (typeof v !== 'object') return total;
  if (depth >= MAX_RECURSION) return total + jsonLengthUpperBoundDeep(v, budget - total);
  if (Array.isArray(v)) {
    total += 2 + v.length;
    for (let i = 0; i < v.length && total <= budget; i++) {
      total = boundOf(v[i], budget, total, depth + 1);
    }
    return total;
  }
  total += 2;
  const o = v as Record<string, unknown>;
  for (const key in o) {
    if (!hasOwn.call(o, key)) continue;
    total = boundOf(o[key], budget, total + 4 + 6 * key.length, depth + 1);
    if (total > budget) break;
  }
  return total;
}

/** The same bound with an explicit work stack (values nested deeper than `MAX_RECURSION`). */
function jsonLengthUpperBoundDeep(value: unknown, budget: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= budget) {
    const v = stack.pop();
    if (typeof v === 'string') total += 2 + 6 * v.length;
    else if (typeof v === 'number' || typeof v === 'bigint') total += 24;
    else if (typeof v === 'boolean' || v === null) total += 5;
    else if (Array.isArray(v)) {
      total += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object') {
      total += 2;
      for (const key of Object.keys(v)) {
        total += 4 + 6 * key.length;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}

/** Room left for the fields a reliable delivery adds to its base envelope (ids, attempt). */
const BASE_MARGIN = 256;

/** Per envelope object: whether it may exceed the chunk size (fan-out reuses one envelope). */
const mayExceed = new WeakMap<object, boolean>();

/**
 * Emits `envelope` on `eventName` to `socket`, as `CONSUME_CHUNK` frames when its JSON text
 * exceeds `chunkSize` (default `Protocol.CHUNK_SIZE`).
 */
/**
 * Whether `envelope` must go out as `CONSUME_CHUNK` frames: its JSON text is longer than
 * `chunkSize`. Cheap for small envelopes (bounded estimate, cached per envelope object).
 */
export function needsChunking(envelope: DeliveryEnvelope, chunkSize: number = Protocol.CHUNK_SIZE) {
  return mayBeLarge(envelope, chunkSize) && JSON.stringify(envelope).length > chunkSize;
}

/** Whether `key`'s JSON may come near `chunkSize`; computed once per envelope object. */
function mayBeLarge(key: DeliveryEnvelope, chunkSize: number): boolean {
  let large = mayExceed.get(key);
  if (large === undefined) {
    large = jsonLengthUpperBound(key, chunkSize - BASE_MARGIN) > chunkSize - BASE_MARGIN;
    mayExceed.set(key, large);
  }
  return large;
}

export function emitDelivery(
  socket: BrokerSocket,
  eventName: `CONSUME-${string}`,
  envelope: DeliveryEnvelope,
  chunkSize: number = Protocol.CHUNK_SIZE,
  base?: DeliveryEnvelope,
): void {
  // `base`: the envelope this one extends with small fields (msgId…); its cached size decision
  // is reused with a margin for them.
  if (mayBeLarge(base ?? envelope, chunkSize)) {
    const text = JSON.stringify(envelope);
    if (text.length > chunkSize) {
      emitChunks(socket, eventName, text, chunkSize);
      return;
    }
  }
  socket.emit(eventName, envelope);
}

/**
 * `emitDelivery` for an envelope emitted to one socket only (the 1→1 plain path): the same
 * frames, but the size estimate is not cached. A cache entry per message costs a `WeakMap`
 * insertion and ephemeron work at every scavenge, for an entry nobody reads again (issue 25
 * item 1). Source: `spec/protocol-core.md` §14.2.
 */
export function emitSingleDelivery(
  socket: BrokerSocket,
  eventName: `CONSUME-${string}`,
  envelope: DeliveryEnvelope,
  chunkSize: number = Protocol.CHUNK_SIZE,
): void {
  const budget = chunkSize - BASE_MARGIN;
  const large = mayExceed.get(envelope) ?? jsonLengthUpperBound(envelope, budget) > budget;
  if (large) {
    const text = JSON.stringify(envelope);
    if (text.length > chunkSize) {
      emitChunks(socket, eventName, text, chunkSize);
      return;
    }
  }
  socket.emit(eventName, envelope);
}

/**
 * Writes event `eventName` with one argument given as its JSON text (`dataJson`): what
 * `socket.emit(eventName, JSON.parse(dataJson))` writes, without socket.io's per-packet work
 * (argument copy, binary scan, encoding). JSON only: no binary data, no ack callback.
 */
export function emitJson(socket: BrokerSocket, eventName: string, dataJson: string): void {
  // socket.io-parser's encoding of an EVENT packet without ack id: type, namespace, data.
  const nsp = socket.nsp.name;
  const packet = `2${nsp === '/' ? '' : `${nsp},`}[${JSON.stringify(eventName)},${dataJson}]`;
  // The adapter's path for pre-encoded packets (same write options as `socket.emit`).
  socket.client._packet(packet as never, { preEncoded: true, compress: true });
}

/**
 * Emits a reliable delivery from the JSON text of its base envelope (`baseJson`, as stored),
 * adding `msgId`, `msg_id` and `delivery_attempt` as the last keys — the same text socket.io
 * would encode for `{...base, msgId, msg_id: msgId, delivery_attempt}` — so a durable copy is
 * serialised once for the store and the wire, and the packet skips socket.io's binary scan.
 * `baseJson` must be a non-empty JSON object without those keys (`encodableBase`). Chunked
 * as `emitDelivery` would when the text exceeds `chunkSize`.
 */
export function emitEncodedDelivery(
  socket: BrokerSocket,
  eventName: `CONSUME-${string}`,
  baseJson: string,
  msgId: string,
  attempt: number,
  chunkSize: number = Protocol.CHUNK_SIZE,
): void {
  const id = JSON.stringify(msgId);
  const text = `${baseJson.slice(0, -1)},"msgId":${id},"msg_id":${id},"delivery_attempt":${attempt}}`;
  if (text.length > chunkSize) emitChunks(socket, eventName, text, chunkSize);
  else emitJson(socket, eventName, text);
}

/**
 * `JSON.stringify(envelope)` when a reliable delivery may be emitted from it with
 * `emitEncodedDelivery` (a non-empty object without the per-attempt keys), else undefined.
 */
export function encodableBase(envelope: DeliveryEnvelope): string | undefined {
  if ('msgId' in envelope || 'msg_id' in envelope || 'delivery_attempt' in envelope) return;
  const json = JSON.stringify(envelope);
  return json.length > 2 && json.endsWith('}') ? json : undefined;
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
