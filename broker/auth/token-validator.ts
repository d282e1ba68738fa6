/**
 * The token validation pipeline: first success wins, failures fall through.
 *
 * Source: `spec/protocol-admin.md` §4.1 (order: per-realm JWT, global JWT, static tokens,
 * external validator), §4.2 (HS256 only; `exp`/`nbf`; `realm` and `role` claims) with its
 * hardening notes (§18 item 5: role allow-list, optional `exp` requirement, realm `*` from the
 * global secret only when `allow_jwt_admin_realm` is set), §4.3 (static tokens looked up by the
 * SHA-256 digest, §18 item 2) and §4.4 (external validators, with a per-IP budget).
 *
 * JWTs are verified by `jose` with `algorithms: ['HS256']`, so `alg: none` and every other
 * algorithm are refused. `exp`/`nbf` get a leeway of `JWT_CLOCK_LEEWAY_S` seconds for clock skew
 * between the token issuer and the broker (the reference has none).
 */
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { Protocol } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import { ROLES } from './auth-schema';
import { tokenHash, type AuthState } from './auth-state';
import { callValidator, resolveValidator } from './external-validator';

/** Clock leeway applied to JWT `exp` and `nbf` (seconds). */
export const JWT_CLOCK_LEEWAY_S = 5;
/** Outbound external validations allowed per client IP per window. */
export const VALIDATIONS_PER_IP = 30;
/** Window of the per-IP validation budget (ms). */
export const VALIDATION_WINDOW_MS = 60_000;

/** A successful validation. `tokenHash` is set only for static tokens (revocation, §3.5 note). */
export interface TokenGrant {
  realm: string;
  role: string;
  tokenHash: string | null;
  /** How the token was validated, for logs (never the token). */
  via: 'realm-jwt' | 'jwt' | 'static' | 'external';
}

const isRole = (role: unknown): role is string =>
  typeof role === 'string' && (ROLES as readonly string[]).includes(role);

const encoder = new TextEncoder();

export class TokenValidator {
  private readonly budget = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly auth: AuthState,
    private readonly logger: Logger,
  ) {}

  /**
   * Validates `token` with `hint` (the declared realm) for a client at `ip`.
   * @returns the grant, or null when no step accepts the token.
   * @throws Error when the external validator fails (unreachable, slow, not JSON) or the IP's
   *   validation budget is spent (the caller answers "Authentication failed").
   */
  async validate(token: string, hint: string | undefined, ip: string): Promise<TokenGrant | null> {
    const config = this.auth.config;
    const claims = unverifiedClaims(token);
    // 1. Per-realm JWT: the (unverified) realm claim selects the key, so a token claiming realm
    // A can only verify with A's manager key. Realm `*` never has a delegated key.
    const claimed = typeof claims?.realm === 'string' ? claims.realm : undefined;
    if (claimed && claimed !== Protocol.ADMIN_REALM) {
      const key = this.auth.realm(claimed)?.manager_key;
      if (key) {
        const grant = await this.verifyJwt(token, key, 'realm-jwt');
        if (grant && grant.realm === claimed) return grant;
      }
    }
    // 2. Global JWT.
    if (claims && config.jwt_secret) {
      const grant = await this.verifyJwt(token, config.jwt_secret, 'jwt');
      if (grant && (grant.realm !== Protocol.ADMIN_REALM || config.allow_jwt_admin_realm)) {
        return grant;
      }
    }
    // 3. Static tokens, by digest.
    const hash = tokenHash(token);
    const entry = this.auth.tokenByHash(hash);
    if (entry) return { realm: entry.realm, role: entry.role, tokenHash: hash, via: 'static' };
    // 4. External validator.
    const realmHint = hint ?? claimed;
    const target = resolveValidator(config, realmHint);
    if (!target) return null;
    this.spend(ip);
    const result = await callValidator(target, token, realmHint);
    return result ? { ...result, tokenHash: null, via: 'external' } : null;
  }

  private async verifyJwt(
    token: string,
    secret: string,
    via: 'realm-jwt' | 'jwt',
  ): Promise<TokenGrant | null> {
    try {
      const { payload } = await jwtVerify(token, encoder.encode(secret), {
        algorithms: ['HS256'],
        clockTolerance: JWT_CLOCK_LEEWAY_S,
      });
      if (!payload.realm || !isRole(payload.role)) return null;
      if (payload.exp === undefined) {
        if (this.auth.config.require_jwt_exp) return null;
        this.logger.warn({ realm: String(payload.realm), via }, 'JWT without exp accepted');
      }
      return { realm: String(payload.realm), role: payload.role, tokenHash: null, via };
    } catch {
      // Wrong key, expired, malformed, another algorithm: not a JWT for this step (§4.2).
      return null;
    }
  }

  /** Spends one outbound validation of `ip`'s budget (§4.4 note). @throws when spent. */
  private spend(ip: string): void {
    const now = Date.now();
    if (this.budget.size > 10_000) {
      for (const [k, v] of this.budget)
        if (now - v.start >= VALIDATION_WINDOW_MS) this.budget.delete(k);
    }
    let slot = this.budget.get(ip);
    if (!slot || now - slot.start >= VALIDATION_WINDOW_MS) {
      slot = { start: now, count: 0 };
      this.budget.set(ip, slot);
    }
    if (++slot.count > VALIDATIONS_PER_IP) {
      throw new Error('external validation budget for this address is spent');
    }
  }
}

/** The claims of an HS256-headed compact JWT, read without verification; null if not one. */
function unverifiedClaims(token: string): Record<string, unknown> | null {
  if (token.split('.').length !== 3) return null;
  try {
    if (decodeProtectedHeader(token).alg !== 'HS256') return null;
    return decodeJwt(token);
  } catch {
    return null;
  }
}
