/**
 * Canonicalisation of signed manager proofs, shared by the broker (verify) and every client of
 * ours (sign: the console, `switchboard-admin`, the tests). Pure: no crypto here — the HMAC is
 * computed at the edges with Node's `crypto` (broker/auth/proof.ts) — so the exact same
 * canonical string is built everywhere.
 *
 * Source: `spec/protocol-admin.md` §6.1–§6.2 (envelope, canonical string, STABLE_JSON).
 */

/** The three proof-gated actions (§6.2 `ACTION`): the event names themselves. */
export const SignedAction = {
  AUTH_MANAGEMENT_COMMAND: 'AUTH_MANAGEMENT_COMMAND',
  AUTHORIZATION_NEXT: 'AUTHORIZATION_NEXT',
  AUTHORIZATION_DECIDE: 'AUTHORIZATION_DECIDE',
} as const;
export type SignedActionName = (typeof SignedAction)[keyof typeof SignedAction];

/** The proof part of a signed envelope (§6.1). `timestamp` is epoch ms. */
export interface ManagerProof {
  timestamp: number | string;
  nonce: string;
  /** 64 lowercase hex characters: HMAC-SHA256 of the canonical string. */
  signature: string;
}

/** A signed envelope as sent on the wire (§6.1). */
export interface SignedEnvelope<B = Record<string, unknown>> {
  body: B;
  proof: ManagerProof;
}

/** Clock-skew window (§6.3): proofs within ±5 minutes of the broker's clock are accepted. */
export const PROOF_WINDOW_MS = 300_000;

/**
 * STABLE_JSON (§6.2): JSON with object keys sorted by UTF-16 code units, `undefined` object
 * members skipped, `undefined` array elements as `null`, non-finite numbers as `null`, no
 * whitespace. Strings and numbers use `JSON.stringify`'s own rules.
 */
export function stableJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
    case 'string':
      return JSON.stringify(value);
    case 'bigint':
    case 'function':
    case 'symbol':
      return 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    parts.push(`${JSON.stringify(key)}:${stableJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The canonical string signed by a proof (§6.2):
 * `ACTION \n TIMESTAMP \n NONCE \n STABLE_JSON(body)`, with the timestamp rendered as the
 * decimal form of `Number(timestamp)`.
 */
export function canonicalProofBase(
  action: SignedActionName,
  timestamp: number | string,
  nonce: string,
  body: unknown,
): string {
  return `${action}\n${String(Number(timestamp))}\n${nonce}\n${stableJson(body ?? {})}`;
}
