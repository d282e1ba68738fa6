/**
 * Sealed UAK records shared over Redis (`spec/protocol-extensions.md` §4.5, Note 4-J): two real
 * nodes clustered over a real `redis-server`. A UAK set on node A gates a sealed send on node B.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type BrokerSettings, type Harness } from '../helpers/broker-harness';
import { clusterBlock, freshPrefix, realmConsumer, seesNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil } from '../helpers/wait';
import {
  b64,
  mintMaterial,
  sendSealed,
  setUak,
  uakOf,
} from '../broker/extensions/sealed/sealed-clients';

let redis: RedisServer;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  const prefix = freshPrefix();
  const m = mintMaterial();
  const node = (id: string) =>
    startBroker(
      {
        auth: { realms: { default: { e2ee: 'required' } } },
        cluster: clusterBlock(redis.url, prefix, id),
      } as BrokerSettings,
      { env: m.env },
    );
  a = await node('uak-a');
  b = await node('uak-b');
  await waitUntil(() => seesNodes(a, 2) && seesNodes(b, 2), 'both nodes see each other');
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
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
