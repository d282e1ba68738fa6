/**
 * Sealed sender over the wire (`spec/protocol-extensions.md` §4, R30–R41, R44, R45–R47) with
 * stock socket.io clients and libsignal on the client side: the certificate the broker mints
 * validates against the pinned root, the UAK gates delivery, the send window holds, and Note
 * 1.5-A's Fix keeps a second socket from getting a certificate for `alice`.
 */
import { PrivateKey } from '@signalapp/libsignal-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../../shared/protocol-events';
import { ExtensionLimit, SealedEnv } from '../../../../shared/protocol-extensions';
import { loadSealedConfig } from '../../../../broker/extensions/sealed/sealed-config';
import { uakEquals } from '../../../../broker/extensions/sealed/sealed-guard';
import {
  startBroker,
  sync,
  type BrokerSettings,
  type Harness,
} from '../../../helpers/broker-harness';
import { expectNothing, waitFor } from '../../../helpers/wait';
import {
  b64,
  call,
  mintMaterial,
  parseCert,
  requestSenderCert,
  sendSealed,
  sealedSubscribe,
  setUak,
  uakOf,
  type SealedMaterial,
} from './sealed-clients';
import { SignalParty } from './signal-party';
import { BUNDLE, publishPrekeys } from '../prekey-clients';

const REQUIRED: BrokerSettings = {
  auth: { realms: { default: { e2ee: 'required' } } },
} as BrokerSettings;
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function broker(material: SealedMaterial | null, settings = REQUIRED): Promise<Harness> {
  const h = await startBroker(settings, { env: material?.env ?? {} });
  open.push(h);
  return h;
}

describe('sealed configuration (§4.1–§4.3)', () => {
  it('R30: null without the environment, configured with both values; malformed throws', () => {
    const m = mintMaterial();
    expect(loadSealedConfig({})).toBeNull();
    expect(loadSealedConfig({ [SealedEnv.SERVER_CERT]: m.env[SealedEnv.SERVER_CERT] })).toBeNull();
    expect(loadSealedConfig(m.env)).not.toBeNull();
    expect(() => loadSealedConfig({ ...m.env, [SealedEnv.SERVER_KEY]: '!!not base64' })).toThrow(
      /TYO_MQ_SEALED_SERVER_KEY is not valid base64/,
    );
    expect(() => loadSealedConfig({ ...m.env, [SealedEnv.SERVER_CERT]: b64('junk') })).toThrow(
      /not a ServerCertificate/,
    );
    const other = mintMaterial();
    expect(() =>
      loadSealedConfig({ ...m.env, [SealedEnv.SERVER_KEY]: other.env[SealedEnv.SERVER_KEY] }),
    ).toThrow(/does not certify/);
  });

  it('a malformed environment stops broker creation', async () => {
    const m = mintMaterial();
    await expect(
      startBroker(REQUIRED, { env: { ...m.env, [SealedEnv.SERVER_CERT]: 'AAAA' } }),
    ).rejects.toThrow(/TYO_MQ_SEALED_SERVER_CERT/);
  });

  it('R31, R33: a certificate for alice validates under the root until it expires, not under another root', () => {
    const m = mintMaterial();
    const config = loadSealedConfig(m.env)!;
    const alice = new SignalParty('alice');
    const now = Date.now();
    const key = new Uint8Array(Buffer.from(alice.publicKeyB64(), 'base64'));
    const cert = parseCert(config.mintSenderCert('alice', key, 1, now));
    expect(cert.senderUuid()).toBe('alice');
    expect(cert.expiration()).toBe(now + ExtensionLimit.SEALED_CERT_TTL_MS);
    expect(cert.validate(m.root, now)).toBe(true);
    expect(cert.validate(m.root, cert.expiration())).toBe(true);
    expect(cert.validate(m.root, cert.expiration() + 1)).toBe(false);
    expect(cert.validate(PrivateKey.generate().getPublicKey(), now)).toBe(false);
  });

  it('R32: the UAK comparison', () => {
    expect(uakEquals(Buffer.alloc(16, 7), Buffer.alloc(16, 7))).toBe(true);
    expect(uakEquals(Buffer.alloc(16, 7), Buffer.alloc(16, 8))).toBe(false);
    expect(uakEquals(Buffer.alloc(16, 7), Buffer.alloc(15, 7))).toBe(false);
  });
});

describe('SEALED_CERT_REQUEST and SEALED_UAK_SET (§4.4, §4.5)', () => {
  it('R34, R46, R47: an owned identity gets a valid certificate; others and bad keys do not', async () => {
    const m = mintMaterial();
    const h = await broker(m);
    const alice = new SignalParty('alice');
    const s = await h.consumer('alice');
    const ok = await requestSenderCert(s, 'alice', alice.publicKeyB64(), 1);
    expect(ok.ok).toBe(true);
    expect(ok.server_cert).toBe(m.env[SealedEnv.SERVER_CERT]);
    const cert = parseCert(ok.sender_cert!);
    expect(cert.senderUuid()).toBe('alice');
    expect(cert.validate(m.root, Date.now())).toBe(true);
    expect(await requestSenderCert(s, 'mallory', 'AAAA')).toMatchObject({ ok: false, code: 403 });
    expect(await requestSenderCert(s, 'alice', b64('not-a-key'))).toEqual({
      ok: false,
      code: 400,
      message: 'could not issue certificate',
    });
    // Note 4-I: trailing bytes after a valid key are refused.
    const padded = Buffer.concat([Buffer.from(alice.publicKeyB64(), 'base64'), Buffer.from([0])]);
    expect(await requestSenderCert(s, 'alice', padded.toString('base64'))).toMatchObject({
      code: 400,
    });
    expect(await requestSenderCert(s, 'alice', alice.publicKeyB64(), 128)).toMatchObject({
      code: 400,
    });
    expect(await call(s, ClientEvent.SEALED_CERT_REQUEST, '{bad')).toEqual({
      ok: false,
      code: 400,
      message: 'invalid JSON',
    });
  });

  it('Note 4-A: with a prekey bundle, only its identity key gets a certificate', async () => {
    const h = await broker(mintMaterial());
    const alice = new SignalParty('alice');
    const other = new SignalParty('other-device');
    const s = await h.consumer('alice');
    expect(
      await publishPrekeys(s, 'alice', { ...BUNDLE, identity_key: alice.publicKeyB64() }),
    ).toMatchObject({ ok: true });
    expect(await requestSenderCert(s, 'alice', other.publicKeyB64())).toEqual({
      ok: false,
      code: 403,
      message: 'identity not registered on this connection',
    });
    // The bundle's key in another base64 spelling (no padding) is the same key.
    const unpadded = alice.publicKeyB64().replace(/=+$/, '');
    expect((await requestSenderCert(s, 'alice', unpadded)).ok).toBe(true);
  });

  it('R35: without the sealed environment every SEALED_* event answers 501', async () => {
    const h = await broker(null);
    const s = await h.consumer('alice');
    const reply = await requestSenderCert(s, 'alice', new SignalParty('alice').publicKeyB64());
    expect(reply).toEqual({
      ok: false,
      code: 501,
      message: 'sealed sender not configured on this broker',
    });
    expect(await setUak(s, 'alice', uakOf(7))).toMatchObject({ code: 501 });
    expect(await sendSealed(s, 'default', 'alice', uakOf(7), b64('x'), 'm')).toMatchObject({
      code: 501,
    });
    expect(await sealedSubscribe(s, 'alice')).toMatchObject({ code: 501 });
  });

  it('R36: every branch of SEALED_UAK_SET', async () => {
    const h = await broker(mintMaterial());
    const s = await h.consumer('alice');
    expect(await setUak(s, 'alice', uakOf(7), 'require-uak')).toEqual({
      ok: true,
      mode: 'require-uak',
    });
    expect(await setUak(s, 'alice', Buffer.alloc(10, 7).toString('base64'))).toMatchObject({
      code: 400,
    });
    expect(await setUak(s, 'alice', undefined, 'unrestricted')).toEqual({
      ok: true,
      mode: 'unrestricted',
    });
    expect(await setUak(s, 'carol', uakOf(7))).toMatchObject({ ok: false, code: 403 });
    expect(await call(s, ClientEvent.SEALED_UAK_SET, { identity: 'alice', uak: uakOf(7) })).toEqual(
      {
        ok: true,
        mode: 'require-uak',
      },
    );
    expect(await setUak(s, 'alice', uakOf(7), 'bogus')).toEqual({
      ok: false,
      code: 400,
      message: 'invalid mode',
    });
  });

  it('identity takeover: a second socket claiming alice gets no certificate and no UAK', async () => {
    const h = await broker(mintMaterial());
    const alice = await h.consumer('alice');
    const mallory = await h.producer('alice');
    const key = new SignalParty('mallory').publicKeyB64();
    expect(await requestSenderCert(mallory, 'alice', key)).toMatchObject({ ok: false, code: 403 });
    expect(await setUak(mallory, 'alice', uakOf(1))).toMatchObject({ ok: false, code: 403 });
    expect(await sealedSubscribe(mallory, 'alice')).toMatchObject({ ok: false, code: 403 });
    await sync(alice);
  });

  it('R44: with the realm policy off every SEALED_* event gets 403', async () => {
    const h = await broker(mintMaterial(), {} as BrokerSettings);
    const s = await h.consumer('bob');
    const key = new SignalParty('bob').publicKeyB64();
    expect(await requestSenderCert(s, 'bob', key)).toMatchObject({
      code: 403,
      message: 'sealed sender not enabled for this realm',
    });
    expect(await setUak(s, 'bob', uakOf(9))).toMatchObject({ code: 403 });
    expect(await sendSealed(s, 'default', 'bob', uakOf(9), b64('x'), 'm')).toMatchObject({
      code: 403,
      message: 'sealed sender not enabled for the destination realm',
    });
    expect(await sealedSubscribe(s, 'bob')).toMatchObject({ code: 403 });
  });
});

describe('SEALED_DELIVER online (§4.6, §4.7)', () => {
  it('R37, R38, R45: the right UAK delivers without sender fields; a wrong one and ghosts do not', async () => {
    const h = await broker(mintMaterial());
    const bob = await h.consumer('bob');
    expect(await setUak(bob, 'bob', uakOf(9))).toMatchObject({ ok: true });
    const anon = await h.connect();
    const got = waitFor<Record<string, unknown>>(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), b64('sealed-bytes'), 'm1')).toEqual({
      ok: true,
      delivered: 'online',
    });
    expect(await got).toEqual({ blob: b64('sealed-bytes'), msg_id: 'm1' });
    const none = expectNothing(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(anon, 'default', 'bob', uakOf(1), b64('x'), 'm2')).toEqual({
      ok: false,
      code: 403,
      message: 'not authorised',
    });
    expect(await sendSealed(anon, 'default', 'bob', undefined, b64('x'), 'm3')).toMatchObject({
      code: 403,
    });
    expect(await sendSealed(anon, 'default', 'ghost', uakOf(9), b64('x'), 'm4')).toEqual({
      ok: false,
      code: 404,
      message: 'recipient not reachable',
    });
    await none;
  });

  it('R39: an unrestricted recipient takes blobs without a UAK', async () => {
    const h = await broker(mintMaterial());
    const bob = await h.consumer('bob');
    await setUak(bob, 'bob', undefined, 'unrestricted');
    const anon = await h.connect();
    const got = waitFor(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(anon, 'default', 'bob', undefined, b64('u'), 'u1')).toMatchObject({
      delivered: 'online',
    });
    expect(await got).toEqual({ blob: b64('u'), msg_id: 'u1' });
  });

  it('R41, Note 4-I: blob caps, msg_id and prototype names', async () => {
    const h = await broker(mintMaterial());
    const bob = await h.consumer('bob');
    await setUak(bob, 'bob', uakOf(9));
    const anon = await h.connect();
    const too = 'A'.repeat(Math.ceil((65536 * 4) / 3) + 8);
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), too, 'b')).toEqual({
      ok: false,
      code: 400,
      message: 'blob too large',
    });
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), '', 'b')).toEqual({
      ok: false,
      code: 400,
      message: 'to.realm, to.identity, blob required',
    });
    expect(await sendSealed(anon, 'default', '__proto__', uakOf(9), b64('x'), 'b')).toMatchObject({
      code: 404,
    });
    expect(await sendSealed(anon, '__proto__', 'bob', uakOf(9), b64('x'), 'b')).toMatchObject({
      code: 404,
    });
    expect(
      await call(anon, ClientEvent.SEALED_DELIVER, {
        to: { realm: 'default', identity: 'bob' },
        blob: 'eA==',
        msg_id: null,
      }),
    ).toEqual({ ok: false, code: 400, message: 'invalid msg_id' });
    expect(await call(anon, ClientEvent.SEALED_DELIVER, { to: 'bob', blob: 'eA==' })).toEqual({
      ok: false,
      code: 400,
      message: 'to.realm, to.identity, blob required',
    });
  });

  it('the per-socket send window: the 61st call in 60 s gets 429, a new socket is counted anew', async () => {
    const h = await broker(mintMaterial());
    const bob = await h.consumer('bob');
    await setUak(bob, 'bob', undefined, 'unrestricted');
    const anon = await h.connect();
    const replies = [];
    for (let i = 0; i < ExtensionLimit.SEALED_SENDS_PER_MIN; i += 1) {
      replies.push(await sendSealed(anon, 'default', 'bob', undefined, b64('r'), `r${i}`));
    }
    expect(replies.every((r) => r.ok === true)).toBe(true);
    expect(await sendSealed(anon, 'default', 'bob', undefined, b64('r'), 'over')).toEqual({
      ok: false,
      code: 429,
      message: 'sealed send rate exceeded',
    });
    const fresh = await h.connect();
    expect(await sendSealed(fresh, 'default', 'bob', undefined, b64('r'), 'f')).toMatchObject({
      ok: true,
    });
  });
});
