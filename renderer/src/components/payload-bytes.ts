/**
 * Pure helpers behind the payload viewer (issue 27): what a payload is (JSON value, text or
 * binary), its bytes, a hex dump and base64, without Node's Buffer (this runs in the renderer).
 *
 * The console host hands payloads to the page as JSON text (tap rows, dead letters, queue
 * peeks). Binary arrives in two shapes: a Node Buffer serialised by `JSON.stringify`
 * (`{"type":"Buffer","data":[…]}`), or a base64 string whose delivery envelope carried
 * `enc: "base64"` (MQTT payloads that are not UTF-8, docs/mqtt.md) — the caller passes `enc`.
 */

/** `json`: the text parsed as JSON; `text`: it did not (a cut payload); `binary`: bytes. */
export type PayloadKind = 'json' | 'text' | 'binary';

export interface PayloadModel {
  kind: PayloadKind;
  /** The parsed value (kind `json`); undefined otherwise. */
  value: unknown;
  /** What the Text tab shows: the string itself for a JSON string, 2-space JSON for other
   * values, the raw text when it is not JSON, the bytes decoded as UTF-8 (U+FFFD for invalid
   * sequences) for binary. */
  text: string;
  /** The bytes the size, Hex and Base64 tabs describe: the decoded bytes for binary, else the
   * UTF-8 of the JSON text (what travels on the wire). */
  bytes: Uint8Array;
  /** Why a binary reading failed (e.g. `enc: "base64"` on a string that is not base64). */
  note: string | null;
}

/** Hex rows shown before "show more" (16 bytes each: 4 KiB). */
export const HEX_PAGE_ROWS = 256;
/** Bytes per hex dump row. */
export const HEX_ROW_BYTES = 16;

const encoder = new TextEncoder();
const lenientUtf8 = new TextDecoder('utf-8');
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Standard base64 (with padding) of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  // Chunks keep String.fromCharCode's argument list under engine limits; a multiple of 3
  // bytes, so no chunk but the last is padded.
  const chunk = 3 * 8_192;
  for (let i = 0; i < bytes.length; i += chunk) {
    out += btoa(String.fromCharCode(...bytes.subarray(i, i + chunk)));
  }
  return out;
}

/** Whether `text` is standard padded base64 (non-empty); white space is not allowed. */
export function isBase64(text: string): boolean {
  return text.length > 0 && text.length % 4 === 0 && BASE64.test(text);
}

/** Bytes of standard base64 `text`; null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  if (!isBase64(text)) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The bytes of a JSON-serialised Node Buffer (`{type:"Buffer",data:[0..255,…]}`), else null. */
export function bufferJsonBytes(value: unknown): Uint8Array | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (record.type !== 'Buffer' || !Array.isArray(record.data)) return null;
  if (Object.keys(record).length !== 2) return null;
  const data = record.data as unknown[];
  if (!data.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255)) {
    return null;
  }
  return Uint8Array.from(data as number[]);
}

function binary(bytes: Uint8Array): PayloadModel {
  return { kind: 'binary', value: undefined, text: lenientUtf8.decode(bytes), bytes, note: null };
}

/**
 * Reads a payload given as JSON text. `enc: "base64"` makes a JSON string value binary (its
 * decoded bytes). Text that does not parse (a payload cut by the host) is kind `text`.
 */
export function describePayload(jsonText: string, enc?: string | null): PayloadModel {
  let value: unknown;
  try {
    value = JSON.parse(jsonText) as unknown;
  } catch {
    return {
      kind: 'text',
      value: undefined,
      text: jsonText,
      bytes: utf8Bytes(jsonText),
      note: null,
    };
  }
  let note: string | null = null;
  if (enc === 'base64' && typeof value === 'string') {
    const decoded = fromBase64(value);
    if (decoded) return binary(decoded);
    note = 'Marked base64, but the text is not base64: shown as text.';
  }
  const buffer = bufferJsonBytes(value);
  if (buffer) return binary(buffer);
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'null');
  return { kind: 'json', value, text, bytes: utf8Bytes(jsonText), note };
}

export interface HexRow {
  /** Offset of the row's first byte, 8 hex digits. */
  offset: string;
  /** Up to 16 bytes as two-digit hex, a double space after the 8th; padded to full width. */
  hex: string;
  /** The bytes as ASCII, `.` for anything outside 0x20–0x7e. */
  ascii: string;
}

/** `rows` hex dump rows of `bytes` starting at row `fromRow` (`offset / 16 bytes / ASCII`). */
export function hexRows(bytes: Uint8Array, fromRow = 0, rows = HEX_PAGE_ROWS): HexRow[] {
  const out: HexRow[] = [];
  const end = Math.min(bytes.length, (fromRow + rows) * HEX_ROW_BYTES);
  for (let start = fromRow * HEX_ROW_BYTES; start < end; start += HEX_ROW_BYTES) {
    const cells: string[] = [];
    let ascii = '';
    for (let i = 0; i < HEX_ROW_BYTES; i++) {
      const b = start + i < bytes.length ? bytes[start + i] : undefined;
      cells.push(b === undefined ? '  ' : b.toString(16).padStart(2, '0'));
      if (b !== undefined) ascii += b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : '.';
    }
    out.push({
      offset: start.toString(16).padStart(8, '0'),
      hex: `${cells.slice(0, 8).join(' ')}  ${cells.slice(8).join(' ')}`,
      ascii,
    });
  }
  return out;
}

/** Number of hex dump rows `bytes` needs. */
export function hexRowCount(bytes: Uint8Array): number {
  return Math.ceil(bytes.length / HEX_ROW_BYTES);
}

/** A hex dump as text (what Copy puts on the clipboard from the Hex tab). */
export function hexDumpText(rows: HexRow[]): string {
  return rows.map((r) => `${r.offset}  ${r.hex}  |${r.ascii}|`).join('\n');
}
