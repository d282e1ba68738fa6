/**
 * Per-realm requirements and the role/event matrix.
 *
 * Source: `spec/protocol-admin.md` §3.1 (roles), §3.3 (event permission matrix), §3.5
 * (requirement resolution; all false while auth is disabled), `spec/protocol-core.md` §3.1
 * (anonymous policy: allowed by default only in `default`).
 *
 * Departure (issue 20, secure default): the reference admits a consumer with no token into any
 * realm that requires no key, so a realm that "requires auth" but has no pre-shared key is
 * readable by anyone who knows its name (`#`, `TYO-MQ-ALL`). Here a realm that requires auth
 * admits a consumer only with a token, a JWT or its key, unless the realm opts back into the
 * reference's rule with `allow_tokenless_consumers: true` (`tokenlessConsumersAllowed`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Protocol } from '../../shared/protocol-events';
import type { AuthState } from './auth-state';

/** What an event needs (§3.3): a consumer role, a producer role, any authenticated socket, or nothing. */
export type EventGate = 'consumer' | 'producer' | 'authenticated' | 'none';

/** Roles that pass each gate; `both`, `manager` and `admin` pass every one (§3.1). */
const PASSES: Record<'consumer' | 'producer', ReadonlySet<string>> = {
  consumer: new Set(['consumer', 'both', 'manager', 'admin']),
  producer: new Set(['producer', 'both', 'manager', 'admin']),
};

/** Whether `role` may send an event guarded by `gate`. An unknown role passes only `[]` events. */
export function rolePasses(role: string, gate: EventGate): boolean {
  if (gate === 'none' || gate === 'authenticated') return true;
  return PASSES[gate].has(role);
}

/** §3.5 "auth required": the realm's `required`, else true; false while auth is disabled. */
export function authRequired(auth: AuthState, realm: string): boolean {
  if (!auth.enabled) return false;
  return auth.realm(realm)?.required ?? true;
}

/** §3.5 "key required" (consumers and `both`): `require_key`, else "a key is configured". */
export function keyRequired(auth: AuthState, realm: string): boolean {
  if (!auth.enabled) return false;
  const config = auth.realm(realm);
  if (!config) return false;
  return config.require_key ?? config.key !== undefined;
}

/**
 * Whether a consumer (or `both`) with neither a token nor a valid key may enter `realm`: where
 * auth is not required; else, where no key is required and the realm sets
 * `allow_tokenless_consumers: true` (the reference's rule, §2.3 step 7 / §3.4 step 2). Unconfigured
 * realms require auth (§3.5) and so refuse them.
 */
export function tokenlessConsumersAllowed(auth: AuthState, realm: string): boolean {
  if (!authRequired(auth, realm)) return true;
  if (keyRequired(auth, realm)) return false;
  return auth.realm(realm)?.allow_tokenless_consumers === true;
}

/** The `AUTH_FAIL 401` message for a consumer refused by `tokenlessConsumersAllowed`. */
export const consumerCredentialRequired = (realm: string): string =>
  `Realm '${realm}' requires a token or a valid pre-shared key for consumers`;

/** §3.5 "acceptance required" (producers and `both`): `require_acceptance`, else auth required. */
export function acceptanceRequired(auth: AuthState, realm: string): boolean {
  if (!auth.enabled) return false;
  return auth.realm(realm)?.require_acceptance ?? authRequired(auth, realm);
}

/** core §3.1: `ANONYMOUS` and `ANONYMOUS-…` names are allowed by default only in `default`. */
export function anonymousRefused(auth: AuthState, realm: string, name: string): boolean {
  if (name !== Protocol.ANONYMOUS && !name.startsWith(`${Protocol.ANONYMOUS}-`)) return false;
  return !(auth.realm(realm)?.allow_anonymous ?? realm === Protocol.DEFAULT_REALM);
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time PSK check; a realm requiring a key with none configured refuses every key. */
export function keyMatches(configured: string | undefined, presented: unknown): boolean {
  if (configured === undefined || typeof presented !== 'string') return false;
  return timingSafeEqual(digest(configured), digest(presented));
}
