/**
 * Strict reading of a JWT before it is verified (issue 20 defect 6): a compact HS256 JWT whose
 * header or payload repeats a member name (`{"realm":"a","realm":"b"}` — `JSON.parse`, and so
 * `jose`, keeps the last one while another reader may keep the first), or whose `exp`, `nbf` or
 * `iat` is not a plausible NumericDate (`1e400` parses as `Infinity`, a time in milliseconds
 * lands in the year 50,000), is not a token at all for the JWT steps of the pipeline.
 *
 * Source: `spec/protocol-admin.md` §4.2 (HS256, `exp`/`nbf` in epoch seconds); RFC 7519 §4
 * ("claim names within a JWT Claims Set MUST be unique; JWT parsers MUST either reject JWTs
 * with duplicate claim names or …") and §2 (NumericDate).
 */

/** Latest NumericDate accepted (9999-12-31T23:59:59Z, seconds); later ones are absurd. */
export const MAX_JWT_TIME_S = 253_402_300_799;

/** A JWT as read without verification: its claims, or why it is refused before verifying. */
export type JwtReading =
  { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };

/** Whether the JSON text `json` (already valid JSON) has an object with a repeated member name. */
export function hasDuplicateKeys(json: string): boolean {
  /** One entry per open container: the member names seen so far, or null for an array. */
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        // Decoded, so `"re\u0061lm"` and `"realm"` are the same name.
        const key = JSON.parse(json.slice(i, j + 1)) as string;
        if (top.has(key)) return true;
        top.add(key);
      }
      expectKey = false;
      i = j;
    } else if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(null);
      expectKey = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = stack.length > 0 && stack[stack.length - 1] !== null;
    } else if (c === ':') {
      expectKey = false;
    }
  }
  return false;
}

/** Decodes one base64url segment to a JSON object; null if it is not one. */
function segment(part: string): { text: string; value: Record<string, unknown> } | null {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return null;
  try {
    const text = Buffer.from(part, 'base64url').toString('utf8');
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    return { text, value: value as Record<string, unknown> };
  } catch {
    return null;
  }
}

const plausibleTime = (v: unknown): boolean =>
  v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_JWT_TIME_S);

/**
 * Reads `token` as a compact HS256 JWT without verifying it.
 * @param leewayS clock leeway (seconds) allowed for an `iat` in the future
 * @returns null when `token` is not an HS256 compact JWT (the pipeline goes on to static
 *   tokens); `{ok: false, reason}` for one refused before verification (duplicate member names,
 *   implausible times); else its claims (still unverified).
 */
export function readJwt(token: string, nowMs: number, leewayS: number): JwtReading | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const header = segment(parts[0]!);
  if (!header || header.value.alg !== 'HS256') return null;
  const payload = segment(parts[1]!);
  if (!payload) return { ok: false, reason: 'payload is not a JSON object' };
  if (hasDuplicateKeys(header.text) || hasDuplicateKeys(payload.text)) {
    return { ok: false, reason: 'duplicate member names' };
  }
  const claims = payload.value;
  const { exp, nbf, iat } = claims;
  if (!plausibleTime(exp) || !plausibleTime(nbf) || !plausibleTime(iat)) {
    return { ok: false, reason: 'exp, nbf or iat is not a plausible NumericDate' };
  }
  if (typeof iat === 'number' && iat * 1000 > nowMs + leewayS * 1000) {
    return { ok: false, reason: 'issued in the future' };
  }
  if (typeof exp === 'number' && typeof nbf === 'number' && exp <= nbf) {
    return { ok: false, reason: 'exp is not after nbf' };
  }
  return { ok: true, claims };
}
