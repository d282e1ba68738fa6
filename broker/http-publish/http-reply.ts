/**
 * What the three routes of `spec/protocol-extensions.md` §5 share: JSON replies (§5.1: every
 * JSON response carries `content-type: application/json; charset=utf-8`, a 405 an `allow`
 * header, no CORS headers), the bearer credential (§5.2), the one path-decoding rule
 * (Note 5-A) and the token checks of §5.2.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionCredential } from '../auth/session-credential';
import type { TokenValidator } from '../auth/token-validator';
import { isGrant } from '../auth/token-validator';
import type { Logger } from '../logging/logger';

/** Names that are never a realm or an event (§5.3 row 5). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export const isPrototypeKey = (s: string): boolean => PROTOTYPE_KEYS.has(s);

/**
 * Writes `body` as JSON with `status`. `extra` headers are added (`allow`, `retry-after`);
 * the reply never carries CORS headers (§5.1).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(text);
}

/** `{ok:false, code, message}` with `status`; 429 and 503 also get `Retry-After` (Note 5-K). */
export function fail(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
): void {
  sendJson(res, status, { ok: false, code: status, message }, extra);
}

/** `405 "method not allowed"` with `allow: <method>` (§5.1). */
export const methodNotAllowed = (res: ServerResponse, allow: string) =>
  fail(res, 405, 'method not allowed', { allow });

/**
 * The bearer token of `req` (§5.2): the scheme is matched case-insensitively and everything
 * after the spaces is the token. Null without one.
 */
export function bearerToken(req: IncomingMessage): string | null {
  const m = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  const token = m?.[1]?.trim();
  return token ? token : null;
}

/**
 * The one path-decoding rule of `/pub` and `/sub` (Note 5-A): the raw URL path split on `/`,
 * empty segments dropped, each segment percent-decoded with `decodeURIComponent` (a malformed
 * escape keeps the raw segment). So `%2F` is an event with a `/` (a topic event, core §11),
 * `+` stays a `+` (it is not a space in a path), and `#` can only arrive as `%23` (a bare `#`
 * starts the fragment, which no client sends). Null when the URL cannot be parsed.
 */
export function pathSegments(
  url: string | undefined,
): { segments: string[]; query: URLSearchParams } | null {
  let parsed: URL;
  try {
    parsed = new URL(url ?? '/', 'http://localhost');
  } catch {
    return null;
  }
  const segments = parsed.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: parsed.searchParams };
}

/**
 * A principal admitted by §5.2: its realm, role, the token's SHA-256 hex, whether it is a
 * static token (revocable by removing it), and the credential that admitted it (expiry, rotated
 * secrets). Streams keep it to close when it no longer holds (Note 5-G).
 */
export interface HttpPrincipal {
  realm: string;
  role: string;
  tokenHash: string;
  isStatic: boolean;
  credential: SessionCredential;
}

/** The §5.2 outcome: the principal, or the status and message to answer. */
export type AuthOutcome =
  { ok: true; principal: HttpPrincipal } | { ok: false; status: number; message: string };

/** Roles that pass every role check (§5.2); a missing role counts as `both`. */
const ANY_ROLE = new Set(['both', 'manager', 'admin']);

/**
 * The token checks of §5.2 through the socket pipeline (admin §4), with the path realm as the
 * realm hint, whether or not `auth.enabled` is set. `need` is the route's role; `refusedText`
 * the route's 403 text for a role that does not pass.
 */
export async function checkToken(
  tokens: TokenValidator,
  logger: Logger,
  token: string,
  realm: string,
  ip: string,
  need: 'producer' | 'consumer',
  refusedText: string,
  tokenHash: string,
): Promise<AuthOutcome> {
  let grant;
  try {
    grant = await tokens.validate(token, realm, ip);
  } catch (err) {
    logger.warn({ err, realm }, 'HTTP token validation failed');
    return { ok: false, status: 401, message: 'authentication failed' };
  }
  if (!isGrant(grant) || !grant.realm) return { ok: false, status: 401, message: 'invalid token' };
  if (String(grant.realm) !== realm) {
    return { ok: false, status: 403, message: 'token is not scoped to this realm' };
  }
  const role = grant.role || 'both';
  if (role !== need && !ANY_ROLE.has(role)) return { ok: false, status: 403, message: refusedText };
  const principal: HttpPrincipal = {
    realm,
    role: grant.role,
    tokenHash,
    isStatic: grant.via === 'static',
    credential: grant.credential,
  };
  return { ok: true, principal };
}
