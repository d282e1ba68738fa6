/**
 * Verification of signed manager proofs: which secrets are tried, in which order, and the
 * nonce claim that makes each proof single-use.
 *
 * Source: `spec/protocol-admin.md` §6.3 (exact order and messages), §6.4 (replay protection,
 * with its note (b): with an in-memory nonce store, proofs timestamped before the process
 * started are refused, so a proof captured before a restart cannot be replayed after it) and
 * §6.5 (global admin tokens first, then the realm's `manager_key` where the caller allows it).
 */
import { PROOF_WINDOW_MS, type SignedActionName } from '../../shared/admin-signature';
import type { ClusterNonceClaimer } from '../cluster/shared-nonces';
import type { AuthState } from './auth-state';
import { NONCE_TTL_MS, type NonceStore } from './nonce-store';
import { checkProof, type ProofCheck } from './proof';

/** What a proof grants: every realm (a global admin token) or one realm (its manager key). */
export type ProofScope = { kind: 'admin' } | { kind: 'realm'; realm: string };

export type ProofResult =
  | { ok: true; scope: ProofScope; body: unknown }
  | {
      ok: false;
      code: 401;
      message: string;
      /** With `ProofFailure.SKEWED`: the broker's clock (epoch ms), to compare with the signer's. */
      server_time?: number;
    };

/** The parts of the handler context the verifier reads. */
export interface ProofContext {
  readonly auth: AuthState;
  readonly nonces: NonceStore;
  /** Epoch ms; proofs with an older timestamp never match (0 = no lower bound). */
  readonly proofsNotBefore: number;
  /** Cluster-wide nonce claims (§6.4), when the node is clustered; see `verifyProof`. */
  readonly clusterNonces?: ClusterNonceClaimer;
}

/** Exact failure messages of §6.3. */
export const ProofFailure = {
  MISSING: 'Missing manager proof',
  REPLAYED: 'Manager proof nonce was already used',
  INVALID: 'Invalid manager proof',
  /**
   * Ours: a correctly signed proof whose timestamp is more than 5 min from the broker's clock,
   * or (in-memory nonces, §6.4 note b) before this process started. The reply's message goes
   * on with the window and the server time; `server_time` carries it as epoch ms.
   */
  SKEWED: 'Manager proof timestamp outside the window',
  /** Ours: clustered, `cluster.nonce_fail_open: false`, and Redis cannot be asked (§6.4 (c)). */
  UNCHECKED: 'Manager proof nonce could not be checked cluster-wide (Redis unavailable)',
} as const;

const fail = (message: string): ProofResult => ({ ok: false, code: 401, message });

/**
 * Verifies the envelope `{body, proof}` of `action` (§6.1–§6.5).
 *
 * Candidate secrets, in order: every global admin token (`realm:"*"`, `role:"admin"`), then,
 * when `opts.realm` is given (a non-empty string other than `*`), that realm's `manager_key`.
 * Callers decide which realm may be used: `AUTHORIZATION_NEXT` passes `body.realm`,
 * `AUTHORIZATION_DECIDE` the stored request's realm (never a caller-supplied one),
 * `AUTH_MANAGEMENT_COMMAND` `body.realm` for the realm-scoped commands only.
 *
 * The nonce is claimed only after a signature matched (unverified nonces are never recorded),
 * so a replay of a valid proof fails with "Manager proof nonce was already used".
 *
 * A proof that one of the candidate secrets really signed but whose timestamp is outside the
 * window is answered `ProofFailure.SKEWED` (then the window and both times) with `server_time`, so an operator
 * sees a clock problem rather than "Invalid manager proof"; nothing is said about proofs no
 * candidate secret signed. The timestamp must be in the one strict format of
 * `parseProofTimestamp` (a hex, padded or fractional timestamp is "Invalid manager proof").
 *
 * @returns `{ok:true, scope, body}` with `body` exactly as received (missing body = `{}`), or
 *   `{ok:false, code:401, message, server_time?}` with one of the messages of `ProofFailure`.
 */
export function verifyManagerProof(
  ctx: ProofContext,
  action: SignedActionName,
  envelope: unknown,
  opts: { realm?: string } = {},
  now: number = Date.now(),
): ProofResult {
  const env = isObject(envelope) ? envelope : {};
  const body = env.body ?? {};
  const proof = env.proof;
  if (!isObject(proof) || !proof.nonce) return fail(ProofFailure.MISSING);

  // §6.4 note (b): nothing signed before this process started can be replayed into it.
  const notBefore = ctx.proofsNotBefore;
  let skewed = false;
  const check = (secret: string): boolean => {
    const verdict: ProofCheck = checkProof(secret, action, body, proof, now, notBefore);
    if (verdict === 'skewed') skewed = true;
    return verdict === 'ok';
  };
  let scope: ProofScope | null = null;
  for (const entry of ctx.auth.adminTokens()) {
    if (check(entry.token)) {
      scope = { kind: 'admin' };
      break;
    }
  }
  const realm = opts.realm;
  if (!scope && typeof realm === 'string' && realm !== '' && realm !== '*') {
    const key = ctx.auth.realm(realm)?.manager_key;
    if (key && check(key)) scope = { kind: 'realm', realm };
  }
  if (!scope) {
    if (!skewed) return fail(ProofFailure.INVALID);
    // A genuine signer with a wrong clock: say so, with our clock (nothing secret in either).
    const ts = Number(proof.timestamp);
    const iso = (ms: number) => new Date(ms).toISOString();
    const detail =
      Math.abs(now - ts) <= PROOF_WINDOW_MS
        ? 'signed before the broker started'
        : `±${PROOF_WINDOW_MS / 1000} s`;
    return {
      ok: false,
      code: 401,
      message: `${ProofFailure.SKEWED} (${detail}; server time ${iso(now)}, timestamp ${iso(ts)})`,
      server_time: now,
    };
  }

  if (!ctx.nonces.claim(String(proof.nonce), now + NONCE_TTL_MS)) {
    return fail(ProofFailure.REPLAYED);
  }
  return { ok: true, scope, body };
}

/**
 * `verifyManagerProof`, then, when `ctx.clusterNonces` is set, the cluster-wide claim of §6.4:
 * a nonce already claimed by another node → 401 "Manager proof nonce was already used"; Redis
 * unavailable → allowed when `failOpen`, else 401 `ProofFailure.UNCHECKED`. Never rejects.
 * The three signed events call this one.
 */
export async function verifyProof(
  ctx: ProofContext,
  action: SignedActionName,
  envelope: unknown,
  opts: { realm?: string } = {},
): Promise<ProofResult> {
  const local = verifyManagerProof(ctx, action, envelope, opts);
  if (!local.ok || !ctx.clusterNonces) return local;
  const nonce = String((envelope as { proof: { nonce: unknown } }).proof.nonce);
  const claim = await ctx.clusterNonces.claim(nonce);
  if (claim === 'used') return fail(ProofFailure.REPLAYED);
  if (claim === 'unavailable' && !ctx.clusterNonces.failOpen) return fail(ProofFailure.UNCHECKED);
  return local;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Approximate frame size in bytes of a verified signed event (its JSON text), for giving back
 * the pre-auth budget it used (`LimitsService.creditSignedEvent`). Only called after a proof
 * verified, so the payload is already bounded by the input limits.
 */
export function signedSize(payload: unknown): number {
  try {
    return JSON.stringify(payload)?.length ?? 0;
  } catch {
    return 0;
  }
}
