/**
 * The E2EE key directory (`spec/protocol-extensions.md` §2) and the shared extension rules
 * (§1.2–§1.4): R1–R9 of §2.7 replayed with stock `socket.io-client` sockets against a real
 * broker, the exact texts of §2.1, §1.3's parsing, Note 2-B, Note 2-E and Note 1.4-A.
 */
import { describe, expect, it } from 'vitest';
import { MetricName } from '../../../shared/metric-names';
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../../shared/protocol-events';
import { authenticate, startAuthBroker } from '../../helpers/auth-clients';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  useBroker,
  type Harness,
} from '../../helpers/broker-harness';
import { chunkFrames } from '../../helpers/stock-clients';
import { expectNothing, waitFor } from '../../helpers/wait';
import { adminSettings, manager } from '../admin/management-client';
import { call, lookupKey, publishKey } from './key-clients';

const KEY = { key_id: 'dev-1-enc', alg: 'ecdh-es-p256-a256gcm', public_key: 'BASE64-PUBKEY' };

async function withBroker<T>(settings: object, run: (h: Harness) => Promise<T>): Promise<T> {
  const h = await startBroker(settings);
  try {
    return await run(h);
  } finally {
    await h.close();
  }
}

describe('KEY_PUBLISH / KEY_LOOKUP (§2.1, §2.2, R1–R7)', () => {
  const ctx = useBroker();

  it('R1–R3: publish, look up from another client, rotate in place; unknown identity is []', async () => {
    const consumer = await ctx.h.consumer('dev-consumer');
    const producer = await ctx.h.producer('op-console');
    expect(await publishKey(consumer, { identity: 'dev-consumer', ...KEY })).toEqual({ ok: true });
    const [entry, ...rest] = await lookupKey(producer, 'dev-consumer');
    expect(rest).toEqual([]);
    expect(entry).toMatchObject(KEY);
    expect(new Date(entry!.updated_at).toISOString()).toBe(entry!.updated_at);

    await publishKey(consumer, { identity: 'dev-consumer', key_id: 'dev-1-enc', public_key: 'X' });
    const rotated = { ...KEY, public_key: 'ROTATED-PUBKEY' };
    expect(await publishKey(consumer, { identity: 'dev-consumer', ...rotated })).toEqual({
      ok: true,
    });
    expect(await lookupKey(producer, 'dev-consumer')).toEqual([expect.objectContaining(rotated)]);
    expect(await lookupKey(producer, 'nobody-here')).toEqual([]);
  });

  it('R4: an identity not registered on the connection is refused (403)', async () => {
    const producer = await ctx.h.producer('op-console');
    expect(await publishKey(producer, { identity: 'someone-else', ...KEY })).toEqual({
      ok: false,
      code: 403,
      message: "identity 'someone-else' is not registered on this connection",
    });
    // A name bound only implicitly (PRODUCE's `from`) is not owned either (§1.5).
    produce(producer, 'implicit-name', 'ev', 1);
    expect((await publishKey(producer, { identity: 'implicit-name', ...KEY })).code).toBe(403);
  });

  it('R6 and §2.1: each check in order, with its exact text', async () => {
    const s = await ctx.h.consumer('c');
    const refused = async (payload: unknown) => call(s, ClientEvent.KEY_PUBLISH, payload);
    expect(await refused('{not json')).toEqual({ ok: false, code: 400, message: 'invalid JSON' });
    expect(await refused({ public_key: 'p' })).toEqual({
      ok: false,
      code: 400,
      message: 'identity is required',
    });
    expect(await refused({ identity: 'c' })).toMatchObject({ message: 'public_key is required' });
    expect(await refused({ identity: 'c', public_key: 'x'.repeat(4097) })).toEqual({
      ok: false,
      code: 400,
      message: 'public_key exceeds 4096 characters',
    });
    expect(await refused({ identity: 'c', public_key: 'p', key_id: 'k'.repeat(129) })).toEqual({
      ok: false,
      code: 400,
      message: 'key_id must be a string of at most 128 characters',
    });
    expect(await refused({ identity: 'c', public_key: 'p', key_id: 5 })).toMatchObject({
      message: 'key_id must be a string of at most 128 characters',
    });
    expect(await refused({ identity: 'c', public_key: 'p', alg: 'a'.repeat(129) })).toEqual({
      ok: false,
      code: 400,
      message: 'alg must be a string of at most 128 characters',
    });
    // Exactly at the limits is accepted; falsy key_id / alg take their defaults.
    const max = { public_key: 'x'.repeat(4096), key_id: 0, alg: '' };
    expect(await refused({ name: 'c', ...max })).toEqual({ ok: true });
    expect(await lookupKey(s, 'c')).toEqual([
      expect.objectContaining({ key_id: 'default', alg: 'ecdh-es-p256-a256gcm' }),
    ]);
  });

  it('R7: eight key_ids, a ninth refused (429, em dash), a republish still accepted', async () => {
    const s = await ctx.h.consumer('c8');
    for (let i = 0; i < 8; i++) {
      expect(await publishKey(s, { identity: 'c8', key_id: `k${i}`, public_key: `P${i}` })).toEqual(
        {
          ok: true,
        },
      );
    }
    expect(
      await publishKey(s, { identity: 'c8', key_id: 'one-too-many', public_key: 'P' }),
    ).toEqual({
      ok: false,
      code: 429,
      message:
        'identity already has 8 published keys \u2014 republish an existing key_id or rotate',
    });
    expect(await publishKey(s, { identity: 'c8', key_id: 'k0', public_key: 'ROTATED' })).toEqual({
      ok: true,
    });
    const keys = await lookupKey(s, 'c8');
    expect(keys.map((k) => k.key_id)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']);
    expect(keys[0]!.public_key).toBe('ROTATED');
  });

  it('§1.3 and Note 2-B: JSON strings, `name`, prototype names, no callback', async () => {
    const s = await ctx.h.consumer('__proto__');
    const json = JSON.stringify({ name: '__proto__', key_id: 'k', public_key: 'P' });
    expect(await call(s, ClientEvent.KEY_PUBLISH, json)).toEqual({ ok: true });
    expect(await lookupKey(s, '__proto__')).toEqual([expect.objectContaining({ public_key: 'P' })]);
    expect(await call(s, ClientEvent.KEY_LOOKUP, { identity: 'constructor' })).toEqual({
      keys: [],
    });
    expect(await call(s, ClientEvent.KEY_LOOKUP, '{bad')).toEqual({ keys: [] });
    expect(await call(s, ClientEvent.KEY_LOOKUP)).toEqual({ keys: [] });
    // Without a callback the work is still done (§1.2).
    s.emit(ClientEvent.KEY_PUBLISH, { name: '__proto__', key_id: 'k2', public_key: 'Q' });
    await ctx.h.settle(s);
    expect((await lookupKey(s, '__proto__')).map((k) => k.key_id)).toEqual(['k', 'k2']);
  });

  it('counts refusals in tyo_mq_rejected_inputs_total', async () => {
    await withBroker({ http_api: { enabled: true } }, async (h) => {
      const s = await h.consumer('m');
      await publishKey(s, { identity: 'someone', public_key: 'p' });
      const text = await (await fetch(`${h.url}/api/metrics`)).text();
      expect(text).toMatch(
        new RegExp(`${MetricName.REJECTED_INPUTS_TOTAL}\\{reason="unauthorized"\\} 1`),
      );
    });
  });
});

describe('realm scoping and the auth gate (R5, §1.4, Note 1.4-A)', () => {
  it('R5: a key published in realm-a is not visible from realm-b', async () => {
    const h = await startAuthBroker({
      realms: { 'realm-a': { required: false }, 'realm-b': { required: false } },
    });
    try {
      const a = await h.connect();
      await authenticate(a, { realm: 'realm-a', role: 'both' });
      a.emit(ClientEvent.CONSUMER, { name: 'shared-name' });
      expect(
        await publishKey(a, { identity: 'shared-name', key_id: 'k1', public_key: 'PUB-A' }),
      ).toEqual({ ok: true });
      const b = await h.connect();
      await authenticate(b, { realm: 'realm-b', role: 'both' });
      expect(await lookupKey(b, 'shared-name')).toEqual([]);
      expect(await lookupKey(a, 'shared-name')).toEqual([
        expect.objectContaining({ key_id: 'k1', alg: 'ecdh-es-p256-a256gcm' }),
      ]);
    } finally {
      await h.close();
    }
  });

  it('Note 1.4-A: a refused event also answers the callback with the AUTH_FAIL payload', async () => {
    const h = await startAuthBroker({ realms: { default: { required: true } } });
    try {
      const s = await h.connect();
      const authFail = waitFor<{ code: number; message: string }>(s, ServerEvent.AUTH_FAIL);
      const reply = await publishKey(s, { identity: 'x', public_key: 'p' });
      expect(reply).toEqual({ ok: false, ...(await authFail) });
      expect(reply.code).toBe(401);
      expect(await call(s, ClientEvent.KEY_LOOKUP, { identity: 'x' })).toMatchObject({
        ok: false,
        code: 401,
      });
    } finally {
      await h.close();
    }
  });
});

describe('the realm E2EE policy on PRODUCE (§1.6, §2.6, R8, R9, Note 2-E)', () => {
  async function flow(h: Harness) {
    const consumer = await h.consumer('dev-1');
    await subscribe(consumer, 'dev-1', 'op-console', 'cmd');
    const producer = await h.producer('op-console');
    return { consumer, producer, delivery: exactConsumeEvent('op-console', 'cmd') };
  }

  it('R8: required refuses cleartext with ERROR -6; nothing is delivered', async () => {
    await withBroker({ auth: { realms: { default: { e2ee: 'required' } } } }, async (h) => {
      const { consumer, producer, delivery } = await flow(h);
      const error = waitFor(producer, ServerEvent.ERROR);
      const nothing = expectNothing(consumer, delivery, 300);
      produce(producer, 'op-console', 'cmd', { hello: 'world' });
      expect(await error).toEqual({
        message: "Realm 'default' requires end-to-end encrypted messages",
        code: ProtocolErrorCode.E2EE_REQUIRED,
      });
      await nothing;
      // A reassembled PRODUCE_CHUNK transfer is refused the same way.
      const chunked = waitFor<{ code: number }>(producer, ServerEvent.ERROR);
      const quiet = expectNothing(consumer, delivery, 300);
      for (const frame of chunkFrames(
        { event: 'cmd', message: 'x'.repeat(300), from: 'op-console' },
        100,
      )) {
        producer.emit(ClientEvent.PRODUCE_CHUNK, frame);
      }
      expect((await chunked).code).toBe(ProtocolErrorCode.E2EE_REQUIRED);
      await quiet;
      // Note 2-E: a truthy but shapeless `enc` is cleartext too; a confirm callback is answered.
      const confirm = await producer.timeout(2_000).emitWithAck(ClientEvent.PRODUCE, {
        event: 'cmd',
        message: 'x',
        from: 'op-console',
        enc: {},
      });
      expect(confirm).toMatchObject({ ok: false, code: ProtocolErrorCode.E2EE_REQUIRED });
      // The envelope shape stock clients send is relayed with every field unchanged.
      const enc = { v: 1, alg: 'ecdh-es-p256-a256gcm', epk: 'E', iv: 'I', kid: 'dev-1-enc' };
      const got = waitFor<Record<string, unknown>>(consumer, delivery);
      produce(producer, 'op-console', 'cmd', 'CIPHERTEXT', { enc });
      expect(await got).toMatchObject({
        event: 'cmd',
        message: 'CIPHERTEXT',
        from: 'op-console',
        enc,
      });
    });
  });

  it('R9: without a policy cleartext arrives', async () => {
    await withBroker({}, async (h) => {
      const { consumer, producer, delivery } = await flow(h);
      const got = waitFor<Record<string, unknown>>(consumer, delivery);
      produce(producer, 'op-console', 'cmd', { hello: 'world' });
      expect((await got).message).toEqual({ hello: 'world' });
    });
  });

  it('§1.6: set_realm_e2ee applies to the next PRODUCE (live settings)', async () => {
    await withBroker(adminSettings(), async (h) => {
      const { producer } = await flow(h);
      const m = await manager(h);
      expect(
        (await m.run({ command: 'set_realm_e2ee', realm: 'default', e2ee: 'required' })).ok,
      ).toBe(true);
      const error = waitFor<{ code: number }>(producer, ServerEvent.ERROR);
      produce(producer, 'op-console', 'cmd', 'clear');
      expect((await error).code).toBe(ProtocolErrorCode.E2EE_REQUIRED);
      expect((await m.run({ command: 'set_realm_e2ee', realm: 'default', e2ee: 'off' })).ok).toBe(
        true,
      );
      const confirm = await producer
        .timeout(2_000)
        .emitWithAck(ClientEvent.PRODUCE, { event: 'cmd', message: 'clear', from: 'op-console' });
      expect(confirm).toMatchObject({ ok: true });
    });
  });
});
