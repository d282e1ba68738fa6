/**
 * Sealed UAK records shared over Redis (`spec/protocol-extensions.md` §4.5, Note 4-J): two real
 * nodes clustered over a real `redis-server`. A UAK set on node A gates a sealed send on node B.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/broker-harness';
import { realmConsumer, startCluster, type ClusterNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import {
  b64,
  mintMaterial,
  sendSealed,
  setUak,
  uakOf,
} from '../broker/extensions/sealed/sealed-clients';

let redis: RedisServer;
let cluster: ClusterNodes;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  cluster = await startCluster(
    redis.url,
    ['uak-a', 'uak-b'],
    { auth: { realms: { default: { e2ee: 'required' } } } },
    { env: mintMaterial().env },
  );
  [a, b] = cluster.nodes as [Harness, Harness];
});
afterAll(async () => {
  await cluster?.close();
  await redis?.stop();
});

describe('cluster sealed UAK records (Note 4-J)', () => {
  it('a UAK set on A admits the right key and refuses a wrong one on B', async () => {
    const bob = await realmConsumer(a, 'default', 'uak-bob');
    const sender = await realmConsumer(b, 'default', 'uak-sender');
    try {
      expect(await setUak(bob, 'uak-bob', uakOf(9))).toMatchObject({ ok: true });
      expect(
        await sendSealed(sender, 'default', 'uak-bob', uakOf(1), b64('x'), 'w1'),
      ).toMatchObject({
        ok: false,
        code: 403,
      });
      expect(
        await sendSealed(sender, 'default', 'uak-ghost', uakOf(9), b64('x'), 'g1'),
      ).toMatchObject({
        ok: false,
        code: 404,
      });
      expect(
        await sendSealed(sender, 'default', 'uak-bob', uakOf(9), b64('x'), 'r1'),
      ).toMatchObject({
        ok: true,
      });
    } finally {
      bob.disconnect();
      sender.disconnect();
    }
  });
});
