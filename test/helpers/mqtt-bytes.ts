/**
 * Raw MQTT packet bytes for malformed-packet tests (OASIS MQTT 3.1.1 / 5.0 §1.5, §2.1): the
 * test files build each broken packet by hand from these.
 */

/** A two-byte big-endian integer. */
export const u16 = (n: number): Buffer => Buffer.from([n >> 8, n & 0xff]);

/** A length-prefixed string (or raw bytes, to send invalid UTF-8). */
export const str = (s: string | Buffer): Buffer => {
  const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  return Buffer.concat([u16(b.length), b]);
};

/** MQTT's Variable Byte Integer (remaining lengths, property lengths). */
export function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

/** A whole packet: first byte, remaining length, body. */
export const packet = (first: number, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from([first]), varint(body.length), body]);
