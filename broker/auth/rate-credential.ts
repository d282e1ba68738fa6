/**
 * The credential a rate-limit bucket is keyed by (issue 20 item 7; `limits/shared-buckets.ts`):
 * what identifies one client across its connections, whatever protocol it uses.
 * - a static token or an external validator's token: the token's SHA-256 (`token:<hex>`, the
 *   digest the auth store keys static tokens by, never the token);
 * - a JWT: its `sub` claim (digested, with how it verified), so a client that refreshes its JWT
 *   keeps its bucket; a JWT without `sub` counts as its own token.
 * Everything else (auth off, an open realm, a role-declared client, a realm's pre-shared key,
 * which all the realm's clients share) has no credential of its own: `null`, keyed by realm and
 * client IP by the limits service.
 */
import { createHash } from 'node:crypto';
import { tokenHash } from './auth-state';
import type { TokenGrant } from './token-validator';

/**
 * The `sub` claim of a JWT whose signature was already verified (so no check here), or
 * undefined. Read locally rather than with jose's `decodeJwt`: jose is loaded only by the
 * first verification (`lazy-jose.ts`), and this must stay synchronous.
 */
function jwtSubject(token: string): unknown {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null
      ? (claims as { sub?: unknown }).sub
      : undefined;
  } catch {
    return undefined;
  }
}

/** The bucket credential of a validated `token` (its `grant`). */
export function grantCredential(
  grant: Pick<TokenGrant, 'via' | 'tokenHash'>,
  token: string,
): string {
  if (grant.via === 'jwt' || grant.via === 'realm-jwt') {
    const sub = jwtSubject(token);
    if (typeof sub === 'string' && sub !== '') {
      return `jwt:${createHash('sha256').update(`${grant.via}\0${sub}`, 'utf8').digest('hex')}`;
    }
  }
  return `token:${grant.tokenHash ?? tokenHash(token)}`;
}
