/** Display formatting for the console (fixed `en-US` so numbers read the same everywhere). */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

/** `1234` → `"1,234"`; null → `"—"`. */
export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : integer.format(value);
}

/**
 * A count with its noun: `(1, 'consumer')` → `"1 consumer"`, `(3, 'consumer')` → `"3 consumers"`;
 * `plural` for a noun that does not take an `s` (`'identities'`).
 */
export function formatCountOf(value: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(value)} ${value === 1 ? noun : plural}`;
}

/** Messages per second: `12.5` → `"12.5/s"`; null → `"—/s"`. */
export function formatRate(perSecond: number | null | undefined): string {
  return perSecond === null || perSecond === undefined
    ? '—/s'
    : `${oneDecimal.format(perSecond)}/s`;
}

/** Whole seconds as `"45s"`, `"3m 05s"`, `"2h 03m"`, `"4d 02h"`; null → `"—"`. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0)
    return '—';
  const s = Math.floor(seconds);
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d ${pad(Math.floor((s % 86_400) / 3600))}h`;
}

/**
 * A text length in characters (UTF-16 code units, what the broker measures), short:
 * `980` → `"980 characters"`, `12_345` → `"12.3 K characters"`, `5_242_892` → `"5.2 M characters"`.
 */
export function formatChars(length: number): string {
  if (length < 1_000) return formatCountOf(length, 'character');
  if (length < 1_000_000) return `${oneDecimal.format(length / 1_000)} K characters`;
  return `${oneDecimal.format(length / 1_000_000)} M characters`;
}

/** `1.5 MiB`-style sizes (binary units): `512` → `"512 B"`, `1536` → `"1.5 KiB"`; null → `"—"`. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}
