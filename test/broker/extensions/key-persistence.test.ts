/**
 * The key directory's and the pins' lifetime (`spec/protocol-extensions.md` §2.3, §10 with its
 * Fix): kept across a broker restart on a real SQLite file and on a real `redis-server` (the
 * Redis store's identity state), dropped by `remove_realm`, moved by `rename_realm` (nothing
 * left under the old name), memory-only with the memory store.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registeredConsumerIn } from '../../helpers/auth-clients';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { adminSettings, manager } from '../admin/management-client';
import { lookupKey, publishKey } from './key-clients';

const ALICE = 'alice-token-0123456789abcdef0123456789';
const MALLORY = 'mallory-token-0123456789abcdef01234567';

let dir: TempDir;
let redis: RedisServer;
/** A fresh Redis key prefix per test: a restart within the test finds its own rows only. */
let prefix = '';
const open: Harness[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});
beforeEach(async () => {
  dir = await makeTempDir();
  prefix = `swb-keys-${Math.random().toString(36).slice(2)}`;
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

/** Realm `acme2` is in the settings too: after a restart, the renamed realm's config is. */
type Storage = 'sqlite' | 'redis' | 'memory';

function settings(storage: Storage): BrokerSettings {
  const store =
    storage === 'sqlite'
      ? { storage, storage_options: { filename: join(dir.path, 'keys.sqlite') } }
      : storage === 'redis'
        ? { storage, storage_options: { url: redis.url, prefix } }
        : { storage };
  return adminSettings(store, {
    realms: {
      default: { required: false },
      acme: { required: false },
      acme2: { required: false },
    },
    tokens: [
      { token: 'a'.repeat(64), realm: '*', role: 'admin' },
      { token: ALICE, realm: 'default', role: 'both' },
      { token: MALLORY, realm: 'default', role: 'both' },
    ],
  }) as BrokerSettings;
}

async function broker(storage: Storage): Promise<Harness> {
  const h = await startBroker(settings(storage), { env: {} });
  open.push(h);
  return h;
}

/** A consumer named `name` that authenticated with `auth`. */
const client = registeredConsumerIn;

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

describe.each(['sqlite', 'redis'] as const)('key directory persistence (%s store)', (store) => {
  it('keys and the pin survive a restart', async () => {
    const first = await broker(store);
    const alice = await client(first, { token: ALICE }, 'alice');
    expect(await publishKey(alice, { identity: 'alice', key_id: 'k1', public_key: 'A1' })).toEqual({
      ok: true,
    });
    expect(await publishKey(alice, { identity: 'alice', key_id: 'k2', public_key: 'A2' })).toEqual({
      ok: true,
    });
    await stop(first);

    const second = await broker(store);
    const peer = await client(second, { realm: 'default', role: 'both' }, 'peer');
    expect((await lookupKey(peer, 'alice')).map((k) => [k.key_id, k.public_key])).toEqual([
      ['k1', 'A1'],
      ['k2', 'A2'],
    ]);
    // The pin came back with the keys: another token cannot act as alice.
    const mallory = await client(second, { token: MALLORY }, 'alice');
    expect((await publishKey(mallory, { identity: 'alice', public_key: 'M' })).code).toBe(403);
    await second.disconnect(mallory);
    const back = await client(second, { token: ALICE }, 'alice');
    expect(await publishKey(back, { identity: 'alice', key_id: 'k1', public_key: 'A3' })).toEqual({
      ok: true,
    });
  });

  it.runIf(store === 'sqlite')(
    'memory: the directory is lost at a restart (reference behaviour)',
    async () => {
      const first = await broker('memory');
      const alice = await client(first, { token: ALICE }, 'alice');
      expect((await publishKey(alice, { identity: 'alice', public_key: 'A' })).ok).toBe(true);
      expect(await lookupKey(alice, 'alice')).toHaveLength(1);
      await stop(first);
      const second = await broker('memory');
      const peer = await client(second, { realm: 'default', role: 'both' }, 'peer');
      expect(await lookupKey(peer, 'alice')).toEqual([]);
    },
  );

  it('remove_realm drops the keys and pins, also from the store', async () => {
    const h = await broker(store);
    const m = await manager(h);
    const acme = await client(h, { realm: 'acme', role: 'both' }, 'dev');
    expect((await publishKey(acme, { identity: 'dev', public_key: 'D' })).ok).toBe(true);
    expect((await m.run({ command: 'remove_realm', realm: 'acme' })).ok).toBe(true);
    expect((await m.run({ command: 'add_realm', realm: 'acme', required: false })).ok).toBe(true);
    const again = await client(h, { realm: 'acme', role: 'both' }, 'peer');
    expect(await lookupKey(again, 'dev')).toEqual([]);
    await stop(h);
    const restarted = await broker(store);
    const later = await client(restarted, { realm: 'acme', role: 'both' }, 'peer');
    expect(await lookupKey(later, 'dev')).toEqual([]);
  });

  it('rename_realm moves the keys to the new name, in memory and in the store', async () => {
    const h = await broker(store);
    const m = await manager(h);
    const acme = await client(h, { realm: 'acme', role: 'both' }, 'dev');
    expect((await publishKey(acme, { identity: 'dev', public_key: 'D' })).ok).toBe(true);
    await m.run({ command: 'remove_realm', realm: 'acme2' });
    const renamed = await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' });
    expect(renamed).toMatchObject({ ok: true });
    const moved = await client(h, { realm: 'acme2', role: 'both' }, 'peer');
    expect((await lookupKey(moved, 'dev')).map((k) => k.public_key)).toEqual(['D']);
    await stop(h);
    const restarted = await broker(store);
    const later = await client(restarted, { realm: 'acme2', role: 'both' }, 'peer2');
    expect((await lookupKey(later, 'dev')).map((k) => k.public_key)).toEqual(['D']);
    // Nothing is left under the old name, in the file either.
    const old = await client(restarted, { realm: 'acme', role: 'both' }, 'peer3');
    expect(await lookupKey(old, 'dev')).toEqual([]);
  });
});
