/**
 * The push registry shared over Redis (`spec/protocol-extensions.md` Note 6-G): real nodes
 * clustered over a real `redis-server`, the null transport on each. A device registered on
 * node B is woken by node A, which stores its consumer's message; `list_identities` on either
 * node shows the endpoint; `remove_realm` drops it everywhere; and two registries on the same
 * Redis (as two nodes) send each wake once, keep §6.4's order and cap.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLinks } from '../../broker/cluster/redis-links';
import { NullTransport } from '../../broker/extensions/push/null-transport';
import { PushRedisRegistry } from '../../broker/extensions/push/push-redis-registry';
import {
  produce,
  startBroker,
  subscribe,
  type BrokerSettings,
  type Harness,
} from '../helpers/broker-harness';
import { clusterBlock, freshPrefix, realmConsumer, seesNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil } from '../helpers/wait';
import { adminSettings, manager } from '../broker/admin/management-client';
import { registerPush } from '../broker/extensions/push/push-clients';

const EVENT = 'relay.new_request';

let redis: RedisServer;
let prefix: string;
let a: Harness;
let b: Harness;
const nulA = new NullTransport();
const nulB = new NullTransport();
beforeAll(async () => {
  redis = await startRedisServer();
  prefix = freshPrefix();
  const node = (id: string, nul: NullTransport) =>
    startBroker(
      {
        ...adminSettings(
          {},
          { realms: { default: { required: false }, acme: { required: false } } },
        ),
        cluster: clusterBlock(redis.url, prefix, id),
      } as BrokerSettings,
      { env: { TYO_MQ_PUSH_TRANSPORT: 'null' }, push: { nullTransport: nul } },
    );
  a = await node('push-a', nulA);
  b = await node('push-b', nulB);
  await waitUntil(() => seesNodes(a, 2) && seesNodes(b, 2), 'both nodes see each other');
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await redis?.stop();
});

const client = realmConsumer;

describe('cluster push registry (Note 6-G)', () => {
  it('a device registered on B is woken by A, which stores its message; both nodes list it', async () => {
    // The durable consumer lives on A; its phone registered through B (a load balancer).
    const onA = await client(a, 'default', 'carol');
    await subscribe(onA, 'carol', 'pubber', EVENT, { durable: true });
    const onB = await client(b, 'default', 'carol');
    expect(
      await registerPush(onB, { identity: 'carol', transport: 'null', token: 'tok-carol' }),
    ).toMatchObject({ ok: true, count: 1 });
    onB.disconnect();
    await a.disconnect(onA);

    const pub = await client(a, 'default', 'pubber');
    produce(pub, 'pubber', EVENT, { ticket: 1 }, { guaranteed: true });
    produce(pub, 'pubber', EVENT, { ticket: 2 }, { guaranteed: true });
    await waitUntil(() => nulA.sent.length >= 1, 'node A sends the wake');
    await a.settle(pub);
    expect(nulA.sent).toHaveLength(1);
    expect(nulA.sent[0]).toMatchObject({ token: 'tok-carol' });
    expect(nulB.sent).toHaveLength(0);

    for (const h of [a, b]) {
      const m = await manager(h);
      const reply = await m.run({
        command: 'list_identities',
        realm: 'default',
        contains: 'carol',
      });
      expect(reply.identities).toEqual([
        expect.objectContaining({
          identity: 'carol',
          push: [
            expect.objectContaining({
              transport: 'null',
              token_masked: '…-carol',
              last_ok_at: expect.any(String),
              last_wake_outcome: 'ok',
            }),
          ],
          last_wake_at: expect.any(String),
        }),
      ]);
      m.socket.disconnect();
    }
    pub.disconnect();
  });

  it('remove_realm on A drops the registrations B stored', async () => {
    const dev = await client(b, 'acme', 'dev');
    expect(
      await registerPush(dev, { identity: 'dev', transport: 'null', token: 'tok-dev' }),
    ).toMatchObject({ ok: true });
    dev.disconnect();
    const m = await manager(a);
    const listed = async () =>
      (await m.run({ command: 'list_identities', realm: 'acme' })).identities as unknown[];
    expect(await listed()).toHaveLength(1);
    expect((await m.run({ command: 'remove_realm', realm: 'acme' })).ok).toBe(true);
    expect((await m.run({ command: 'add_realm', realm: 'acme', required: false })).ok).toBe(true);
    let left = await listed();
    for (let i = 0; i < 50 && left.length > 0; i++) left = await listed();
    expect(left).toEqual([]);
    m.socket.disconnect();
  });

  it('two registries on one Redis: one wake per window, registration order and the cap of 10', async () => {
    const silent = pino({ level: 'silent' });
    const links = [0, 1].map(
      () =>
        new RedisLinks(
          { target: { kind: 'url', url: redis.url }, connectTimeoutMs: 5_000 },
          silent,
        ),
    );
    try {
      await Promise.all(links.map((l) => l.connect()));
      const [x, y] = links.map((l) => new PushRedisRegistry(l, `${prefix}-unit`, silent));
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? x! : y!).claimWindow('r', 'bob')),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await x!.lastWakeAt('r', 'bob')).toEqual(expect.any(Number));

      for (let i = 1; i <= 11; i++) {
        const reg = i % 2 ? x! : y!;
        await reg.register(
          'r',
          'eve',
          { transport: 'null', token: `t${i}`, app_id: null, env: null },
          i,
        );
      }
      // A refresh keeps its place; the 11th evicted the first registered (t1).
      await y!.register(
        'r',
        'eve',
        { transport: 'null', token: 't2', app_id: 'new', env: null },
        99,
      );
      await x!.markOk('r', 'eve', 'null', 't3', 123);
      const list = await y!.endpoints('r', 'eve');
      expect(list.map((e) => e.token)).toEqual([
        't2',
        't3',
        't4',
        't5',
        't6',
        't7',
        't8',
        't9',
        't10',
        't11',
      ]);
      expect(list[0]).toMatchObject({ app_id: 'new', added_at: 99, last_ok: null });
      expect(list[1]).toMatchObject({ last_ok: 123 });
      expect(await x!.remove('r', 'eve', 'null', 't2')).toBe(1);
      expect(await x!.identities('r')).toEqual(['eve']);
    } finally {
      await Promise.all(links.map((l) => l.close()));
    }
  });
});
