/**
 * What a `/remote` relay rule with `binary: true` forwards (`spec/protocol-extensions.md` §8,
 * with Note 8-A's Fix): exactly one binary argument, or nothing.
 *
 * 1. Only the first argument after the event name counts (further ones and acks are dropped).
 * 2. Binary (Buffer, ArrayBuffer, typed array) is forwarded byte for byte, as a Buffer.
 * 3. An object with a truthy `frame` (an older agent's JSON form): a binary `frame` is
 *    forwarded unchanged (Note 8-A; the reference corrupts it by decoding its UTF-8 text), any
 *    other is `String(frame)` decoded leniently as base64 — Node's decoder: characters outside
 *    both alphabets are skipped, padding is optional, decoding stops at the first `=`. The
 *    object's other properties are dropped.
 * 4. Anything else (no argument, a string, a number, an object without a truthy `frame`) is
 *    dropped: `null` is returned and nothing is emitted.
 */

function binaryBytes(value: unknown): Buffer | null {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (ArrayBuffer.isView(value))
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return null;
}

/** The one Buffer a binary rule emits for `args` (the event's arguments), or null to drop. */
export function binaryRelayPayload(args: readonly unknown[]): Buffer | null {
  const first = args[0];
  const bytes = binaryBytes(first);
  if (bytes) return bytes;
  if (typeof first !== 'object' || first === null) return null;
  const frame = (first as { frame?: unknown }).frame;
  if (!frame) return null;
  return binaryBytes(frame) ?? Buffer.from(String(frame), 'base64');
}
