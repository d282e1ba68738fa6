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

/** The bucket credential of a validated `token` (its `grant`). */
export function grantCredential(
  grant: Pick<TokenGrant, 'via' | 'tokenHash' | 'subject'>,
  token: string,
): string {
  if ((grant.via === 'jwt' || grant.via === 'realm-jwt') && grant.subject) {
    const digest = createHash('sha256').update(`${grant.via}\0${grant.subject}`, 'utf8');
    return `jwt:${digest.digest('hex')}`;
  }
  return `token:${grant.tokenHash ?? tokenHash(token)}`;
}
