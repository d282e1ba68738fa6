/**
 * The sealed inbox (`spec/protocol-extensions.md` §4.6 "Offline", §4.8, §4.9, R40, R42, R43,
 * R48) on real SQLite files and with libsignal doing the sealing on the client side: queued
 * blobs replay to their owner (and only to it, Note 1.5-A / 4-B), survive a broker restart, are
 * deleted only once received (Note 4-C), and the realm's queue cap holds.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../../shared/protocol-events';
import { authenticate, consumerIn, loggedIn } from '../../../helpers/auth-clients';
import { startBroker, type BrokerSettings, type Harness } from '../../../helpers/broker-harness';
import { consumerPayload } from '../../../helpers/stock-clients';
import { collect, waitFor } from '../../../helpers/wait';
import { makeTempDir, type TempDir } from '../../../support/temp-dir';
import {
  b64,
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

const BOB_TOKEN = 'bob-token-0123456789abcdef0123456789ab';
const MALLORY_TOKEN = 'mallory-token-0123456789abcdef01234567';

let dir: TempDir;
const open: Harness[] = [];
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

function sqlite(extra: Record<string, unknown> = {}): BrokerSettings {
  return {
    storage: 'sqlite',
    storage_options: { filename: join(dir.path, 'sealed.sqlite') },
    auth: { realms: { default: { e2ee: 'required' } } },
    ...extra,
  } as BrokerSettings;
}

async function broker(m: SealedMaterial, settings: BrokerSettings): Promise<Harness> {
  const h = await startBroker(settings, { env: m.env });
  open.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

describe('sealed inbox', () => {
  it('R42: queued while offline, replayed once to the reconnected owner, across a restart', async () => {
    const m = mintMaterial();
    const first = await broker(m, sqlite());
    const bob = await first.consumer('bob');
    expect(await setUak(bob, 'bob', uakOf(9))).toMatchObject({ ok: true });
    await first.disconnect(bob);
    const anon = await first.connect();
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), b64('queued'), 'q1')).toEqual({
      ok: true,
      delivered: 'queued',
    });
    await first.settle(anon);
    await stop(first);

    const second = await broker(m, sqlite());
    const back = await second.consumer('bob');
    const got = collect<Record<string, unknown>>(back, ServerEvent.SEALED_MESSAGE, 1);
    expect(await sealedSubscribe(back, 'bob')).toEqual({ ok: true, replayed: 1, more: false });
    expect(await got).toEqual([{ blob: b64('queued'), msg_id: 'q1' }]);
    expect(await sealedSubscribe(back, 'bob')).toEqual({ ok: true, replayed: 0, more: false });
    // Note 4-C: the PING round trip follows the broker's ping's pong; then the delete is settled.
    await second.settle(back);
    await stop(second);

    const third = await broker(m, sqlite());
    const again = await third.consumer('bob');
    expect(await sealedSubscribe(again, 'bob')).toEqual({ ok: true, replayed: 0, more: false });
  });

  it('replays in batches of 100 with `more`', async () => {
    const m = mintMaterial();
    const h = await broker(m, sqlite());
    const bob = await h.consumer('bob');
    await setUak(bob, 'bob', undefined, 'unrestricted');
    await h.disconnect(bob);
    for (let i = 0; i < 3; i += 1) {
      const anon = await h.connect();
      for (let j = 0; j < 35; j += 1) {
        expect(
          await sendSealed(anon, 'default', 'bob', undefined, b64('b'), `${i}-${j}`),
        ).toMatchObject({
          delivered: 'queued',
        });
      }
    }
    const back = await h.consumer('bob');
    const all = collect<{ msg_id: string }>(back, ServerEvent.SEALED_MESSAGE, 105);
    expect(await sealedSubscribe(back, 'bob')).toEqual({ ok: true, replayed: 100, more: true });
    expect(await sealedSubscribe(back, 'bob')).toEqual({ ok: true, replayed: 5, more: false });
    expect((await all).map((e) => e.msg_id).slice(0, 2)).toEqual(['0-0', '0-1']);
  });

  it('R43: the realm queue cap answers 507 past max_queued_per_realm', async () => {
    const m = mintMaterial();
    const h = await broker(m, sqlite({ limits: { enabled: true, max_queued_per_realm: 1 } }));
    const bob = await h.consumer('bob');
    await setUak(bob, 'bob', uakOf(9));
    await h.disconnect(bob);
    const anon = await h.connect();
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), b64('1'), 'c1')).toMatchObject({
      delivered: 'queued',
    });
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), b64('2'), 'c2')).toEqual({
      ok: false,
      code: 507,
      message: 'recipient queue full',
    });
  });

  it('only the owner drains: a contested name, another principal, a spoofed consumer_id', async () => {
    const m = mintMaterial();
    const settings = sqlite({
      auth: {
        enabled: true,
        realms: { default: { required: false, e2ee: 'required' } },
        tokens: [
          { token: BOB_TOKEN, realm: 'default', role: 'both' },
          { token: MALLORY_TOKEN, realm: 'default', role: 'both' },
        ],
      },
    });
    const h = await broker(m, settings);
    const bob = await consumerIn(h, { token: BOB_TOKEN }, 'bob');
    await h.settle(bob);
    expect(await setUak(bob, 'bob', uakOf(9))).toMatchObject({ ok: true });
    await h.disconnect(bob);
    const anon = await loggedIn(h, { token: MALLORY_TOKEN });
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), b64('secret'), 's1')).toMatchObject({
      delivered: 'queued',
    });
    // Note 4-B: the inbox is not a durable queue a SUBSCRIBE could address.
    anon.emit(ClientEvent.CONSUMER, consumerPayload('x'));
    anon.emit(ClientEvent.SUBSCRIBE, {
      producer: 'sealed:bob',
      event: '',
      consumer_id: 'bob',
      durable: true,
    });
    // Note 1.5-A: bob's pin keeps another principal out even under bob's name.
    const mallory = await consumerIn(h, { token: MALLORY_TOKEN }, 'bob');
    await h.settle(mallory, anon);
    expect(await sealedSubscribe(mallory, 'bob')).toMatchObject({ ok: false, code: 403 });
    const key = new SignalParty('bob').publicKeyB64();
    expect(await requestSenderCert(mallory, 'bob', key)).toMatchObject({ ok: false, code: 403 });
    await h.disconnect(mallory);
    const owner = await consumerIn(h, { token: BOB_TOKEN }, 'bob');
    await h.settle(owner);
    const got = waitFor(owner, ServerEvent.SEALED_MESSAGE);
    expect(await sealedSubscribe(owner, 'bob')).toEqual({ ok: true, replayed: 1, more: false });
    expect(await got).toEqual({ blob: b64('secret'), msg_id: 's1' });
  });

  it('R40: cross-realm delivery into an open realm with auth on', async () => {
    const m = mintMaterial();
    const settings = {
      auth: {
        enabled: true,
        realms: {
          default: { required: false, e2ee: 'required' },
          acme: { required: false, e2ee: 'required' },
        },
      },
    } as BrokerSettings;
    const h = await broker(m, settings);
    const bob = await h.connect();
    expect((await authenticate(bob, { realm: 'acme', role: 'both' })).event).toBe('AUTH_OK');
    bob.emit(ClientEvent.CONSUMER, consumerPayload('bob'));
    await h.settle(bob);
    expect(await setUak(bob, 'bob', uakOf(5))).toMatchObject({ ok: true });
    const anon = await loggedIn(h, { realm: 'default', role: 'both' });
    const got = waitFor(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(anon, 'acme', 'bob', uakOf(5), b64('cross-realm'), 'x1')).toEqual({
      ok: true,
      delivered: 'online',
    });
    expect(await got).toEqual({ blob: b64('cross-realm'), msg_id: 'x1' });
  });

  it('R48: libsignal seals with the broker-issued certificate; bob decrypts and sees alice', async () => {
    const m = mintMaterial();
    const h = await broker(m, sqlite());
    const alice = new SignalParty('alice');
    const bobParty = new SignalParty('bob');
    const aliceSocket = await h.consumer('alice');
    const issued = await requestSenderCert(aliceSocket, 'alice', alice.publicKeyB64(), 1);
    expect(parseCert(issued.sender_cert!).validate(m.root, Date.now())).toBe(true);
    const bob = await h.consumer('bob');
    await setUak(bob, 'bob', uakOf(9));
    const blob = await alice.seal(
      bobParty,
      bobParty.bundle(),
      issued.sender_cert!,
      'hello sealed cross-lang',
    );
    const got = waitFor<{ blob: string; msg_id: string }>(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(aliceSocket, 'default', 'bob', uakOf(9), blob, 'c1')).toMatchObject({
      delivered: 'online',
    });
    const message = await got;
    expect(Object.keys(message).sort()).toEqual(['blob', 'msg_id']);
    expect(await bobParty.open(message.blob, m.root)).toEqual({
      plaintext: 'hello sealed cross-lang',
      senderUuid: 'alice',
      deviceId: 1,
    });
  });
});
