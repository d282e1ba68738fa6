/**
 * What admitted a session, and until when (issue 20 defect 2): every socket.io and MQTT session
 * records the credential that let it in, so that a session ends when that credential expires
 * (a JWT's `exp`) or when the secret that verified it changes (a rotated `jwt_secret`, realm
 * `manager_key` or pre-shared `key`, an external validator's URL or secret). Static tokens are
 * tracked by their hash (`session-revocation.ts`), admissions without a credential (auth off,
 * open realms, implicit admission) by the rules that admitted them.
 *
 * The secret itself is never kept on a session: only an HMAC of it under a key drawn at start,
 * compared with the HMAC of what the live configuration holds now.
 *
 * Source: `spec/protocol-admin.md` §3.5 note (harden: disconnect sessions whose credential went
 * away), §4.2 (`exp`), §18 item 7.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { AuthConfig } from './auth-schema';
import { resolveValidator } from './external-validator';

/** How a session was admitted. */
export type CredentialKind =
  /** A JWT verified with `auth.jwt_secret`. */
  | 'jwt'
  /** A JWT verified with the `manager_key` of realm `scope`. */
  | 'realm-jwt'
  /** The pre-shared `key` of realm `scope`. */
  | 'realm-key'
  /** A static `tokens[]` entry (tracked by token hash). */
  | 'static'
  /** An external validator, resolved for the realm hint `scope`. */
  | 'external';

export interface SessionCredential {
  kind: CredentialKind;
  /** HMAC of the configured secret material that verified the credential. */
  fingerprint: string;
  /** The realm whose key verified it (`realm-jwt`, `realm-key`), or the validator's hint. */
  scope: string | null;
  /** Epoch ms from which the credential no longer admits (a JWT's `exp`), or null. */
  expiresAt: number | null;
}

/** Why a session's credential no longer holds. */
export type CredentialEnd = 'token expired' | 'credentials changed';

const FINGERPRINT_KEY = randomBytes(32);

/** The fingerprint of `parts` (secret material); never reversible to the secret. */
export function fingerprint(...parts: (string | undefined)[]): string {
  return createHmac('sha256', FINGERPRINT_KEY).update(JSON.stringify(parts)).digest('hex');
}

const own = (auth: Readonly<AuthConfig>, realm: string | null) =>
  realm !== null && Object.prototype.hasOwnProperty.call(auth.realms, realm)
    ? auth.realms[realm]
    : undefined;

/** The fingerprint `auth` gives now for the secret that verified `credential`; null if none. */
export function currentFingerprint(
  auth: Readonly<AuthConfig>,
  credential: Pick<SessionCredential, 'kind' | 'scope'>,
): string | null {
  switch (credential.kind) {
    case 'jwt':
      return auth.jwt_secret ? fingerprint(auth.jwt_secret) : null;
    case 'realm-jwt': {
      const key = own(auth, credential.scope)?.manager_key;
      return key ? fingerprint(key) : null;
    }
    case 'realm-key': {
      const key = own(auth, credential.scope)?.key;
      return key !== undefined ? fingerprint(key) : null;
    }
    case 'external': {
      const target = resolveValidator(auth, credential.scope ?? undefined);
      return target ? fingerprint(target.url, target.secret) : null;
    }
    case 'static':
      // Checked by token hash (session-revocation.ts): the hash is the fingerprint.
      return null;
  }
}

/** A credential of `kind` verified by the secret material `parts`, valid until `expiresAt`. */
export function credentialOf(
  kind: CredentialKind,
  scope: string | null,
  expiresAt: number | null,
  ...parts: (string | undefined)[]
): SessionCredential {
  return { kind, scope, expiresAt, fingerprint: fingerprint(...parts) };
}

/**
 * Whether `credential` still admits under `auth` at `now` (epoch ms): null when it does, else
 * why not. Static tokens are not judged here (their revocation is by hash).
 */
export function credentialEnded(
  auth: Readonly<AuthConfig>,
  credential: SessionCredential | null,
  now: number,
): CredentialEnd | null {
  if (credential === null) return null;
  if (credential.expiresAt !== null && now >= credential.expiresAt) return 'token expired';
  if (credential.kind === 'static') return null;
  return currentFingerprint(auth, credential) === credential.fingerprint
    ? null
    : 'credentials changed';
}

/** Longest delay a Node timer takes (ms); a later expiry re-arms on the way. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Calls `expire` once `expiresAt` (epoch ms) has passed, re-arming when it lies beyond a Node
 * timer's range. The timer does not hold the process open. @returns its cancellation.
 */
export function onExpiry(expiresAt: number, expire: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    timer = setTimeout(fire, Math.min(Math.max(expiresAt - Date.now(), 0), MAX_TIMER_MS));
    timer.unref();
  };
  const fire = () => {
    if (Date.now() >= expiresAt) expire();
    else arm();
  };
  arm();
  return () => clearTimeout(timer);
}
