/**
 * Strict JWT handling (issue 20 defect 6): implausible `exp`/`nbf`/`iat` (`1e400`, times in
 * milliseconds, an `iat` in the future) and duplicated member names are refused; weak
 * `jwt_secret`s stop the broker at start with an error naming the key; a refused client learns
 * whether its genuine token expired or is not valid yet, and nothing more.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jwtSecretWeakness, parseAuthConfig } from '../../../broker/auth/auth-schema';
import { hasDuplicateKeys } from '../../../broker/auth/jwt-claims';
import { authenticate, hs256, startAuthBroker, useAuthBroker } from '../../helpers/auth-clients';

const JWT_SECRET = 'strict-jwt-secret-0123456789abcdefXYZ';
const ALPHA_KEY = 'alpha-manager-key-for-strict-tests';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** A compact HS256 JWT whose payload is `payload` verbatim (duplicates and all). */
function rawJwt(secret: string, payload: string, header = '{"alg":"HS256","typ":"JWT"}'): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

const INVALID = { event: 'AUTH_FAIL', code: 401, message: 'Invalid authentication token' };

describe('JWT claims (§4.2, RFC 7519)', () => {
  const ctx = useAuthBroker({
    jwt_secret: JWT_SECRET,
    allow_jwt_admin_realm: false,
    realms: { alpha: { manager_key: ALPHA_KEY }, beta: {} },
  });
  const login = async (token: string) => authenticate(await ctx.h.connect(), { token });
  const later = Math.floor(Date.now() / 1000) + 3600;

  it('accepts a well-formed token signed verbatim (the control)', async () => {
    const token = rawJwt(JWT_SECRET, `{"realm":"r","role":"both","exp":${later}}`);
    expect(await login(token)).toEqual({ event: 'AUTH_OK', realm: 'r', role: 'both' });
  });

  it('refuses exp 1e400 (Infinity), an exp in milliseconds, a negative exp and nbf 1e400', async () => {
    for (const claims of [
      '{"realm":"r","role":"both","exp":1e400}',
      `{"realm":"r","role":"both","exp":${Date.now() + 3_600_000}}`,
      '{"realm":"r","role":"both","exp":-1}',
      `{"realm":"r","role":"both","exp":${later},"nbf":-1e400}`,
      `{"realm":"r","role":"both","exp":${later},"iat":1e400}`,
    ]) {
      expect({ claims, reply: await login(rawJwt(JWT_SECRET, claims)) }).toEqual({
        claims,
        reply: INVALID,
      });
    }
  });

  it('refuses an iat in the future and an exp not after nbf', async () => {
    const now = Math.floor(Date.now() / 1000);
    const future = rawJwt(
      JWT_SECRET,
      `{"realm":"r","role":"both","exp":${later},"iat":${now + 600}}`,
    );
    const backwards = rawJwt(
      JWT_SECRET,
      `{"realm":"r","role":"both","exp":${now + 10},"nbf":${now + 10}}`,
    );
    expect(await login(future)).toEqual(INVALID);
    expect(await login(backwards)).toEqual(INVALID);
  });

  it('refuses a duplicated realm claim (either key), a duplicated role, an escaped duplicate and a duplicated alg', async () => {
    for (const [secret, claims] of [
      [ALPHA_KEY, `{"realm":"beta","role":"both","exp":${later},"realm":"alpha"}`],
      [JWT_SECRET, `{"realm":"alpha","role":"both","exp":${later},"realm":"beta"}`],
      [JWT_SECRET, `{"realm":"r","role":"consumer","role":"admin","exp":${later}}`],
      [JWT_SECRET, `{"realm":"r","re\\u0061lm":"x","role":"both","exp":${later}}`],
    ] as const) {
      expect({ claims, reply: await login(rawJwt(secret, claims)) }).toEqual({
        claims,
        reply: INVALID,
      });
    }
    const header = '{"alg":"none","alg":"HS256"}';
    expect(
      await login(rawJwt(JWT_SECRET, `{"realm":"r","role":"both","exp":${later}}`, header)),
    ).toEqual(INVALID);
  });

  it('says "expired" / "not yet valid" only for a token whose signature verified', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await login(await hs256(JWT_SECRET, { realm: 'r', role: 'both' }, now - 60))).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: 'Authentication token expired',
    });
    expect(await login(await hs256(ALPHA_KEY, { realm: 'alpha', role: 'both' }, now - 60))).toEqual(
      {
        event: 'AUTH_FAIL',
        code: 401,
        message: 'Authentication token expired',
      },
    );
    expect(
      await login(await hs256(JWT_SECRET, { realm: 'r', role: 'both', nbf: now + 600 })),
    ).toEqual({ event: 'AUTH_FAIL', code: 401, message: 'Authentication token not yet valid' });
    // Expired, but signed with a key the broker does not hold: nothing more than "invalid".
    const forged = await hs256(
      'some-other-secret-0123456789abcdefXYZ',
      { realm: 'r', role: 'both' },
      now - 60,
    );
    expect(await login(forged)).toEqual(INVALID);
  });
});

describe('weak jwt_secret refused at start-up', () => {
  it('refuses one space, a short secret, one repeated character and a repeated word, naming the key', async () => {
    for (const secret of [' ', 'jwt', 'a'.repeat(64), 'password'.repeat(4), 'abab'.repeat(16)]) {
      await expect(startAuthBroker({ jwt_secret: secret })).rejects.toThrow(
        /auth\.jwt_secret: is too weak/,
      );
    }
  });

  it('never echoes the secret in the error', async () => {
    const secret = 'short-secret-xyz';
    const err = await startAuthBroker({ jwt_secret: secret }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/auth\.jwt_secret/);
    expect(err?.message).not.toContain(secret);
  });

  it('accepts generated secrets (hex, base64, decimal) and refuses weak ones in the schema too', () => {
    for (const secret of [
      'f3a9c2e17b4d8a6059e2c1b7d4f8a3e6',
      'q9Xb7T2mL0vR4sN8kP1wZ6yH3cJ5fD0aE7gU2iO9tA=',
      '48213907561283947560192837465019',
    ]) {
      expect({ secret, weakness: jwtSecretWeakness(secret) }).toEqual({ secret, weakness: null });
    }
    expect(parseAuthConfig({ jwt_secret: 'x'.repeat(40) }).success).toBe(false);
  });
});

describe('hasDuplicateKeys', () => {
  it('finds repeated member names at any depth, decoded, and ignores strings that are values', () => {
    expect(hasDuplicateKeys('{"a":1,"b":2}')).toBe(false);
    expect(hasDuplicateKeys('{"a":1,"a":2}')).toBe(true);
    expect(hasDuplicateKeys('{"a":"a","b":["a","a"],"c":{"a":1}}')).toBe(false);
    expect(hasDuplicateKeys('{"c":{"x":1,"x":2}}')).toBe(true);
    expect(hasDuplicateKeys('{"a\\"b":1,"a\\u0022b":2}')).toBe(true);
    expect(hasDuplicateKeys('[{"a":1},{"a":1}]')).toBe(false);
    expect(hasDuplicateKeys('{"a":{},"b":[],"a ":1}')).toBe(false);
  });
});
