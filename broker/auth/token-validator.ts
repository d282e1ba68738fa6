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
 * algorithm are refused. Before that, `jwt-claims.ts` refuses duplicate member names and
 * implausible `exp`/`nbf`/`iat` (issue 20 defect 6). `nbf` (and a future `iat`) get a leeway of
 * `JWT_CLOCK_LEEWAY_S` seconds for clock skew between the issuer and the broker; `exp` gets
 * none (§4.2: refused once `exp <= now`), so a token is refused from the instant at which a
 * session it opened is ended (session-revocation.ts).
 *
 * Every grant says what admitted it (`credential`, session-credential.ts) so the session can
 * be ended when that credential expires or its secret changes. A refusal says whether a
 * genuine token (its signature verified) expired or is not valid yet; nothing more.
 */
import { Protocol } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import { ROLES } from './auth-schema';
import { tokenHash, type AuthState } from './auth-state';
import { callValidator, resolveValidator } from './external-validator';
import { readJwt } from './jwt-claims';
import { loadJose } from './lazy-jose';
import { credentialOf, type SessionCredential } from './session-credential';

/** Clock leeway applied to JWT `nbf` and `iat` (seconds); `exp` has none. */
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
  /** What admitted the session and until when (session-credential.ts). */
  credential: SessionCredential;
  /** A verified JWT's `sub` claim (a non-empty string), else absent: its rate-limit identity. */
  subject?: string;
}

/**
 * Why no step accepted a token: `expired` / `not-yet-valid` only for a JWT whose signature
 * verified with a configured key; `invalid` for everything else.
 */
export type TokenRefusal = 'expired' | 'not-yet-valid' | 'invalid';

export interface TokenRefused {
  refused: TokenRefusal;
}

/** The `AUTH_FAIL` message of each refusal (`invalid` is §2.3's exact text). */
export const REFUSAL_MESSAGES: Record<TokenRefusal, string> = {
  invalid: 'Invalid authentication token',
  expired: 'Authentication token expired',
  'not-yet-valid': 'Authentication token not yet valid',
};

export const isGrant = (r: TokenGrant | TokenRefused): r is TokenGrant => !('refused' in r);

const isRole = (role: unknown): role is string =>
  typeof role === 'string' && (ROLES as readonly string[]).includes(role);

const encoder = new TextEncoder();

/** Most informative refusal first: a verified-but-expired token says so. */
const RANK: Record<TokenRefusal, number> = { invalid: 0, 'not-yet-valid': 1, expired: 2 };

export class TokenValidator {
  private readonly budget = new Map<string, { start: number; count: number }>();

  /** `validatorTimeoutMs`: the external validator's total time per call (`callValidator`). */
  constructor(
    private readonly auth: AuthState,
    private readonly logger: Logger,
    private readonly validatorTimeoutMs?: number,
  ) {}

  /**
   * Validates `token` with `hint` (the declared realm) for a client at `ip`.
   * @returns the grant, or why no step accepts the token.
   * @throws Error when the external validator fails (unreachable, slow, not JSON) or the IP's
   *   validation budget is spent (the caller answers "Authentication failed").
   */
  async validate(
    token: string,
    hint: string | undefined,
    ip: string,
  ): Promise<TokenGrant | TokenRefused> {
    const config = this.auth.config;
    let refusal: TokenRefusal = 'invalid';
    const note = (r: TokenRefusal) => {
      if (RANK[r] > RANK[refusal]) refusal = r;
    };
    const reading = readJwt(token, Date.now(), JWT_CLOCK_LEEWAY_S);
    if (reading && !reading.ok) {
      this.logger.warn({ realm: hint, reason: reading.reason }, 'malformed JWT refused');
    }
    const claims = reading?.ok ? reading.claims : null;
    // 1. Per-realm JWT: the (unverified) realm claim selects the key, so a token claiming realm
    // A can only verify with A's manager key. Realm `*` never has a delegated key.
    const claimed = typeof claims?.realm === 'string' ? claims.realm : undefined;
    if (claimed && claimed !== Protocol.ADMIN_REALM) {
      const key = this.auth.realm(claimed)?.manager_key;
      if (key) {
        const grant = await this.verifyJwt(token, key, 'realm-jwt', claimed);
        if (isGrant(grant)) {
          if (grant.realm === claimed) return grant;
        } else note(grant.refused);
      }
    }
    // 2. Global JWT.
    if (claims && config.jwt_secret) {
      const grant = await this.verifyJwt(token, config.jwt_secret, 'jwt', null);
      if (isGrant(grant)) {
        if (grant.realm !== Protocol.ADMIN_REALM || config.allow_jwt_admin_realm) return grant;
      } else note(grant.refused);
    }
    // 3. Static tokens, by digest.
    const hash = tokenHash(token);
    const entry = this.auth.tokenByHash(hash);
    if (entry) {
      const credential: SessionCredential = {
        kind: 'static',
        fingerprint: hash,
        scope: null,
        expiresAt: null,
      };
      return { realm: entry.realm, role: entry.role, tokenHash: hash, via: 'static', credential };
    }
    // 4. External validator.
    const realmHint = hint ?? claimed;
    const target = resolveValidator(config, realmHint);
    if (!target) return { refused: refusal };
    this.spend(ip);
    const result = await callValidator(target, token, realmHint, this.validatorTimeoutMs);
    if (!result) return { refused: refusal };
    const credential = credentialOf('external', realmHint ?? null, null, target.url, target.secret);
    return { ...result, tokenHash: null, via: 'external', credential };
  }

  private async verifyJwt(
    token: string,
    secret: string,
    via: 'realm-jwt' | 'jwt',
    scope: string | null,
  ): Promise<TokenGrant | TokenRefused> {
    let payload: Record<string, unknown>;
    const { errors, jwtVerify } = await loadJose();
    try {
      ({ payload } = await jwtVerify(token, encoder.encode(secret), {
        algorithms: ['HS256'],
        clockTolerance: JWT_CLOCK_LEEWAY_S,
      }));
    } catch (err) {
      // The claims are checked only once the signature verified: these two come from a
      // genuine token. Wrong key, malformed, another algorithm: not a JWT for this step (§4.2).
      if (err instanceof errors.JWTExpired) return { refused: 'expired' };
      if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'nbf') {
        return { refused: 'not-yet-valid' };
      }
      return { refused: 'invalid' };
    }
    // §4.2: refused once `exp <= now` (jose allowed the leeway).
    const exp = typeof payload.exp === 'number' ? payload.exp * 1000 : null;
    if (exp !== null && Date.now() >= exp) return { refused: 'expired' };
    if (!payload.realm || !isRole(payload.role)) return { refused: 'invalid' };
    if (exp === null) {
      if (this.auth.config.require_jwt_exp) return { refused: 'invalid' };
      this.logger.warn({ realm: String(payload.realm), via }, 'JWT without exp accepted');
    }
    return {
      realm: String(payload.realm),
      role: payload.role,
      tokenHash: null,
      via,
      credential: credentialOf(via, scope, exp, secret),
      ...(typeof payload.sub === 'string' && payload.sub !== '' && { subject: payload.sub }),
    };
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
