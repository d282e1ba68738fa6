/**
 * Duration and TTL parsing.
 *
 * Source: `spec/protocol-core.md` §10.3 (duration grammar of `ack_timeout` and `retry.delay`)
 * and Note 9.3-A (TTL strings, which add the `h` unit).
 */

/**
 * Longest delay (ms) a Node timer honours: 2^31 - 1. A longer `setTimeout` fires after 1 ms, so
 * every configured or client-supplied duration that reaches a timer is bounded by this first.
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

const DURATION_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m)?\s*$/i;
const TTL_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)?\s*$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function parseWith(re: RegExp, value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : null;
  if (typeof value !== 'string') return null;
  const m = re.exec(value);
  if (!m) return null;
  const unit = (m[2] ?? 's').toLowerCase();
  return Number(m[1]) * (UNIT_MS[unit] ?? 1000);
}

/**
 * Parses an `ack_timeout` / `retry.delay` value to milliseconds (§10.3): a number counts as
 * seconds (`0.3` → 300), a string is `<number>[ms|s|m]` (case-insensitive, no unit = seconds).
 * Anything else (`"1h"`, `"-5s"`, objects) returns `fallbackMs`.
 */
export function parseDurationMs(value: unknown, fallbackMs: number): number {
  return parseWith(DURATION_RE, value) ?? fallbackMs;
}

/**
 * Parses a duration from a settings file to milliseconds, strictly: a number counts as
 * seconds (`0.3` → 300), a string is `<number>[ms|s|m|h]` (§10.3's grammar plus `h`, as the TTL
 * grammar of Note 9.3-A; case-insensitive, no unit = seconds). Returns null for anything else
 * (`"30 seconds"`, `"-5s"`, `NaN`), so the caller refuses it with the key's path — unlike
 * `parseDurationMs`, whose silent fallback the protocol keeps for client payloads.
 */
export function parseStrictDurationMs(value: unknown): number | null {
  const ms = parseWith(TTL_RE, value);
  return ms !== null && Number.isFinite(ms) ? ms : null;
}

/**
 * Parses a message TTL to seconds (Note 9.3-A): numbers are seconds as before, negative or
 * non-finite numbers mean "never expires" (`null`), strings follow the duration grammar
 * extended with `h` (`"1h"` → 3600). Returns `undefined` ("use the store default") for
 * anything unparsable, never "forever".
 */
export function parseTtlSeconds(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return null;
    return value;
  }
  const ms = parseWith(TTL_RE, value);
  return ms === null ? undefined : ms / 1000;
}
