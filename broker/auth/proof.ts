/**
 * Signing and verification of manager proofs with HMAC-SHA256 (Node crypto at the edge; the
 * canonical string comes from `shared/admin-signature.ts`).
 *
 * Source: `spec/protocol-admin.md` §6.2 (signature; the timestamp as a decimal integer, which
 * we enforce strictly), §6.3 (verification order, skew window, strict 64-hex signatures per the
 * hardening note), §6.4 (nonce replay protection).
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
  const timestamp = Math.trunc(now); // the strict format: an integer of epoch ms
  return {
    body,
    proof: { timestamp, nonce, signature: signProof(secret, action, timestamp, nonce, body) },
  };
}

/**
 * The one accepted timestamp format (§6.2: "epoch milliseconds as a decimal integer"; ours,
 * strict): a JSON number that is a positive integer, or a string of decimal digits with
 * no sign, padding, leading zeros, fraction, exponent or hex prefix. Anything else (`"0x…"`,
 * `" 1760…"`, `"01760…"`, `1760….5`, `"1.76e12"`) is refused before any signature is computed,
 * so one proof has exactly one canonical string. At most 8.64e15 (the last valid `Date`).
 * @returns the timestamp in epoch ms, or null when the value is not in that format.
 */
export function parseProofTimestamp(value: unknown): number | null {
  let ts: number;
  if (typeof value === 'number') ts = value;
  else if (typeof value === 'string' && TIMESTAMP_TEXT.test(value)) ts = Number(value);
  else return null;
  return Number.isInteger(ts) && ts > 0 && ts <= MAX_DATE_MS ? ts : null;
}

const TIMESTAMP_TEXT = /^[1-9][0-9]{0,15}$/;
/** The last instant a JS `Date` can hold (ECMAScript: ±8.64e15 ms), so every timestamp prints. */
const MAX_DATE_MS = 8_640_000_000_000_000;

/**
 * What a proof is worth under one secret: `'ok'` (valid and inside the window), `'skewed'`
 * (correctly signed by this secret but its timestamp is outside `window`), `'invalid'`
 * (missing fields, a timestamp not in the strict format, not 64 hex, or a wrong signature).
 * `'skewed'` is only said of a proof the secret really signed, so it tells a caller nothing
 * it could not learn from its own clock.
 */
export type ProofCheck = 'ok' | 'skewed' | 'invalid';

/**
 * Checks `proof` of `body` for `action` under `secret` at `now` (§6.3 step 3): truthy fields,
 * a timestamp in the strict format (`parseProofTimestamp`), exactly 64 hex characters,
 * constant-time comparison, then the window: `|now − ts| ≤ 5 min` and `ts ≥ notBefore`.
 * The nonce is NOT checked here (see NonceStore).
 */
export function checkProof(
  secret: string,
  action: SignedActionName,
  body: unknown,
  proof: Partial<ManagerProof>,
  now: number = Date.now(),
  notBefore = 0,
): ProofCheck {
  const { nonce, signature } = proof;
  if (!nonce || !signature) return 'invalid';
  if (typeof nonce !== 'string' || typeof signature !== 'string') return 'invalid';
  const ts = parseProofTimestamp(proof.timestamp);
  if (ts === null) return 'invalid';
  if (!HEX64.test(signature)) return 'invalid';
  const expected = Buffer.from(signProof(secret, action, ts, nonce, body), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
  return Math.abs(now - ts) > PROOF_WINDOW_MS || ts < notBefore ? 'skewed' : 'ok';
}

/** Whether `checkProof` says `'ok'` (a valid proof inside the ±5 min window). */
export function proofMatches(
  secret: string,
  action: SignedActionName,
  body: unknown,
  proof: Partial<ManagerProof>,
  now: number = Date.now(),
): boolean {
  return checkProof(secret, action, body, proof, now) === 'ok';
}
