/**
 * The realm TTL grammar (`spec/protocol-admin.md` §9.1), used by `ttl`, `max_ttl` and
 * `auth.ephemeral_realm_ttl`. Pure: shared by the broker and our clients (console, CLI).
 */

/** Default lifetime of an ephemeral realm when no valid default is configured (§9.2): 1 day. */
export const DEFAULT_REALM_TTL_MS = 86_400_000;

/** The message of an invalid `ttl` (§8.2 `add_realm`). */
export const INVALID_TTL_MESSAGE = 'invalid ttl — use e.g. 300, "30m", "2h", "7d"';
/** The message of an invalid `max_ttl` (§8.2 `add_management_token`). */
export const INVALID_MAX_TTL_MESSAGE = 'invalid max_ttl — use e.g. 300, "30m", "2h", "7d"';

const TTL_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/i;
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a realm TTL to milliseconds (§9.1): a JSON number is seconds (finite, > 0); a string
 * is `<digits>[.<digits>][ms|s|m|h|d]`, case-insensitive, trimmed, default unit seconds.
 * Zero, negatives, other units and other types are invalid.
 * @returns milliseconds (> 0), or null when invalid.
 */
export function parseRealmTtlMs(value: unknown): number | null {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) return null;
    ms = value * 1000;
  } else if (typeof value === 'string') {
    const m = TTL_RE.exec(value.trim());
    if (!m) return null;
    ms = Number(m[1]) * UNIT_MS[(m[2] ?? 's').toLowerCase()]!;
  } else {
    return null;
  }
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

/**
 * The default ephemeral lifetime (§9.2): `auth.ephemeral_realm_ttl` when valid, else 1 day.
 */
export function defaultRealmTtlMs(configured: unknown): number {
  return parseRealmTtlMs(configured) ?? DEFAULT_REALM_TTL_MS;
}

/**
 * A lifetime in ms as the shortest TTL text `parseRealmTtlMs` reads back exactly: the largest
 * unit that divides it (`120000` → `"2m"`, `5400000` → `"90m"`, `86400000` → `"1d"`, `1500` →
 * `"1500ms"`). Null for anything not a positive finite number.
 */
export function formatRealmTtl(ms: number | null | undefined): string | null {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return null;
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit]!;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms)}ms`;
}
