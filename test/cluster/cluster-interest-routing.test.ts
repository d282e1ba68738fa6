/**
 * Interest routing wired into the streams relay (issue 21, docs/cluster.md "Interest routing"):
 * a message goes only into the inboxes of nodes whose subscriptions want it. Three in-process
 * nodes on a real Redis; the inboxes are read back from Redis to see who was sent what.
 */
import { Redis } from 'ioredis';
import { anyProducerKey, consumeEvent } from '../../shared/protocol-events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactConsumeEvent, produce, subscribe, type Harness } from '../helpers/broker-harness';
import { startCluster, type ClusterNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { collect, waitUntil, waitUntilAsync } from '../helpers/wait';
import { inboxMessages } from '../helpers/relay-inbox';

let redis: RedisServer;
let cluster: ClusterNodes;
let reader: Redis;
let a: Harness;
let b: Harness;
let c: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
  cluster = await startCluster(redis.url, ['node-a', 'node-b', 'node-c']);
  [a, b, c] = cluster.nodes as [Harness, Harness, Harness];
  reader = new Redis(redis.url);
  await waitUntil(
    () => cluster.nodes.every((n) => n.broker.getStats().cluster?.relay?.members?.length === 3),
    'every node writes to the others',
  );
});
afterAll(async () => {
  reader.disconnect();
  await cluster.close();
  await redis.stop();
});

const inbox = (node: string): Promise<number> =>
  inboxMessages(reader, `${cluster.prefix}:inbox:${node}`);

describe('interest routing on the streams relay', () => {
  it('puts a message only into the inboxes of nodes that want it', async () => {
    const w = await b.consumer('w');
    await subscribe(w, 'w', 'fleet', 'job');
    const p = await a.producer('fleet');
    // A has read B's and C's interest once B's subscription is there: the probe reaches B only.
    const before = { b: await inbox('node-b'), c: await inbox('node-c') };
    const got = collect<{ message: number }>(w, exactConsumeEvent('fleet', 'job'), 50);
    await waitUntilAsync(async () => {
      produce(p, 'fleet', 'job', -1);
      return (await inbox('node-b')) > before.b && (await inbox('node-c')) === before.c;
    }, 'A targets B and not C');
    const cBefore = await inbox('node-c');
    for (let n = 0; n < 50; n++) produce(p, 'fleet', 'job', n);
    expect((await got).length).toBe(50);
    expect(await inbox('node-c')).toBe(cBefore);

    // C subscribes: from then on C's inbox gets them too, and C's consumer the messages.
    const v = await c.consumer('v');
    await subscribe(v, 'v', 'fleet', 'job');
    const onC = collect<{ message: string }>(v, exactConsumeEvent('fleet', 'job'), 1);
    await waitUntilAsync(async () => {
      produce(p, 'fleet', 'job', 'for c');
      return (await inbox('node-c')) > cBefore;
    }, 'A targets C after its SUBSCRIBE');
    expect((await onC)[0]?.message).toBe('for c');
  });

  it('sends a topic message only to the node with a matching filter', async () => {
    const t = await c.consumer('t');
    await subscribe(t, 't', 'TYO-MQ-ALL', 'kitchen/+', { mode: 'topic' });
    const p = await a.producer('sensors');
    const bBefore = await inbox('node-b');
    const event = consumeEvent(anyProducerKey('kitchen/+'));
    const got: number[] = [];
    t.on(event, (m: { message: number }) => got.push(m.message));
    await waitUntilAsync(async () => {
      produce(p, 'sensors', 'kitchen/temp', 21);
      return got.includes(21);
    }, 'C gets kitchen/temp');
    produce(p, 'sensors', 'garden/temp', 9);
    produce(p, 'sensors', 'kitchen/temp', 22);
    // In order on A's link: once 22 is at C, A has routed the garden message too.
    await waitUntil(() => got.includes(22), 'C gets 22');
    expect(got).not.toContain(9);
    // B wants fleet/job only: none of the sensors messages went into its inbox.
    expect(await inbox('node-b')).toBe(bBefore);
  });
});
