/** The payload viewer's pure helpers (issue 27): payload kinds, sizes, hex dump, base64. */
import { describe, expect, it } from 'vitest';
import {
  HEX_PAGE_ROWS,
  bufferJsonBytes,
  describePayload,
  fromBase64,
  hexDumpText,
  hexRowCount,
  hexRows,
  isBase64,
  toBase64,
  type HexRow,
} from '../../renderer/src/components/payload-bytes';
import { formatBytes } from '../../renderer/src/format';

describe('describePayload', () => {
  it('reads JSON values and sizes them as the UTF-8 of their JSON text', () => {
    const p = describePayload('{"name":"é","n":1}');
    expect(p.kind).toBe('json');
    expect(p.value).toEqual({ name: 'é', n: 1 });
    // "é" is 2 bytes in UTF-8: 18 characters, 19 bytes.
    expect(p.bytes.length).toBe(19);
    expect(p.text).toBe('{\n  "name": "é",\n  "n": 1\n}');
  });

  it('shows a JSON string as itself, not quoted', () => {
    const p = describePayload('"hello"');
    expect(p.kind).toBe('json');
    expect(p.text).toBe('hello');
    expect(p.bytes.length).toBe(7);
  });

  it('keeps text that does not parse (a cut payload) as text', () => {
    const p = describePayload('{"a":[1,2');
    expect(p.kind).toBe('text');
    expect(p.text).toBe('{"a":[1,2');
    expect(p.bytes.length).toBe(9);
  });

  it('decodes a base64 string marked enc base64 to its bytes', () => {
    const p = describePayload(JSON.stringify('AP8Q'), 'base64');
    expect(p.kind).toBe('binary');
    expect([...p.bytes]).toEqual([0x00, 0xff, 0x10]);
    expect(p.text).toContain('\ufffd');
  });

  it('says so when enc base64 marks text that is not base64', () => {
    const p = describePayload(JSON.stringify('not base64!'), 'base64');
    expect(p.kind).toBe('json');
    expect(p.note).toMatch(/not base64/);
  });

  it('reads a JSON-serialised Node Buffer as binary', () => {
    const p = describePayload(JSON.stringify({ type: 'Buffer', data: [1, 2, 255] }));
    expect(p.kind).toBe('binary');
    expect([...p.bytes]).toEqual([1, 2, 255]);
    expect(bufferJsonBytes({ type: 'Buffer', data: [256] })).toBeNull();
    expect(bufferJsonBytes({ type: 'Buffer', data: [1], extra: true })).toBeNull();
  });
});

describe('base64', () => {
  it('round-trips bytes, also past one encoding chunk', () => {
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256);
    const text = toBase64(bytes);
    expect(text).toBe(Buffer.from(bytes).toString('base64'));
    expect(fromBase64(text)).toEqual(bytes);
  });

  it('accepts only padded standard base64', () => {
    expect(isBase64('AP8Q')).toBe(true);
    expect(isBase64('AP8=')).toBe(true);
    expect(isBase64('AP8')).toBe(false);
    expect(isBase64('AP-_')).toBe(false);
    expect(isBase64('')).toBe(false);
    expect(fromBase64('a b=')).toBeNull();
  });
});

describe('hex dump', () => {
  it('lays out offset, 16 bytes in two groups of 8 and ASCII', () => {
    const bytes = new TextEncoder().encode('Hello, hex dump!\n\u0001z');
    const rows = hexRows(bytes);
    expect(rows).toHaveLength(2);
    const [one, two] = rows as [HexRow, HexRow];
    expect(one).toEqual({
      offset: '00000000',
      hex: '48 65 6c 6c 6f 2c 20 68  65 78 20 64 75 6d 70 21',
      ascii: 'Hello, hex dump!',
    });
    expect(two.offset).toBe('00000010');
    expect(two.hex.startsWith('0a 01 7a ')).toBe(true);
    // Padded to full width, so the ASCII column lines up.
    expect(two.hex).toHaveLength(one.hex.length);
    expect(two.ascii).toBe('..z');
    expect(hexDumpText(rows).split('\n')[0]).toBe(
      '00000000  48 65 6c 6c 6f 2c 20 68  65 78 20 64 75 6d 70 21  |Hello, hex dump!|',
    );
  });

  it('pages big payloads', () => {
    const bytes = new Uint8Array(HEX_PAGE_ROWS * 16 * 2 + 5);
    expect(hexRowCount(bytes)).toBe(HEX_PAGE_ROWS * 2 + 1);
    expect(hexRows(bytes)).toHaveLength(HEX_PAGE_ROWS);
    const last = hexRows(bytes, HEX_PAGE_ROWS * 2);
    expect(last).toHaveLength(1);
    expect(last[0]?.offset).toBe((HEX_PAGE_ROWS * 2 * 16).toString(16).padStart(8, '0'));
    expect(hexRows(new Uint8Array(0))).toEqual([]);
  });
});

describe('formatBytes', () => {
  it('uses binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(null)).toBe('—');
  });
});
