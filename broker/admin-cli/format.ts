/** Human and JSON output of `switchboard-admin`: aligned tables, key/value blocks, times. */
import { inert } from './terminal-text';

/**
 * Renders rows as a table with a header line; cells are stringified, null/undefined as "-",
 * and made inert (control and bidi characters escaped) before the widths are measured.
 */
export function table(headers: string[], rows: unknown[][]): string {
  const cells = rows.map((r) =>
    r.map((c) => (c === null || c === undefined ? '-' : inert(String(c)))),
  );
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)),
  );
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  if (cells.length === 0) return `${line(headers)}\n(none)`;
  return [line(headers), ...cells.map(line)].join('\n');
}

/** ISO time of an epoch-ms value, or "-". */
export function when(ms: unknown): string {
  return typeof ms === 'number' ? new Date(ms).toISOString() : '-';
}

/** A reply field holding a time: `created_at`, `expires_at`, `server_time`, … */
const TIME_KEY = /(?:_at|_time)$/;

/**
 * `value` with every time field as an ISO 8601 string (UTC). The broker sends some times as
 * ISO strings (`created_at`, `dead_lettered_at`) and others as epoch ms (`expires_at`,
 * `server_time`); `--json` output uses one format. A client's own message (`message` of a
 * delivery envelope, i.e. an object that also has `from`) is copied as it is.
 */
export function isoTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(isoTimes);
  if (typeof value !== 'object' || value === null) return value;
  const envelope = 'from' in value && 'message' in value;
  // fromEntries defines own properties: a `__proto__` key in a reply stays a plain field.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      if (envelope && key === 'message') return [key, v];
      if (TIME_KEY.test(key) && typeof v === 'number' && Number.isFinite(v)) {
        return [key, new Date(v).toISOString()];
      }
      return [key, isoTimes(v)];
    }),
  );
}
