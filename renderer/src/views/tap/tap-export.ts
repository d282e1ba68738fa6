/**
 * Export of the live tap's captured rows as a JSON or CSV download (issue 22, item 12).
 *
 * What is exported is what the page holds: at most `TAP_RING_CAPACITY` messages, newest first,
 * with the filter applied, each payload as the tap received it (cut to `TAP_PREVIEW_CHARS`,
 * `truncated` and `size` say so; JSON export parses the payloads it holds whole).
 */
import type { TapInfo, TapMessage } from '../../../../shared/console-api-tap';

/** Columns of the CSV, in order. */
export const TAP_CSV_COLUMNS = [
  'time',
  'event',
  'from',
  'msg_id',
  'size',
  'truncated',
  'payload',
] as const;

/**
 * One CSV cell (RFC 4180 quoting). A cell a spreadsheet would run as a formula (starting with
 * `=`, `+`, `-`, `@`, tab or CR) is prefixed with `'`: payloads come from any client of the realm.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The rows as CSV text with a header line; times are ISO 8601 (UTC). Lines end with CRLF. */
export function tapRowsToCsv(rows: readonly TapMessage[]): string {
  const lines = [TAP_CSV_COLUMNS.join(',')];
  for (const m of rows) {
    lines.push(
      [
        new Date(m.at).toISOString(),
        m.event,
        m.from,
        m.msgId ?? '',
        String(m.size),
        String(m.truncated),
        m.payload,
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A payload for the JSON export: the value itself when the tap holds the whole JSON text (as the
 * DLQ export does), the text when it was cut (`truncated`) or is not JSON.
 */
function exportedPayload(m: TapMessage): unknown {
  if (m.truncated) return m.payload;
  try {
    return JSON.parse(m.payload) as unknown;
  } catch {
    return m.payload;
  }
}

/**
 * The rows as a JSON document `{realm, exportedAt, messages: [{time, event, from, msgId, size,
 * truncated, payload}]}`; `payload` is the message's value, or its JSON text as received when the
 * tap cut it (`truncated: true`) — a cut text cannot be parsed.
 */
export function tapRowsToJson(
  rows: readonly TapMessage[],
  info: TapInfo | null,
  now: number,
): string {
  return JSON.stringify(
    {
      realm: info?.realm ?? null,
      exportedAt: new Date(now).toISOString(),
      messages: rows.map((m) => ({
        time: new Date(m.at).toISOString(),
        event: m.event,
        from: m.from,
        msgId: m.msgId,
        size: m.size,
        truncated: m.truncated,
        payload: exportedPayload(m),
      })),
    },
    null,
    2,
  );
}

/** A file name for an export, e.g. `tap-fleet-20261202-073512.csv`. */
export function tapExportName(realm: string | undefined, now: number, ext: 'json' | 'csv'): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const safeRealm = (realm ?? 'tap').replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 64) || 'tap';
  return `tap-${safeRealm}-${stamp}.${ext}`;
}
