import { canonicalProofBase, stableJson } from '../../../shared/admin-signature';
import {
  checkProof,
  parseProofTimestamp,
  proofMatches,
  signEnvelope,
  signProof,
} from '../../../broker/auth/proof';

// spec/protocol-admin.md §6.2 test vectors.
const VECTORS = [
  {
    secret: 'secret-admin',
    action: 'AUTH_MANAGEMENT_COMMAND',
    nonce: '00112233445566778899aabbccddeeff',
    body: { command: 'add_realm', ephemeral: true, realm: 'org:acme', required: true, ttl: '2h' },
    signature: '6d959e7a4e373071a77189b2fc1c17d8ea30d98b243564cddb44a606f19d5a7d',
  },
  {
    secret: 'realm-manager-key',
    action: 'AUTHORIZATION_DECIDE',
    nonce: 'ffeeddccbbaa99887766554433221100',
    body: {
      approved: true,
      reason: null,
      request_id: 'authreq-mg0abc12-0a1b2c3d4e5f',
      role: 'consumer',
    },
    signature: '5978c921e9bf5daeeab03bb238eee5989f20c8c03344400723e6987ff0b6f9be',
  },
  {
    secret: 'secret-admin',
    action: 'AUTHORIZATION_NEXT',
    nonce: '0f0e0d0c0b0a09080706050403020100',
    body: {},
    signature: '9608cecffa561faa1f2c3328c3944b43f9c6ad8d88f98b6fe8806a141ea7f6bc',
  },
] as const;
const TS = 1760000000000;

describe('manager proof signatures (§6.2)', () => {
  it.each(VECTORS)('matches the spec vector for $action', (v) => {
    expect(signProof(v.secret, v.action, TS, v.nonce, v.body)).toBe(v.signature);
    expect(
      proofMatches(
        v.secret,
        v.action,
        v.body,
        { timestamp: TS, nonce: v.nonce, signature: v.signature },
        TS,
      ),
    ).toBe(true);
  });

  it('stable JSON sorts keys, skips undefined members and nulls undefined array elements', () => {
    expect(stableJson({ b: [1, undefined, { z: 'x', a: null }], a: 1.5 })).toBe(
      '{"a":1.5,"b":[1,null,{"a":null,"z":"x"}]}',
    );
    expect(stableJson({ b: undefined, a: 1 })).toBe(stableJson({ a: 1 }));
    expect(stableJson({ x: 1, y: 2 })).toBe(stableJson({ y: 2, x: 1 }));
    expect(stableJson([undefined])).toBe(JSON.stringify([undefined]));
    expect(stableJson({ s: 'é/"\\\u0001', n: Infinity })).toBe('{"n":null,"s":"é/\\"\\\\\\u0001"}');
  });

  it('renders the timestamp as Number(timestamp)', () => {
    expect(canonicalProofBase('AUTHORIZATION_NEXT', '1760000000000', 'n', {})).toBe(
      'AUTHORIZATION_NEXT\n1760000000000\nn\n{}',
    );
  });

  it('a proof verifies for its secret, action and body only', () => {
    const now = Date.now();
    const { body, proof } = signEnvelope('s1', 'AUTH_MANAGEMENT_COMMAND', { command: 'get' }, now);
    expect(proofMatches('s1', 'AUTH_MANAGEMENT_COMMAND', body, proof, now)).toBe(true);
    expect(proofMatches('s2', 'AUTH_MANAGEMENT_COMMAND', body, proof, now)).toBe(false);
    expect(proofMatches('s1', 'AUTHORIZATION_NEXT', body, proof, now)).toBe(false);
    expect(proofMatches('s1', 'AUTH_MANAGEMENT_COMMAND', { command: 'stats' }, proof, now)).toBe(
      false,
    );
    // A body with an undefined member verifies against its JSON round trip.
    const signed = signEnvelope(
      's1',
      'AUTH_MANAGEMENT_COMMAND',
      { command: 'get', x: undefined },
      now,
    );
    const wire = JSON.parse(JSON.stringify(signed)) as typeof signed;
    expect(proofMatches('s1', 'AUTH_MANAGEMENT_COMMAND', wire.body, wire.proof, now)).toBe(true);
  });

  it('refuses proofs outside the ±5 min window and signatures that are not 64 hex', () => {
    const now = Date.now();
    const { body, proof } = signEnvelope('s', 'AUTHORIZATION_NEXT', {}, now - 300_001);
    expect(proofMatches('s', 'AUTHORIZATION_NEXT', body, proof, now)).toBe(false);
    const future = signEnvelope('s', 'AUTHORIZATION_NEXT', {}, now + 299_000);
    expect(proofMatches('s', 'AUTHORIZATION_NEXT', {}, future.proof, now)).toBe(true);
    const ok = signEnvelope('s', 'AUTHORIZATION_NEXT', {}, now);
    expect(
      proofMatches(
        's',
        'AUTHORIZATION_NEXT',
        {},
        { ...ok.proof, signature: `${ok.proof.signature}zz` },
        now,
      ),
    ).toBe(false);
    expect(
      proofMatches(
        's',
        'AUTHORIZATION_NEXT',
        {},
        { ...ok.proof, signature: ok.proof.signature.slice(0, 62) },
        now,
      ),
    ).toBe(false);
    expect(
      proofMatches(
        's',
        'AUTHORIZATION_NEXT',
        {},
        { ...ok.proof, signature: ok.proof.signature.toUpperCase() },
        now,
      ),
    ).toBe(true);
    expect(proofMatches('s', 'AUTHORIZATION_NEXT', {}, { ...ok.proof, nonce: '' }, now)).toBe(
      false,
    );
  });

  it('parses one timestamp format: a positive integer, as a JSON number or plain decimal digits', () => {
    const ts = 1760000000000;
    expect(parseProofTimestamp(ts)).toBe(ts);
    expect(parseProofTimestamp(String(ts))).toBe(ts);
    for (const lax of [
      '0x199a4b5e000',
      `0${ts}`,
      ` ${ts}`,
      `${ts}\n`,
      `+${ts}`,
      `${ts}.0`,
      ts + 0.5,
      '1.76e12',
      `${ts}e0`,
      '0b1',
      '0',
      0,
      -ts,
      Infinity,
      NaN,
      '',
      null,
      true,
      [ts],
      { valueOf: () => ts },
      9_000_000_000_000_000,
      '9000000000000000',
      '１７６００００００００００', // full-width digits
    ]) {
      expect(parseProofTimestamp(lax), String(lax)).toBeNull();
    }
  });

  it('tells a correctly signed but skewed proof from an invalid one', () => {
    const now = Date.now();
    const { proof } = signEnvelope('s', 'AUTHORIZATION_NEXT', {}, now - 300_001);
    expect(checkProof('s', 'AUTHORIZATION_NEXT', {}, proof, now)).toBe('skewed');
    expect(checkProof('other', 'AUTHORIZATION_NEXT', {}, proof, now)).toBe('invalid');
    const fresh = signEnvelope('s', 'AUTHORIZATION_NEXT', {}, now);
    expect(checkProof('s', 'AUTHORIZATION_NEXT', {}, fresh.proof, now)).toBe('ok');
    expect(checkProof('s', 'AUTHORIZATION_NEXT', {}, fresh.proof, now, now + 1)).toBe('skewed');
  });

  it('signs with an integer timestamp, whatever clock value it is given', () => {
    const { proof } = signEnvelope('s', 'AUTHORIZATION_NEXT', {}, 1760000000000.7);
    expect(proof.timestamp).toBe(1760000000000);
    expect(parseProofTimestamp(proof.timestamp)).toBe(1760000000000);
    expect(checkProof('s', 'AUTHORIZATION_NEXT', {}, proof, 1760000000000)).toBe('ok');
  });
});
