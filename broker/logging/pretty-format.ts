/**
 * `--log-format pretty`: pino's JSON lines rewritten for a terminal, one line per record:
 * `08:21:07.412 INFO  broker listening port=17352 host="127.0.0.1"`. The same fields as the
 * JSON line (so the same redaction applies: nothing is added), minus `pid`/`hostname`/`time`
 * noise; errors keep their message and first stack line. Not meant to be parsed — use JSON
 * (the default) for log shippers.
 */

/** pino's numeric levels. */
const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'v']);

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[\w./:@-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null && 'message' in value) {
    const err = value as { type?: string; message?: unknown; stack?: unknown };
    const firstFrame = typeof err.stack === 'string' ? err.stack.split('\n')[1]?.trim() : undefined;
    return JSON.stringify(
      `${err.type ?? 'Error'}: ${String(err.message)}${firstFrame ? ` (${firstFrame})` : ''}`,
    );
  }
  return JSON.stringify(value);
}

/** Formats one pino JSON line (with or without its newline); other text passes unchanged. */
export function prettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof record !== 'object' || record === null) return line;
  const time =
    typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = (LEVEL_NAMES[Number(record.level)] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([k]) => !OMITTED.has(k))
    .map(([k, v]) => `${k}=${fieldText(v)}`);
  const msg = typeof record.msg === 'string' ? record.msg : '';
  return `${[time, level, msg, ...fields].filter((p) => p !== '').join(' ')}\n`;
}

/** A pino destination that formats each line before handing it to `inner`. */
export function prettyDestination(inner: { write(line: string): boolean }): {
  write(line: string): boolean;
} {
  return {
    write: (chunk: string) => {
      const out = chunk
        .split('\n')
        .filter((l) => l !== '')
        .map(prettyLine)
        .join('');
      return inner.write(out);
    },
  };
}
