/** Human output of `switchboard-admin`: aligned tables and key/value blocks. */

/** Renders rows as a table with a header line; cells are stringified, null/undefined as "-". */
export function table(headers: string[], rows: unknown[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))));
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
