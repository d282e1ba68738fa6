/**
 * Unpublishing a key and the realm cap (`spec/protocol-extensions.md` Note 2-F, Switchboard extension):
 * `KEY_PUBLISH {identity, key_id, public_key: null}` from the owner deletes that entry, on a
 * real broker with a real SQLite file and stock `socket.io-client` sockets. Another
 * credential gets 403, a key id the identity lacks 404, and `public_key: null` without a key
 * id keeps §2.1's 400; the deletion survives a restart. And Note 2-C's cap on the identities
 * of a realm that hold keys (`e2ee.max_key_identities_per_realm`).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registeredConsumerIn } from '../../helpers/auth-clients';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { adminSettings } from '../admin/management-client';
import { lookupKey, publishKey } from './key-clients';

const ALICE = 'alice-token-0123456789abcdef0123456789';
const MALLORY = 'mallory-token-0123456789abcdef01234567';

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
    { storage: 'sqlite', storage_options: { filename: join(dir.path, 'keys.sqlite') } },
    {
      tokens: [
        { token: 'a'.repeat(64), realm: '*', role: 'admin' },
        { token: ALICE, realm: 'default', role: 'both' },
        { token: MALLORY, realm: 'default', role: 'both' },
      ],
    },
  ) as BrokerSettings;
  const h = await startBroker(settings, { env: {} });
  open.push(h);
  return h;
}

const client = registeredConsumerIn;

describe('KEY_PUBLISH with public_key null (Note 2-F)', () => {
  it('the owner deletes one key, then the last; the deletion survives a restart', async () => {
    let h = await broker();
    const alice = await client(h, { token: ALICE }, 'dev');
    for (const key_id of ['k1', 'k2']) {
      expect(
        await publishKey(alice, { identity: 'dev', key_id, public_key: `PUB-${key_id}` }),
      ).toEqual({ ok: true });
    }
    expect(await publishKey(alice, { identity: 'dev', key_id: 'k1', public_key: null })).toEqual({
      ok: true,
    });
    expect((await lookupKey(alice, 'dev')).map((k) => k.key_id)).toEqual(['k2']);

    // Not a key it has: 404, nothing changes. No key id: §2.1's 400, as before the extension.
    expect(await publishKey(alice, { identity: 'dev', key_id: 'k9', public_key: null })).toEqual({
      ok: false,
      code: 404,
      message: "no key 'k9' for 'dev'",
    });
    expect(await publishKey(alice, { identity: 'dev', public_key: null })).toMatchObject({
      ok: false,
      code: 400,
      message: 'public_key is required',
    });

    await open.splice(0)[0]!.close();
    h = await broker();
    const again = await client(h, { token: ALICE }, 'dev');
    expect((await lookupKey(again, 'dev')).map((k) => k.key_id)).toEqual(['k2']);
    expect(await publishKey(again, { identity: 'dev', kid: 'k2', public_key: null })).toEqual({
      ok: true,
    });
    expect(await lookupKey(again, 'dev')).toEqual([]);
    await open.splice(0)[0]!.close();
    h = await broker();
    const third = await client(h, { token: ALICE }, 'dev');
    expect(await lookupKey(third, 'dev')).toEqual([]);
  });

  it('another credential cannot unpublish the pinned identity’s key (403)', async () => {
    const h = await broker();
    const alice = await client(h, { token: ALICE }, 'dev');
    expect(await publishKey(alice, { identity: 'dev', key_id: 'k1', public_key: 'PUB' })).toEqual({
      ok: true,
    });
    alice.disconnect();
    const mallory = await client(h, { token: MALLORY }, 'dev');
    expect(
      await publishKey(mallory, { identity: 'dev', key_id: 'k1', public_key: null }),
    ).toMatchObject({ ok: false, code: 403 });
    expect((await lookupKey(mallory, 'dev')).map((k) => k.public_key)).toEqual(['PUB']);
  });
});

describe('e2ee.max_key_identities_per_realm (Note 2-C)', () => {
  it('refuses a new identity past the cap with 429; existing ones still rotate; unpublishing frees a place', async () => {
    const h = await startBroker({ e2ee: { max_key_identities_per_realm: 2 } } as BrokerSettings);
    open.push(h);
    const [a, b, c] = await Promise.all(['id-a', 'id-b', 'id-c'].map((n) => h.consumer(n)));
    expect(await publishKey(a!, { identity: 'id-a', public_key: 'A' })).toEqual({ ok: true });
    expect(await publishKey(b!, { identity: 'id-b', public_key: 'B' })).toEqual({ ok: true });
    expect(await publishKey(c!, { identity: 'id-c', public_key: 'C' })).toEqual({
      ok: false,
      code: 429,
      message: "realm 'default' already has 2 identities with published keys",
    });
    // A second key or a rotation of a counted identity is not a new identity.
    expect(await publishKey(a!, { identity: 'id-a', key_id: 'k2', public_key: 'A2' })).toEqual({
      ok: true,
    });
    // An idle identity keeps its keys: disconnecting does not free its place.
    b!.disconnect();
    expect(await publishKey(c!, { identity: 'id-c', public_key: 'C' })).toMatchObject({
      code: 429,
    });
    for (const key_id of ['default', 'k2']) {
      expect(await publishKey(a!, { identity: 'id-a', key_id, public_key: null })).toEqual({
        ok: true,
      });
    }
    expect(await publishKey(c!, { identity: 'id-c', public_key: 'C' })).toEqual({ ok: true });
    expect(await lookupKey(c!, 'id-b')).toHaveLength(1);
  });
});
