/**
 * `PUSH_REGISTER` / `PUSH_UNREGISTER` over the wire (`spec/protocol-extensions.md` §6.2–§6.4):
 * R84, R85, R90, §6.2's check order and texts, Note 6-B's token patterns, the per-socket rate
 * window, the cap, and the registrations gauge — stock socket.io-client against a real broker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PushText } from '../../../../shared/protocol-extensions';
import { startBroker, type Harness } from '../../../helpers/broker-harness';
import { registerPush, registrations, startPushBroker, unregisterPush } from './push-clients';

const opened: Harness[] = [];
afterEach(async () => {
  for (const h of opened.splice(0)) await h.close();
});

async function nullBroker(env: Record<string, string> = {}) {
  const started = await startPushBroker({ TYO_MQ_PUSH_TRANSPORT: 'null', ...env });
  opened.push(started.h);
  return started;
}

describe('PUSH_REGISTER / PUSH_UNREGISTER (§6.2–§6.3)', () => {
  it('R84: ownership, transports, token length, unregister', async () => {
    const { h } = await nullBroker();
    const bob = await h.consumer('bob');
    expect(await registerPush(bob, { identity: 'carol', transport: 'null', token: 't' })).toEqual({
      ok: false,
      code: 403,
      message: PushText.NOT_OWNED,
    });
    expect(await registrations(h)).toBe(0);
    const ok = { identity: 'bob', transport: 'null', token: 'tok-bob', app_id: 'chat' };
    expect(await registerPush(bob, ok)).toEqual({ ok: true, transport: 'null', count: 1 });
    expect(await registerPush(bob, { ...ok, transport: 'telepathy' })).toMatchObject({
      ok: false,
      code: 400,
      message: PushText.UNKNOWN_TRANSPORT,
    });
    expect(await registerPush(bob, { ...ok, token: 'x'.repeat(4097) })).toMatchObject({
      code: 400,
      message: PushText.TOKEN_REQUIRED,
    });
    // §6.2: an fcm endpoint is accepted on a broker running only `null`.
    expect(await registerPush(bob, { name: 'bob', transport: 'fcm', token: 'fcm:tok_1' })).toEqual({
      ok: true,
      transport: 'fcm',
      count: 2,
    });
    expect(
      await unregisterPush(bob, { identity: 'bob', transport: 'fcm', token: 'fcm:tok_1' }),
    ).toEqual({ ok: true, removed: 1 });
    expect(
      await unregisterPush(bob, { identity: 'bob', transport: 'null', token: 'tok-bob' }),
    ).toEqual({ ok: true, removed: 1 });
    expect(
      await unregisterPush(bob, { identity: 'bob', transport: 'null', token: 'tok-bob' }),
    ).toEqual({ ok: true, removed: 0 });
    expect(await unregisterPush(bob, { identity: 'bob', token: 'tok-bob' })).toMatchObject({
      code: 400,
      message: PushText.UNREGISTER_REQUIRED,
    });
    expect(await registrations(h)).toBe(0);
  });

  it('§6.2 checks: JSON, identity, app_id, env, Note 6-B token patterns', async () => {
    const { h } = await nullBroker();
    const bob = await h.consumer('bob');
    expect(await registerPush(bob, '{nope')).toEqual({
      ok: false,
      code: 400,
      message: 'invalid JSON',
    });
    expect(await registerPush(bob, { transport: 'null', token: 't' })).toMatchObject({
      code: 400,
      message: PushText.IDENTITY_REQUIRED,
    });
    const base = { identity: 'bob', transport: 'null', token: 't' };
    expect(await registerPush(bob, { ...base, app_id: 'a'.repeat(129) })).toMatchObject({
      message: PushText.BAD_APP_ID,
    });
    expect(await registerPush(bob, { ...base, app_id: 7 })).toMatchObject({
      message: PushText.BAD_APP_ID,
    });
    expect(await registerPush(bob, { ...base, app_id: '' })).toMatchObject({ ok: true });
    const apns = { identity: 'bob', transport: 'apns', token: 'abc123deadbeef0011' };
    expect(await registerPush(bob, { ...apns, env: 'staging' })).toMatchObject({
      message: PushText.BAD_ENV,
    });
    // Note 6-B: a token that could change the APNs :path is refused.
    expect(await registerPush(bob, { ...apns, token: 'abcd1234abcd1234/../x' })).toMatchObject({
      message: PushText.TOKEN_REQUIRED,
    });
    expect(await registerPush(bob, { ...apns, transport: 'fcm', token: 'tok?x=1' })).toMatchObject({
      message: PushText.TOKEN_REQUIRED,
    });
    expect(await registerPush(bob, { ...apns, env: 'sandbox' })).toMatchObject({
      ok: true,
      count: 2,
    });
  });

  it('§6.4: re-registering refreshes in place; the 11th endpoint evicts the first', async () => {
    const { h } = await nullBroker();
    const bob = await h.consumer('bob');
    for (let i = 0; i < 10; i++) {
      expect(
        await registerPush(bob, { identity: 'bob', transport: 'null', token: `t${i}` }),
      ).toMatchObject({ count: i + 1 });
    }
    expect(
      await registerPush(bob, { identity: 'bob', transport: 'null', token: 't0' }),
    ).toMatchObject({ count: 10 });
    expect(
      await registerPush(bob, { identity: 'bob', transport: 'null', token: 't10' }),
    ).toMatchObject({ count: 10 });
    // t0 was refreshed in place (still first), so t0 is the one evicted.
    expect(await unregisterPush(bob, { identity: 'bob', transport: 'null', token: 't0' })).toEqual({
      ok: true,
      removed: 0,
    });
    expect(await unregisterPush(bob, { identity: 'bob', transport: 'null', token: 't1' })).toEqual({
      ok: true,
      removed: 1,
    });
    expect(await registrations(h)).toBe(9);
  });

  it('§6.2 check 3: the 31st call of a socket in the window is 429 (register and unregister share it)', async () => {
    const { h } = await nullBroker();
    const bob = await h.consumer('bob');
    for (let i = 0; i < 15; i++) {
      await registerPush(bob, { identity: 'bob', transport: 'null', token: 't' });
      await unregisterPush(bob, { identity: 'bob', transport: 'null', token: 't' });
    }
    expect(await registerPush(bob, { identity: 'bob', transport: 'null', token: 't' })).toEqual({
      ok: false,
      code: 429,
      message: PushText.RATE_EXCEEDED,
    });
    const other = await h.consumer('other');
    expect(
      await registerPush(other, { identity: 'other', transport: 'null', token: 't' }),
    ).toMatchObject({ ok: true });
  });

  it('R85: push unconfigured answers 501; a bad config disables push', async () => {
    const h = await startBroker({}, { env: {} });
    opened.push(h);
    const bob = await h.consumer('bob');
    expect(await registerPush(bob, { identity: 'bob', transport: 'null', token: 't' })).toEqual({
      ok: false,
      code: 501,
      message: PushText.NOT_CONFIGURED,
    });
    const { h: bad } = await startPushBroker({ TYO_MQ_PUSH_TRANSPORT: 'null,bogus' });
    opened.push(bad);
    const b2 = await bad.consumer('bob');
    expect(
      await registerPush(b2, { identity: 'bob', transport: 'null', token: 't' }),
    ).toMatchObject({ code: 501 });
  });

  it('R90: unsafe unifiedpush URLs are refused at registration, a public one is stored', async () => {
    const { h } = await nullBroker({ TYO_MQ_PUSH_TRANSPORT: 'unifiedpush' });
    const bob = await h.consumer('bob');
    const refused = [
      'http://169.254.169.254/latest/meta-data/',
      'https://127.0.0.1/hook',
      'https://10.0.0.5/hook',
      'https://192.168.1.1/hook',
      'http://example.com/hook',
      'https://[::1]/hook',
      'https://[fc00::1]/hook',
      'https://[64:ff9b::a9fe:a9fe]/hook',
      'https://[2002:a9fe:a9fe::]/hook',
      'https://[::a9fe:a9fe]/hook',
    ];
    for (const endpoint of refused) {
      expect(
        await registerPush(bob, { identity: 'bob', transport: 'unifiedpush', endpoint }),
      ).toEqual({ ok: false, code: 400, message: PushText.URL_REJECTED });
    }
    expect(await registrations(h)).toBe(0);
    expect(
      await registerPush(bob, {
        identity: 'bob',
        transport: 'unifiedpush',
        endpoint: 'https://1.1.1.1/wake',
      }),
    ).toEqual({ ok: true, transport: 'unifiedpush', count: 1 });
  });
});
