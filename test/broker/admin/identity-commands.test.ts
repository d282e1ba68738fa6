/**
 * `list_identities`, `revoke_identity_key` (issue 28, console; docs/management.md "E2EE
 * identities") on a real broker with the SQLite store and stock socket.io clients publishing
 * keys, prekeys and push registrations: secrets are shown only as fingerprints, prefixes and
 * masked tails; a realm manager key sees its own realm only; a revoke (with `unpin`) is
 * persisted through the same identity state, so a restart does not bring the key back.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registeredConsumerIn } from '../../helpers/auth-clients';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { lookupKey, publishKey } from '../extensions/key-clients';
import { BUNDLE, oneTime, publishPrekeys } from '../extensions/prekey-clients';
import { registerPush } from '../extensions/push/push-clients';
import { adminSettings, ADMIN_TOKEN, manager } from './management-client';

const ALICE = 'alice-token-0123456789abcdef0123456789';
const MALLORY = 'mallory-token-0123456789abcdef01234567';
const ACME_KEY = 'acme-manager-key-5f2a91';
const PUSH_TOKEN = 'device-token-secret-part-ABC123';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let dir: TempDir;
const open: Harness[] = [];
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

async function broker(): Promise<Harness> {
  const settings = adminSettings(
    { storage: 'sqlite', storage_options: { filename: join(dir.path, 'ids.sqlite') } },
    {
      realms: { default: { required: false }, acme: { required: false, manager_key: ACME_KEY } },
      tokens: [
        { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
        { token: ALICE, realm: 'default', role: 'both' },
        { token: MALLORY, realm: 'default', role: 'both' },
      ],
    },
  ) as BrokerSettings;
  const h = await startBroker(settings, { env: { TYO_MQ_PUSH_TRANSPORT: 'null' } });
  open.push(h);
  return h;
}

const client = registeredConsumerIn;

describe('identity commands', () => {
  it('lists keys, pins, prekeys and push endpoints without secrets; pages; scopes', async () => {
    const h = await broker();
    const m = await manager(h);
    const alice = await client(h, { token: ALICE }, 'alice');
    expect(
      (await publishKey(alice, { identity: 'alice', key_id: 'k1', public_key: 'PUB-A1' })).ok,
    ).toBe(true);
    expect(
      (await publishKey(alice, { identity: 'alice', key_id: 'k2', public_key: 'PUB-A2' })).ok,
    ).toBe(true);
    const bundle = { ...BUNDLE, one_time_prekeys: oneTime(4) };
    expect((await publishPrekeys(alice, 'alice', bundle)).ok).toBe(true);
    expect(
      (await registerPush(alice, { identity: 'alice', transport: 'null', token: PUSH_TOKEN })).ok,
    ).toBe(true);
    const bob = await client(h, { realm: 'default', role: 'both' }, 'bob');
    expect((await publishKey(bob, { identity: 'bob', public_key: 'PUB-B' })).ok).toBe(true);
    const dev = await client(h, { realm: 'acme', role: 'both' }, 'dev');
    expect((await publishKey(dev, { identity: 'dev', public_key: 'PUB-D' })).ok).toBe(true);

    const all = await m.run({ command: 'list_identities', realm: 'default' });
    expect(all).toMatchObject({ ok: true, realm: 'default', next_cursor: null });
    expect(all.identities.map((i: { identity: string }) => i.identity)).toEqual(['alice', 'bob']);
    const a = all.identities[0];
    expect(a.keys).toEqual([
      {
        key_id: 'k1',
        alg: 'ecdh-es-p256-a256gcm',
        fingerprint: sha('PUB-A1'),
        published_at: expect.any(String),
      },
      {
        key_id: 'k2',
        alg: 'ecdh-es-p256-a256gcm',
        fingerprint: sha('PUB-A2'),
        published_at: expect.any(String),
      },
    ]);
    expect(a.principal_prefix).toBe(sha(ALICE).slice(0, 12));
    expect(a.prekeys).toMatchObject({ one_time_available: 4, signed_prekey_id: 7 });
    expect(a.push).toEqual([
      expect.objectContaining({ transport: 'null', token_masked: '…ABC123', last_ok_at: null }),
    ]);
    expect(all.identities[1]).toMatchObject({
      identity: 'bob',
      principal_prefix: null,
      prekeys: null,
      push: [],
    });
    const text = JSON.stringify(all);
    for (const secret of ['PUB-A1', PUSH_TOKEN, sha(ALICE), 'OTP-1', 'IDENT-PUB']) {
      expect(text).not.toContain(secret);
    }

    const first = await m.run({ command: 'list_identities', realm: 'default', limit: 1 });
    expect(first.identities.map((i: { identity: string }) => i.identity)).toEqual(['alice']);
    expect(first.next_cursor).toBe('alice');
    const second = await m.run({
      command: 'list_identities',
      realm: 'default',
      limit: 1,
      cursor: 'alice',
    });
    expect(second.identities.map((i: { identity: string }) => i.identity)).toEqual(['bob']);
    expect(second.next_cursor).toBeNull();
    // `contains` filters by a case-insensitive part of the name before the page is cut.
    const names = async (extra: Record<string, unknown>): Promise<string[]> => {
      const reply = await m.run({ command: 'list_identities', realm: 'default', ...extra });
      return reply.identities.map((i: { identity: string }) => i.identity);
    };
    expect(await names({ contains: 'OB' })).toEqual(['bob']);
    expect(await names({ contains: 'li', limit: 1 })).toEqual(['alice']);
    expect(await names({ contains: 'zz' })).toEqual([]);
    expect(
      await m.run({ command: 'list_identities', realm: 'default', contains: '' }),
    ).toMatchObject({ ok: false, code: 400 });

    // The realm's manager key sees its own realm only; another realm's name is refused.
    const scoped = await m.run({ command: 'list_identities', realm: 'acme' }, ACME_KEY);
    expect(scoped.identities.map((i: { identity: string }) => i.identity)).toEqual(['dev']);
    const other = await m.run({ command: 'list_identities', realm: 'default' }, ACME_KEY);
    expect(other).toMatchObject({ ok: false, code: 401 });

    expect(await m.run({ command: 'list_identities', realm: 'default', limit: 0 })).toMatchObject({
      ok: false,
      code: 400,
    });
    expect(await m.run({ command: 'list_identities' })).toMatchObject({ ok: false, code: 400 });
  });

  it('revokes a key, then all keys and the pin, durably', async () => {
    const h = await broker();
    const m = await manager(h);
    const alice = await client(h, { token: ALICE }, 'alice');
    await publishKey(alice, { identity: 'alice', key_id: 'k1', public_key: 'PUB-A1' });
    await publishKey(alice, { identity: 'alice', key_id: 'k2', public_key: 'PUB-A2' });

    expect(
      await m.run({
        command: 'revoke_identity_key',
        realm: 'default',
        identity: 'alice',
        key_id: 'k1',
      }),
    ).toMatchObject({
      ok: true,
      removed_keys: ['k1'],
      unpinned: false,
    });
    expect((await lookupKey(alice, 'alice')).map((k) => k.key_id)).toEqual(['k2']);
    expect(
      await m.run({
        command: 'revoke_identity_key',
        realm: 'default',
        identity: 'alice',
        key_id: 'nope',
      }),
    ).toMatchObject({ ok: false, code: 404 });
    expect(
      await m.run({
        command: 'revoke_identity_key',
        realm: 'default',
        identity: 'alice',
        unpin: 'yes',
      }),
    ).toMatchObject({ ok: false, code: 400 });

    // Still pinned: another token is refused until the operator unpins.
    await h.disconnect(alice);
    const mallory = await client(h, { token: MALLORY }, 'alice');
    expect((await publishKey(mallory, { identity: 'alice', public_key: 'M' })).code).toBe(403);
    expect(
      await m.run({
        command: 'revoke_identity_key',
        realm: 'default',
        identity: 'alice',
        unpin: true,
      }),
    ).toMatchObject({
      ok: true,
      removed_keys: ['k2'],
      unpinned: true,
    });
    const listed = await m.run({ command: 'list_identities', realm: 'default' });
    expect(listed.identities).toEqual([]);

    // Persisted: after a restart the key and the pin stay gone, so the new owner can publish.
    open.splice(open.indexOf(h), 1);
    await h.close();
    const again = await broker();
    const peer = await client(again, { realm: 'default', role: 'both' }, 'peer');
    expect(await lookupKey(peer, 'alice')).toEqual([]);
    const newOwner = await client(again, { token: MALLORY }, 'alice');
    expect((await publishKey(newOwner, { identity: 'alice', public_key: 'M' })).ok).toBe(true);
  });
});
