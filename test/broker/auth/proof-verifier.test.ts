/**
 * Manager proof verification (`spec/protocol-admin.md` §6.3–§6.5): admin tokens first, realm
 * manager keys only where the caller allows them, nonces single-use, pre-start proofs refused.
 */
import { describe, expect, it } from 'vitest';
import { SignedAction } from '../../../shared/admin-signature';
import { AuthState } from '../../../broker/auth/auth-state';
import { MemoryNonceStore } from '../../../broker/auth/nonce-store';
import { signEnvelope, signProof } from '../../../broker/auth/proof';
import { ProofFailure, verifyManagerProof } from '../../../broker/auth/proof-verifier';

const ADMIN = 'admin-secret-token';
const ALPHA_KEY = 'alpha-manager-key';

function context(notBefore = 0) {
  return {
    auth: new AuthState({
      enabled: true,
      tokens: [{ token: ADMIN, realm: '*', role: 'admin' }],
      realms: { alpha: { manager_key: ALPHA_KEY }, beta: { manager_key: 'beta-key' } },
    }),
    nonces: new MemoryNonceStore(),
    proofsNotBefore: notBefore,
  };
}

describe('verifyManagerProof', () => {
  it('accepts an admin proof with admin scope and returns the body as received', () => {
    const ctx = context();
    const env = signEnvelope(ADMIN, SignedAction.AUTHORIZATION_NEXT, { realm: 'alpha' });
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, env)).toEqual({
      ok: true,
      scope: { kind: 'admin' },
      body: { realm: 'alpha' },
    });
  });

  it('refuses a replayed nonce, a missing proof and a wrong secret with the exact messages', () => {
    const ctx = context();
    const env = signEnvelope(ADMIN, SignedAction.AUTHORIZATION_NEXT, {});
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, env).ok).toBe(true);
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, env)).toEqual({
      ok: false,
      code: 401,
      message: ProofFailure.REPLAYED,
    });
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, { body: {} })).toMatchObject({
      message: 'Missing manager proof',
    });
    const wrong = signEnvelope('nope', SignedAction.AUTHORIZATION_NEXT, {});
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, wrong)).toMatchObject({
      code: 401,
      message: 'Invalid manager proof',
    });
    // The failed attempt did not burn its nonce: the same nonce signed correctly still works.
    const ts = Date.now();
    const nonce = wrong.proof.nonce;
    const signature = signProof(ADMIN, SignedAction.AUTHORIZATION_NEXT, ts, nonce, {});
    const fixed = { body: {}, proof: { timestamp: ts, nonce, signature } };
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, fixed).ok).toBe(true);
  });

  it('uses a realm manager key only for the realm the caller names', () => {
    const ctx = context();
    const body = { realm: 'alpha' };
    const env = () => signEnvelope(ALPHA_KEY, SignedAction.AUTHORIZATION_NEXT, body);
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, env(), {})).toMatchObject({
      ok: false,
    });
    expect(
      verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, env(), { realm: 'beta' }),
    ).toMatchObject({ ok: false, message: 'Invalid manager proof' });
    expect(
      verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, env(), { realm: 'alpha' }),
    ).toMatchObject({ ok: true, scope: { kind: 'realm', realm: 'alpha' } });
  });

  it('refuses a proof signed for another action', () => {
    const ctx = context();
    const env = signEnvelope(ADMIN, SignedAction.AUTHORIZATION_DECIDE, {});
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, env).ok).toBe(false);
  });

  it('refuses proofs timestamped before the process started (in-memory nonces)', () => {
    const now = Date.now();
    const ctx = context(now);
    const old = signEnvelope(ADMIN, SignedAction.AUTHORIZATION_NEXT, {}, now - 60_000);
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, old, {}, now)).toEqual({
      ok: false,
      code: 401,
      message: `${ProofFailure.SKEWED} (signed before the broker started; server time ${new Date(now).toISOString()}, timestamp ${new Date(now - 60_000).toISOString()})`,
      server_time: now,
    });
    // Nobody's signature: no word about the window.
    const forged = signEnvelope('nope', SignedAction.AUTHORIZATION_NEXT, {}, now - 60_000);
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, forged, {}, now)).toEqual({
      ok: false,
      code: 401,
      message: ProofFailure.INVALID,
    });
    const fresh = signEnvelope(ADMIN, SignedAction.AUTHORIZATION_NEXT, {}, now);
    expect(verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, fresh, {}, now).ok).toBe(true);
  });

  it('says "timestamp outside the window" to a skewed realm-key signer too, and burns no nonce', () => {
    const now = Date.now();
    const ctx = context();
    const skewed = signEnvelope(ALPHA_KEY, SignedAction.AUTHORIZATION_NEXT, {}, now - 400_000);
    expect(
      verifyManagerProof(ctx, SignedAction.AUTHORIZATION_NEXT, skewed, { realm: 'alpha' }, now),
    ).toMatchObject({ ok: false, code: 401, server_time: now });
    expect(ctx.nonces.live(now)).toEqual([]);
  });
});
