/**
 * `AUTHENTICATION` with tokens: the §2.3 decision order, static tokens, HS256 JWTs (global and
 * per-realm), realm scoping of traffic and realm `*` (`spec/protocol-admin.md` §2–§4, §19
 * "phase1-auth-realms").
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import {
  ADMIN_TOKEN,
  authenticate,
  consumerIn,
  hs256,
  loggedIn,
  producerIn,
  useAuthBroker,
} from '../../helpers/auth-clients';
import { exactConsumeEvent, produce, subscribe, sync } from '../../helpers/broker-harness';
import { jsProducerPayload } from '../../helpers/stock-clients';
import { expectNothing, waitFor } from '../../helpers/wait';

const JWT_SECRET = 'global-jwt-secret-for-tests-0123456789abcdefXYZ';
const ALPHA_KEY = 'alpha-realm-manager-key';

const TOKENS = [
  { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
  { token: 'alpha-producer', realm: 'alpha', role: 'producer' },
  { token: 'alpha-consumer', realm: 'alpha', role: 'consumer' },
  { token: 'beta-producer', realm: 'beta', role: 'producer' },
  { token: 'beta-consumer', realm: 'beta', role: 'consumer' },
  { token: 'no-role-token', realm: 'gamma' },
];

describe('AUTHENTICATION with static tokens (§2.3, §4.3)', () => {
  const ctx = useAuthBroker({ tokens: TOKENS });

  it('refuses PRODUCER on an unauthenticated socket with AUTH_FAIL 401', async () => {
    const s = await ctx.h.connect();
    const fail = waitFor(s, ServerEvent.AUTH_FAIL);
    s.emit(ClientEvent.PRODUCER, jsProducerPayload('p'));
    expect(await fail).toEqual({ code: 401, message: 'Authentication required before PRODUCER' });
    expect(ctx.h.rawStats().realms.default).toBeUndefined();
  });

  it('answers a configured token with AUTH_OK {realm, role} exactly; a token without role gets both', async () => {
    const s = await ctx.h.connect();
    const reply = await new Promise((resolve) => {
      s.once(ServerEvent.AUTH_OK, (...args: unknown[]) => resolve(args));
      s.emit(ClientEvent.AUTHENTICATION, { token: 'alpha-consumer' });
    });
    expect(reply).toEqual([{ realm: 'alpha', role: 'consumer' }]);
    const t = await ctx.h.connect();
    expect(await authenticate(t, { token: 'no-role-token' })).toEqual({
      event: 'AUTH_OK',
      realm: 'gamma',
      role: 'both',
    });
  });

  it('lets producer and consumer of a realm exchange messages; a consumer sending PRODUCER gets 403', async () => {
    const c = await consumerIn(ctx.h, { token: 'alpha-consumer' }, 'worker');
    await subscribe(c, 'worker', 'fleet', 'job');
    const p = await producerIn(ctx.h, { token: 'alpha-producer' }, 'fleet');
    await sync(p);
    const got = waitFor(c, exactConsumeEvent('fleet', 'job'));
    produce(p, 'fleet', 'job', 'hello');
    expect(await got).toMatchObject({ message: 'hello', from: 'fleet' });

    const fail = waitFor(c, ServerEvent.AUTH_FAIL);
    c.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
    expect(await fail).toEqual({
      code: 403,
      message: "Role 'consumer' is not allowed to send PRODUCER",
    });
    expect(ctx.h.rawStats().realms.alpha?.producers.online).toBe(1);
  });

  it('keeps same-named producers and consumers of two realms apart', async () => {
    const ca = await consumerIn(ctx.h, { token: 'alpha-consumer' }, 'worker');
    const cb = await consumerIn(ctx.h, { token: 'beta-consumer' }, 'worker');
    await subscribe(ca, 'worker', 'fleet', 'job');
    await subscribe(cb, 'worker', 'fleet', 'job');
    const pa = await producerIn(ctx.h, { token: 'alpha-producer' }, 'fleet');
    await sync(pa);
    const gotA = waitFor(ca, exactConsumeEvent('fleet', 'job'));
    const nothingB = expectNothing(cb, exactConsumeEvent('fleet', 'job'));
    produce(pa, 'fleet', 'job', 'for-alpha');
    expect(await gotA).toMatchObject({ message: 'for-alpha' });
    await nothingB;
  });

  it('delivers messages of every realm to a consumer in realm * (admin token)', async () => {
    const admin = await consumerIn(ctx.h, { token: ADMIN_TOKEN }, 'monitor');
    await subscribe(admin, 'monitor', 'fleet', 'job');
    const pa = await producerIn(ctx.h, { token: 'alpha-producer' }, 'fleet');
    await sync(pa);
    const got = waitFor(admin, exactConsumeEvent('fleet', 'job'));
    produce(pa, 'fleet', 'job', 'seen-by-admin');
    expect(await got).toMatchObject({ message: 'seen-by-admin' });
  });

  it('follows the exact refusals of §2.3: bad JSON, already authenticated, missing and invalid token', async () => {
    const s = await ctx.h.connect();
    expect(await authenticate(s, '{not json')).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: 'Invalid authentication payload',
    });
    expect(await authenticate(s, {})).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: 'Missing authentication token',
    });
    expect(await authenticate(s, { token: 'nope' })).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: 'Invalid authentication token',
    });
    expect(await authenticate(s, JSON.stringify({ token: 'alpha-consumer' }))).toMatchObject({
      event: 'AUTH_OK',
      realm: 'alpha',
    });
    expect(await authenticate(s, { token: 'beta-consumer' })).toEqual({
      event: 'AUTH_FAIL',
      code: 403,
      message: 'Socket is already authenticated',
    });
  });

  it('lets the token realm win over a declared realm (reference behaviour)', async () => {
    const s = await ctx.h.connect();
    expect(await authenticate(s, { token: 'alpha-consumer', realm: 'beta' })).toEqual({
      event: 'AUTH_OK',
      realm: 'alpha',
      role: 'consumer',
    });
  });

  it('replays events sent before AUTH_OK once the token is accepted', async () => {
    const s = await ctx.h.connect();
    const ok = waitFor(s, ServerEvent.AUTH_OK);
    s.emit(ClientEvent.AUTHENTICATION, { token: 'alpha-producer' });
    s.emit(ClientEvent.PRODUCER, jsProducerPayload('eager'));
    await ok;
    await sync(s);
    expect(ctx.h.rawStats().realms.alpha?.producers.online).toBe(1);
  });
});

describe('realm mismatch hardening (§2.3 note)', () => {
  const ctx = useAuthBroker({ tokens: TOKENS, reject_realm_mismatch: true });

  it('refuses a token scoped to another realm than the declared one with 403', async () => {
    const s = await ctx.h.connect();
    expect(await authenticate(s, { token: 'alpha-consumer', realm: 'beta' })).toEqual({
      event: 'AUTH_FAIL',
      code: 403,
      message: "Token is not scoped to realm 'beta'",
    });
  });
});

describe('HS256 JWTs (§4.2)', () => {
  const ctx = useAuthBroker({
    jwt_secret: JWT_SECRET,
    tokens: [{ token: 'static-one', realm: 'statics', role: 'consumer' }],
    realms: { alpha: { manager_key: ALPHA_KEY } },
  });

  it('authenticates a JWT signed with auth.jwt_secret with its realm/role claims', async () => {
    const s = await ctx.h.connect();
    const jwt = await hs256(JWT_SECRET, { realm: 'org:acme', role: 'producer' });
    expect(await authenticate(s, { token: jwt })).toEqual({
      event: 'AUTH_OK',
      realm: 'org:acme',
      role: 'producer',
    });
  });

  it('does not let jwt_secret shadow static tokens', async () => {
    const s = await ctx.h.connect();
    expect(await authenticate(s, { token: 'static-one' })).toMatchObject({
      event: 'AUTH_OK',
      realm: 'statics',
    });
  });

  it('refuses expired, not-yet-valid, unknown-role, alg:none and wrong-key tokens with 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await hs256(JWT_SECRET, { realm: 'r', role: 'both' }, now - 60);
    const future = await hs256(JWT_SECRET, { realm: 'r', role: 'both', nbf: now + 600 });
    const badRole = await hs256(JWT_SECRET, { realm: 'r', role: 'superuser' });
    const wrongKey = await hs256('another-secret', { realm: 'r', role: 'both' });
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ realm: 'r', role: 'both' })}.`;
    // A genuine token says why (issue 20): expired, or not valid yet; anything else is invalid.
    for (const [token, message] of [
      [expired, 'Authentication token expired'],
      [future, 'Authentication token not yet valid'],
      [badRole, 'Invalid authentication token'],
      [wrongKey, 'Invalid authentication token'],
      [none, 'Invalid authentication token'],
    ] as const) {
      const s = await ctx.h.connect();
      expect(await authenticate(s, { token })).toEqual({ event: 'AUTH_FAIL', code: 401, message });
    }
  });

  it("refuses realm '*' from the global secret", async () => {
    const s = await ctx.h.connect();
    const jwt = await hs256(JWT_SECRET, { realm: '*', role: 'admin' });
    expect(await authenticate(s, { token: jwt })).toMatchObject({ event: 'AUTH_FAIL', code: 401 });
  });

  it("gives AUTH_OK {realm:'alpha', role:'both'} to a JWT signed with alpha's manager_key", async () => {
    const s = await ctx.h.connect();
    const jwt = await hs256(ALPHA_KEY, { realm: 'alpha', role: 'both' });
    expect(await authenticate(s, { token: jwt })).toEqual({
      event: 'AUTH_OK',
      realm: 'alpha',
      role: 'both',
    });
  });
});

describe('per-realm JWTs without a global secret (§4.1 step 2)', () => {
  const ctx = useAuthBroker({ realms: { alpha: { manager_key: ALPHA_KEY }, beta: {} } });

  it('verifies the spec example token with the realm key', async () => {
    const s = await ctx.h.connect();
    const example =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyZWFsbSI6ImFscGhhIiwicm9sZSI6ImJvdGgiLCJleHAiOjQxMDI0NDQ4MDB9.Gem5oSSYRYRrum5jQzLl9WUYC-W6gOtPHfaWgesZQ9I';
    expect(await authenticate(s, { token: example })).toEqual({
      event: 'AUTH_OK',
      realm: 'alpha',
      role: 'both',
    });
  });

  it('refuses a realm JWT signed with the wrong key, and one for a realm without manager_key', async () => {
    const wrong = await hs256('not-alpha-key', { realm: 'alpha', role: 'both' });
    const noKey = await hs256(ALPHA_KEY, { realm: 'beta', role: 'both' });
    for (const token of [wrong, noKey]) {
      const s = await ctx.h.connect();
      expect(await authenticate(s, { token })).toMatchObject({ event: 'AUTH_FAIL', code: 401 });
    }
  });
});

describe('require_jwt_exp and allow_jwt_admin_realm (§4.2 note)', () => {
  const ctx = useAuthBroker({
    jwt_secret: JWT_SECRET,
    require_jwt_exp: true,
    allow_jwt_admin_realm: true,
  });

  it('refuses a JWT without exp and admits realm * when the operator opts in', async () => {
    const noExp = await hs256(JWT_SECRET, { realm: 'r', role: 'both' }, null);
    const s = await ctx.h.connect();
    expect(await authenticate(s, { token: noExp })).toMatchObject({
      event: 'AUTH_FAIL',
      code: 401,
    });
    const star = await hs256(JWT_SECRET, { realm: '*', role: 'consumer' });
    const t = await loggedIn(ctx.h, { token: star });
    expect(t.connected).toBe(true);
  });
});

describe('auth disabled (§2.1, §2.3 step 2)', () => {
  const ctx = useAuthBroker({ enabled: false, tokens: TOKENS });

  it('answers any AUTHENTICATION with AUTH_OK {realm:"default", role:"both"}, even twice', async () => {
    const s = await ctx.h.connect();
    const expected = { event: 'AUTH_OK', realm: 'default', role: 'both' };
    expect(await authenticate(s, { token: 'alpha-consumer' })).toEqual(expected);
    expect(await authenticate(s, { token: 'whatever' })).toEqual(expected);
  });
});
