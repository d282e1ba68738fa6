/**
 * `spec/protocol-extensions.md` §7.2: the reference helper's test inputs (R131–R134) as
 * vectors against our signer and verifier (`broker/auth/proof.ts`), and Note 7-E — a signature
 * with trailing non-hex characters, which the reference helper's lenient decoding accepts, is
 * refused.
 */
import { describe, expect, it } from 'vitest';
import { proofMatches, signProof } from '../../../broker/auth/proof';
import { stableJson, type SignedActionName } from '../../../shared/admin-signature';

const TS = 1760000000000;
const NONCE = '00112233445566778899aabbccddeeff';
const ADD_REALM = { command: 'add_realm', realm: 'org:acme', required: true };
const DECIDE = { approved: true, request_id: 'r1', role: 'producer' };

/** §7.2 item 2: the helper signs any action string (`"X"`), hence the casts below. */
const VECTORS = [
  {
    secret: 'secret',
    action: 'AUTH_MANAGEMENT_COMMAND',
    body: ADD_REALM,
    signature: 'cff210300ce64ab2eb45d310da7c952ef1b121cb1c7d1524d1bd75d6312550a6',
  },
  {
    secret: 'other',
    action: 'AUTH_MANAGEMENT_COMMAND',
    body: ADD_REALM,
    signature: '65febea850e578126afb9d31ef54ec3b03abacbf21e325dd83a9a835f4c21ca0',
  },
  {
    secret: 'k',
    action: 'AUTHORIZATION_DECIDE',
    body: { ...DECIDE, reason: undefined },
    signature: '5d5e41982def0495139a3fc8f31a5352406c8a8cb99a87228360d2a269cee3b1',
  },
  {
    secret: 'k',
    action: 'X',
    body: { c: 3, b: 2, a: 1 },
    signature: 'b9bc23fe380783f91535ce1d2dc8441731e6ddbc36b20dc35ad4dcb2dbfdfa1a',
  },
] as const;

describe('admin signature facts (§7.2)', () => {
  it.each(VECTORS)('signs $action under "$secret" as the reference helper', (v) => {
    expect(signProof(v.secret, v.action as SignedActionName, TS, NONCE, v.body)).toBe(v.signature);
  });

  it('R131: a proof verifies for its secret and fails under "other"', () => {
    const proof = { timestamp: TS, nonce: NONCE, signature: VECTORS[0].signature };
    expect(proofMatches('secret', 'AUTH_MANAGEMENT_COMMAND', ADD_REALM, proof, TS)).toBe(true);
    expect(proofMatches('other', 'AUTH_MANAGEMENT_COMMAND', ADD_REALM, proof, TS)).toBe(false);
  });

  it('R132–R134: undefined members, key order and undefined array elements', () => {
    const proof = { timestamp: TS, nonce: NONCE, signature: VECTORS[2].signature };
    const roundTripped = JSON.parse(JSON.stringify({ ...DECIDE, reason: undefined })) as object;
    expect(proofMatches('k', 'AUTHORIZATION_DECIDE', roundTripped, proof, TS)).toBe(true);
    expect(stableJson({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(signProof('k', 'X' as SignedActionName, TS, NONCE, { a: 1, b: 2, c: 3 })).toBe(
      VECTORS[3].signature,
    );
    expect(stableJson([1, undefined, 3])).toBe('[1,null,3]');
  });

  it('Note 7-E: trailing non-hex characters are refused, upper-case hex is accepted', () => {
    const base = { timestamp: TS, nonce: NONCE };
    const good = VECTORS[0].signature;
    const check = (signature: string) =>
      proofMatches('secret', 'AUTH_MANAGEMENT_COMMAND', ADD_REALM, { ...base, signature }, TS);
    expect(check(`${good}zz`)).toBe(false);
    expect(check(`${good.slice(0, 62)}!!`)).toBe(false);
    expect(check(good.toUpperCase())).toBe(true);
  });
});
