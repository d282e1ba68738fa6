/**
 * Per-realm requirements and the role/event matrix.
 *
 * Source: `spec/protocol-admin.md` §3.1 (roles), §3.3 (event permission matrix), §3.5
 * (requirement resolution; all false while auth is disabled), `spec/protocol-core.md` §3.1
 * (anonymous policy: allowed by default only in `default`).
 */
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
