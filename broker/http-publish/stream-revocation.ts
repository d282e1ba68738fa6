/**
 * Streams end with the grant that opened them (`spec/protocol-extensions.md` Note 5-G): the
 * reference leaves an SSE stream running after its token is revoked or its realm removed. Here,
 * on every auth change (checked once per batch, on the next turn, as the socket sessions are in
 * `auth/session-revocation.ts`), a stream closes when its static token is gone or no longer
 * grants that realm and role, when its realm was removed, or when its credential ended (a JWT
 * past `exp`, a rotated secret or validator). A credential with an expiry also closes its stream
 * when it expires.
 */
import type { AuthState } from '../auth/auth-state';
import type { AuthConfig } from '../auth/auth-schema';
import { credentialEnded, onExpiry } from '../auth/session-credential';
import type { Logger } from '../logging/logger';
import type { SseHub } from './sse-hub';
import type { SseStream } from './sse-stream';

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Why `stream` no longer holds under `next` (changed from `prev`), or null. */
function ended(
  auth: AuthState,
  stream: SseStream,
  prev: Readonly<AuthConfig>,
  next: Readonly<AuthConfig>,
): string | null {
  const p = stream.principal;
  if (p.isStatic) {
    const entry = auth.tokenByHash(p.tokenHash);
    if (!entry || entry.realm !== p.realm || (entry.role ?? 'both') !== (p.role || 'both')) {
      return 'token revoked';
    }
  }
  if (has(prev.realms, p.realm) && !has(next.realms, p.realm)) return 'realm removed';
  return credentialEnded(next, p.credential, Date.now());
}

/** Watches `auth` for the streams of `hub`; returns the unsubscribe function. */
export function watchStreamRevocations(auth: AuthState, hub: SseHub, logger: Logger): () => void {
  let before: Readonly<AuthConfig> | null = null;
  const check = () => {
    const prev = before!;
    before = null;
    for (const stream of hub.all()) {
      const reason = ended(auth, stream, prev, auth.config);
      if (reason === null) continue;
      logger.info({ realm: stream.realm, event: stream.event, reason }, 'SSE stream ended');
      stream.close(reason);
    }
  };
  return auth.onChange((_next, prev) => {
    if (before !== null) return;
    before = prev;
    setImmediate(check);
  });
}

/** Closes `stream` when its credential expires; returns the cancellation. */
export function closeOnExpiry(stream: SseStream): () => void {
  const expiresAt = stream.principal.credential.expiresAt;
  if (expiresAt === null) return () => {};
  return onExpiry(expiresAt, () => stream.close('token expired'));
}
