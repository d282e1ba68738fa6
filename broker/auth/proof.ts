/**
 * Signing and verification of manager proofs with HMAC-SHA256 (Node crypto at the edge; the
 * canonical string comes from `shared/admin-signature.ts`).
 *
 * Source: `spec/protocol-admin.md` §6.2 (signature), §6.3 (verification order, skew window,
 * strict 64-hex signatures per the hardening note), §6.4 (nonce replay protection).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  PROOF_WINDOW_MS,
  canonicalProofBase,
  type ManagerProof,
  type SignedActionName,
  type SignedEnvelope,
} from '../../shared/admin-signature';

const HEX64 = /^[0-9a-f]{64}$/i;

/** Lowercase hex HMAC-SHA256 of the canonical string, keyed by the UTF-8 secret (§6.2). */
export function signProof(
  secret: string,
  action: SignedActionName,
  timestamp: number | string,
  nonce: string,
  body: unknown,
): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(canonicalProofBase(action, timestamp, nonce, body), 'utf8')
    .digest('hex');
}

/**
 * Builds a signed envelope for `body` now, with a fresh 16-byte hex nonce (what reference
 * clients send). Used by our clients: the console's manager client, `switchboard-admin`, tests.
 */
export function signEnvelope<B>(
  secret: string,
  action: SignedActionName,
  body: B,
  now: number = Date.now(),
): SignedEnvelope<B> {
  const nonce = randomBytes(16).toString('hex');
  return {
    body,
    proof: { timestamp: now, nonce, signature: signProof(secret, action, now, nonce, body) },
  };
}

/**
 * Whether `proof` is a valid signature of `body` for `action` under `secret` at `now`
 * (§6.3 step 3): truthy fields, a finite timestamp within ±5 min, exactly 64 hex characters,
 * constant-time comparison. The nonce is NOT checked here (see NonceStore).
 */
export function proofMatches(
  secret: string,
  action: SignedActionName,
  body: unknown,
  proof: Partial<ManagerProof>,
  now: number = Date.now(),
): boolean {
  const { timestamp, nonce, signature } = proof;
  if (!timestamp || !nonce || !signature) return false;
  if (typeof nonce !== 'string' || typeof signature !== 'string') return false;
  if (typeof timestamp !== 'number' && typeof timestamp !== 'string') return false;
  const ts = Number(timestamp);
  if (!Number.isFinite(ts) || Math.abs(now - ts) > PROOF_WINDOW_MS) return false;
  if (!HEX64.test(signature)) return false;
  const expected = Buffer.from(signProof(secret, action, ts, nonce, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
