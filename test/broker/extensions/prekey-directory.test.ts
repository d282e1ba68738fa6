/**
 * The Signal prekey directory (`spec/protocol-extensions.md` §3): R21–R29 of §3.4 replayed
 * with stock `socket.io-client` sockets against a real broker, §3.1's checks in order with
 * their exact texts, Notes 3-B (take limits), 3-C (id ranges), 3-D (ids merged in place) and
 * concurrent takes that never hand out one one-time key twice.
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent } from '../../../shared/protocol-events';
import { authenticate, startAuthBroker } from '../../helpers/auth-clients';
import { startBroker, useBroker } from '../../helpers/broker-harness';
import { call } from './key-clients';
import { BUNDLE, oneTime, publishPrekeys, takePrekeys } from './prekey-clients';

const STATIC_TEXT =
  'identity_key, signed_prekey (+sig) and kyber_prekey (+sig) are required (base64, <= 4096 chars)';
const ENTRY_TEXT = 'each one-time prekey must be {id: integer, key: base64 <= 4096 chars}';

describe('PREKEY_PUBLISH / PREKEY_TAKE (§3.1, §3.2, R21–R27, R29)', () => {
  const ctx = useBroker();

  it('R21–R24: publish, three takes in order, then the bundle without a one-time key', async () => {
    const alice = await ctx.h.consumer('alice');
    const bob = await ctx.h.consumer('bob');
    expect(await publishPrekeys(alice, 'alice', BUNDLE)).toEqual({
      ok: true,
      one_time_available: 3,
    });
    const first = await takePrekeys(bob, 'alice');
    const { one_time_prekeys: _pool, ...staticPart } = BUNDLE;
    expect(first).toEqual({
      found: true,
      ...staticPart,
      one_time_prekey_id: 1,
      one_time_prekey: 'OTP-1',
      one_time_remaining: 2,
    });
    expect(first).not.toHaveProperty('updated_at');
    expect(await takePrekeys(bob, 'alice')).toMatchObject({ one_time_prekey: 'OTP-2' });
    // Anyone in the realm may take, the owner included.
    expect(await takePrekeys(alice, 'alice')).toMatchObject({
      one_time_prekey_id: 3,
      one_time_prekey: 'OTP-3',
      one_time_remaining: 0,
    });
    expect(await takePrekeys(bob, 'alice')).toEqual({
      found: true,
      ...staticPart,
      one_time_prekey_id: null,
      one_time_prekey: null,
      one_time_remaining: 0,
    });
  });

  it('R25: a republish replaces the static part and appends to the pool', async () => {
    const alice = await ctx.h.consumer('alice');
    const bob = await ctx.h.consumer('bob');
    await publishPrekeys(alice, 'alice', {
      ...BUNDLE,
      one_time_prekeys: [{ id: 1, key: 'OTP-1' }],
    });
    expect((await takePrekeys(bob, 'alice'))?.one_time_prekey).toBe('OTP-1');
    const v2 = {
      ...BUNDLE,
      signed_prekey: 'SIGNED-PUB-v2',
      one_time_prekeys: [{ id: 9, key: 'OTP-9' }],
    };
    expect(await publishPrekeys(alice, 'alice', v2)).toEqual({ ok: true, one_time_available: 1 });
    expect(await takePrekeys(bob, 'alice')).toMatchObject({
      signed_prekey: 'SIGNED-PUB-v2',
      one_time_prekey: 'OTP-9',
    });
  });

  it('R26, R27, R29 and §1.3: not owned, unknown identity, no kyber key, bad JSON', async () => {
    const alice = await ctx.h.consumer('alice');
    const r26 = await publishPrekeys(alice, 'someone-else', BUNDLE);
    expect(r26).toEqual({
      ok: false,
      code: 403,
      message: "identity 'someone-else' is not registered on this connection",
    });
    expect(await takePrekeys(alice, 'nobody')).toBeNull();
    const { kyber_prekey: _k, kyber_prekey_sig: _s, ...noKyber } = BUNDLE;
    const r29 = await publishPrekeys(alice, 'alice', noKyber);
    expect(r29).toEqual({ ok: false, code: 400, message: STATIC_TEXT });
    expect(r29.message).toMatch(/kyber_prekey/);
    expect(await takePrekeys(alice, 'alice')).toBeNull();
    expect(await call(alice, ClientEvent.PREKEY_PUBLISH, '{no')).toEqual({
      ok: false,
      code: 400,
      message: 'invalid JSON',
    });
    expect(await call(alice, ClientEvent.PREKEY_TAKE, '{no')).toEqual({ found: false });
    expect(await call(alice, ClientEvent.PREKEY_TAKE)).toEqual({ found: false });
  });

  it('§3.1: checks in order — ownership before the fields — with their exact texts', async () => {
    const s = await ctx.h.consumer('c');
    const publish = (payload: object) => call(s, ClientEvent.PREKEY_PUBLISH, payload);
    expect(await publish(BUNDLE)).toEqual({
      ok: false,
      code: 400,
      message: 'identity is required',
    });
    expect((await publish({ identity: 'other', identity_key: '' })).code).toBe(403);
    expect(await publish({ name: 'c', ...BUNDLE, identity_key: 'x'.repeat(4097) })).toMatchObject({
      message: STATIC_TEXT,
    });
    expect(await publish({ name: 'c', ...BUNDLE, one_time_prekeys: oneTime(101) })).toEqual({
      ok: false,
      code: 400,
      message: 'one_time_prekeys exceeds 100 per publish',
    });
    // Note 3-C: null, fractional, negative, over uint32 or non-numeric ids are refused …
    for (const id of [null, 1.5, -1, 4_294_967_296, 'x', '7.5', undefined]) {
      const bad = [
        { id: 1, key: 'K1' },
        { id, key: 'K' },
      ];
      expect(await publish({ name: 'c', ...BUNDLE, one_time_prekeys: bad })).toEqual({
        ok: false,
        code: 400,
        message: ENTRY_TEXT,
      });
    }
    expect(
      (await publish({ name: 'c', ...BUNDLE, one_time_prekeys: [{ id: 1, key: '' }] })).message,
    ).toBe(ENTRY_TEXT);
    // … and the whole publish with them: nothing was stored.
    expect(await takePrekeys(s, 'c')).toBeNull();
    for (const bad of [{ device_id: 128 }, { registration_id: -5 }, { signed_prekey_id: 2.5 }]) {
      expect((await publish({ name: 'c', ...BUNDLE, ...bad })).code).toBe(400);
    }
    // Numeric strings are accepted; falsy ids take the reference's defaults.
    const odd = { ...BUNDLE, registration_id: 0, device_id: '', kyber_prekey_id: '12' };
    const reply = await publish({ name: 'c', ...odd, one_time_prekeys: [{ id: '7', key: 'K7' }] });
    expect(reply).toEqual({ ok: true, one_time_available: 1 });
    expect(await takePrekeys(s, 'c')).toMatchObject({
      registration_id: 0,
      device_id: 1,
      kyber_prekey_id: 12,
      one_time_prekey_id: 7,
    });
    // A missing or non-array pool counts as [].
    expect(await publish({ name: 'c', ...BUNDLE, one_time_prekeys: 'nope' })).toEqual({
      ok: true,
      one_time_available: 0,
    });
  });

  it('Note 3-D: a republished id replaces its entry in place; the first 100 win', async () => {
    const alice = await ctx.h.consumer('alice');
    const bob = await ctx.h.consumer('bob');
    await publishPrekeys(alice, 'alice', { ...BUNDLE, one_time_prekeys: oneTime(3) });
    const again = [{ id: 2, key: 'NEW-2' }, ...oneTime(99, 4)];
    expect(await publishPrekeys(alice, 'alice', { ...BUNDLE, one_time_prekeys: again })).toEqual({
      ok: true,
      one_time_available: 100,
    });
    expect((await takePrekeys(bob, 'alice'))?.one_time_prekey).toBe('OTP-1');
    expect((await takePrekeys(bob, 'alice'))?.one_time_prekey).toBe('NEW-2');
  });

  it('concurrent takes never hand out the same one-time prekey twice', async () => {
    const alice = await ctx.h.consumer('alice');
    await publishPrekeys(alice, 'alice', { ...BUNDLE, one_time_prekeys: oneTime(40) });
    const takers = await Promise.all(Array.from({ length: 10 }, (_, i) => ctx.h.consumer(`t${i}`)));
    // Five takes per socket (the per-target budget), all in flight at once: 50 for 40 keys.
    const replies = await Promise.all(
      takers.flatMap((t) => Array.from({ length: 5 }, () => takePrekeys(t, 'alice'))),
    );
    const keys = replies.map((r) => r?.one_time_prekey).filter((k): k is string => !!k);
    expect(keys).toHaveLength(40);
    expect(new Set(keys).size).toBe(40);
    expect(replies.filter((r) => r?.found && r.one_time_prekey === null)).toHaveLength(10);
  });
});

describe('Note 3-B: take limits serve the bundle without a one-time key', () => {
  it('per socket: e2ee.prekey_takes_per_minute', async () => {
    const h = await startBroker({ e2ee: { prekey_takes_per_minute: 3 } });
    try {
      const alice = await h.consumer('alice');
      const carol = await h.consumer('carol');
      await publishPrekeys(alice, 'alice', { ...BUNDLE, one_time_prekeys: oneTime(10) });
      await publishPrekeys(carol, 'carol', { ...BUNDLE, one_time_prekeys: oneTime(10) });
      const bob = await h.consumer('bob');
      await takePrekeys(bob, 'alice');
      await takePrekeys(bob, 'alice');
      await takePrekeys(bob, 'carol');
      expect(await takePrekeys(bob, 'carol')).toMatchObject({
        found: true,
        identity_key: 'IDENT-PUB',
        one_time_prekey: null,
        one_time_remaining: 0,
      });
      // Another socket still gets one: the keys were withheld, not spent.
      expect(await takePrekeys(carol, 'carol')).toMatchObject({
        one_time_prekey: 'OTP-2',
        one_time_remaining: 8,
      });
    } finally {
      await h.close();
    }
  });

  it('per target: five one-time keys of one identity per requester per hour', async () => {
    const h = await startBroker();
    try {
      const alice = await h.consumer('alice');
      await publishPrekeys(alice, 'alice', { ...BUNDLE, one_time_prekeys: oneTime(10) });
      const bob = await h.consumer('bob');
      for (let i = 1; i <= 5; i++) {
        expect((await takePrekeys(bob, 'alice'))?.one_time_prekey).toBe(`OTP-${i}`);
      }
      expect((await takePrekeys(bob, 'alice'))?.one_time_prekey).toBeNull();
      expect((await takePrekeys(alice, 'alice'))?.one_time_prekey).toBe('OTP-6');
    } finally {
      await h.close();
    }
  });
});

describe('realm scoping (R28)', () => {
  it('a bundle published in realm-a is not takeable from realm-b', async () => {
    const h = await startAuthBroker({
      realms: { 'realm-a': { required: false }, 'realm-b': { required: false } },
    });
    try {
      const a = await h.connect();
      await authenticate(a, { realm: 'realm-a', role: 'both' });
      a.emit(ClientEvent.CONSUMER, { name: 'alice' });
      expect((await publishPrekeys(a, 'alice', BUNDLE)).ok).toBe(true);
      const b = await h.connect();
      await authenticate(b, { realm: 'realm-b', role: 'both' });
      expect(await takePrekeys(b, 'alice')).toBeNull();
      expect((await takePrekeys(a, 'alice'))?.one_time_prekey).toBe('OTP-1');
    } finally {
      await h.close();
    }
  });
});
