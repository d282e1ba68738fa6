/**
 * `remove_realm` and `rename_realm` over the prekey directory shared in Redis
 * (`spec/protocol-extensions.md` Note 3-E; docs/cluster.md "Renaming a realm"): real nodes
 * clustered over a real `redis-server`. A bundle published on node A follows a rename run on
 * node B, and is gone on every node once its realm is removed anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerSettings, type Harness } from '../helpers/broker-harness';
import {
  admitsRealm,
  clusterBlock,
  freshPrefix,
  realmConsumer,
  seesNodes,
} from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil, waitUntilAsync } from '../helpers/wait';
import { adminSettings, manager } from '../broker/admin/management-client';
import {
  BUNDLE,
  oneTime,
  publishPrekeys,
  takePrekeys,
  type TakeReply,
} from '../broker/extensions/prekey-clients';

let redis: RedisServer;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  const prefix = freshPrefix();
  const node = (id: string) =>
    startBroker(
      {
        ...adminSettings(
          {},
          { realms: { default: { required: false }, acme: { required: false } } },
        ),
        cluster: clusterBlock(redis.url, prefix, id),
      } as BrokerSettings,
      { env: {} },
    );
  a = await node('pkr-a');
  b = await node('pkr-b');
  await waitUntil(() => seesNodes(a, 2) && seesNodes(b, 2), 'both nodes see each other');
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await redis?.stop();
});

const client = realmConsumer;

/** Takes `identity`'s bundle from a fresh client of `realm` on `h` (null: none found). */
async function takeIn(h: Harness, realm: string, identity: string) {
  const s = await client(h, realm, `taker-${Math.random().toString(36).slice(2, 8)}`);
  try {
    return await takePrekeys(s, identity);
  } finally {
    s.disconnect();
  }
}

describe('cluster prekey directory and realm commands (Note 3-E)', () => {
  it('rename_realm on B moves the bundle A stored, pool and all, to the new name', async () => {
    const owner = await client(a, 'acme', 'pkr-owner');
    expect(
      await publishPrekeys(owner, 'pkr-owner', { ...BUNDLE, one_time_prekeys: oneTime(3) }),
    ).toMatchObject({ ok: true, one_time_available: 3 });
    expect((await takeIn(b, 'acme', 'pkr-owner'))?.one_time_prekey).toBe('OTP-1');
    owner.disconnect();

    const m = await manager(b);
    expect(await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' })).toMatchObject({
      ok: true,
    });
    // The new name reaches A through the shared settings, and the move runs on Redis after the
    // reply: take until the bundle shows under the new name (a take of no bundle pops nothing).
    await admitsRealm(a, 'acme2');
    let moved: TakeReply | null = null;
    await waitUntilAsync(
      async () => (moved = await takeIn(a, 'acme2', 'pkr-owner')) !== null,
      'the bundle under acme2',
    );
    expect(moved).toMatchObject({
      identity_key: 'IDENT-PUB',
      one_time_prekey: 'OTP-2',
      one_time_remaining: 1,
    });
    expect(await m.run({ command: 'add_realm', realm: 'acme', required: false })).toMatchObject({
      ok: true,
    });
    expect(await takeIn(b, 'acme', 'pkr-owner')).toBeNull();
    m.socket.disconnect();
  });

  it('list_identities on either node shows the stock Redis holds, after takes on both', async () => {
    const owner = await client(a, 'default', 'pkr-stock');
    await publishPrekeys(owner, 'pkr-stock', { ...BUNDLE, one_time_prekeys: oneTime(5) });
    owner.disconnect();
    await takeIn(a, 'default', 'pkr-stock');
    await takeIn(b, 'default', 'pkr-stock');
    for (const h of [a, b]) {
      const m = await manager(h);
      const reply = await m.run({ command: 'list_identities', realm: 'default', contains: 'pkr-' });
      expect(reply.identities).toEqual([
        expect.objectContaining({
          identity: 'pkr-stock',
          prekeys: {
            one_time_available: 3,
            signed_prekey_id: BUNDLE.signed_prekey_id,
            updated_at: expect.any(String),
          },
        }),
      ]);
      m.socket.disconnect();
    }
  });

  it('remove_realm on A deletes the realm’s bundles for every node', async () => {
    const m = await manager(a);
    expect(await m.run({ command: 'add_realm', realm: 'gone', required: false })).toMatchObject({
      ok: true,
    });
    await admitsRealm(b, 'gone');
    const owner = await client(b, 'gone', 'pkr-gone');
    expect(
      await publishPrekeys(owner, 'pkr-gone', { ...BUNDLE, one_time_prekeys: oneTime(2) }),
    ).toMatchObject({ ok: true });
    owner.disconnect();
    expect((await takeIn(a, 'gone', 'pkr-gone'))?.one_time_prekey).toBe('OTP-1');

    expect(await m.run({ command: 'remove_realm', realm: 'gone' })).toMatchObject({ ok: true });
    expect(await m.run({ command: 'add_realm', realm: 'gone', required: false })).toMatchObject({
      ok: true,
    });
    // A fresh realm of the same name starts empty, on both nodes, once the removal has run
    // (B may refuse the realm for a moment while the removal and the re-add reach it).
    await waitUntilAsync(
      async () => (await takeIn(b, 'gone', 'pkr-gone').catch(() => 'refused')) === null,
      'no bundle left for B',
    );
    expect(await takeIn(a, 'gone', 'pkr-gone')).toBeNull();
    m.socket.disconnect();
  });
});
