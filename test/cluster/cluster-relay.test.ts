/**
 * Cluster relay over a real Redis (`spec/protocol-core.md` §17): three nodes; every live
 * subscriber in the cluster gets exactly one copy, whichever node it is on (exact, topic, realm
 * broadcast); a consumer group gets each message once cluster-wide (on the origin when it has a
 * member there, else on one peer); an offline durable consumer's copies are kept by the node
 * it is registered with (where the reference loses them); ACK-tracked copies on a peer are
 * tracked there; contentType crosses (Note 17-A fixed); a reference node's wrapper is routed;
 * invalid wrappers are ignored and counted.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anyProducerKey, ClientEvent, consumeEvent } from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  subscribe,
  sync,
  type Harness,
} from '../helpers/broker-harness';
import { consumerIn, producerIn } from '../helpers/auth-clients';
import { startCluster, type ClusterNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { collect, delay, expectNothing, waitFor, waitUntil } from '../helpers/wait';

let redis: RedisServer;
let cluster: ClusterNodes;
let a: Harness;
let b: Harness;
let c: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});
beforeEach(async () => {
  cluster = await startCluster(redis.url, ['node-a', 'node-b', 'node-c'], {
    http_api: { enabled: true },
  });
  [a, b, c] = cluster.nodes as [Harness, Harness, Harness];
});
afterEach(async () => {
  await cluster.close();
});

const JOB = exactConsumeEvent('fleet', 'job');

describe('relay between nodes', () => {
  it('gives every live subscriber exactly one copy, on any node, in publish order', async () => {
    const consumers = await Promise.all(
      [a, b, c].map(async (node, i) => {
        const s = await node.consumer(`w${i}`);
        await subscribe(s, `w${i}`, 'fleet', 'job');
        return s;
      }),
    );
    const p = await a.producer('fleet');
    const got = consumers.map((s) => collect<{ message: number }>(s, JOB, 20));
    for (let i = 0; i < 20; i++) produce(p, 'fleet', 'job', i);
    for (const copies of await Promise.all(got)) {
      expect(copies.map((m) => m.message)).toEqual([...Array(20).keys()]);
    }
    await Promise.all(consumers.map((s) => expectNothing(s, JOB, 300)));
  });

  it('routes topic subscriptions and realm broadcasts on the peers', async () => {
    const t = await b.consumer('t1');
    await subscribe(t, 't1', 'TYO-MQ-ALL', 'sensors/+/temp', { mode: 'topic' });
    const member = await c.consumer('m1');
    await subscribe(member, 'm1', 'fleet', 'other');
    const p = await a.producer('fleet');

    const topic = waitFor(t, consumeEvent(anyProducerKey('sensors/+/temp')));
    produce(p, 'fleet', 'sensors/kitchen/temp', { c: 21 });
    expect(await topic).toMatchObject({ event: 'sensors/kitchen/temp', message: { c: 21 } });

    const raw = waitFor(member, consumeEvent('hello'));
    produce(p, 'fleet', 'hello', 'everyone', { broadcast: 'realm' });
    expect(await raw).toMatchObject({ event: 'hello', message: 'everyone', from: 'fleet' });
  });

  it('passes contentType on, so envelopes are the same on every node (Note 17-A)', async () => {
    const local = await a.consumer('l');
    await subscribe(local, 'l', 'fleet', 'job');
    const remote = await b.consumer('r');
    await subscribe(remote, 'r', 'fleet', 'job');
    const p = await a.producer('fleet');
    const both = [waitFor(local, JOB), waitFor(remote, JOB)];
    produce(p, 'fleet', 'job', 'x', { contentType: 'text/plain', enc: 'utf8' });
    const [here, there] = await Promise.all(both);
    expect(there).toEqual(here);
    expect(there).toMatchObject({ content_type: 'text/plain', enc: 'utf8' });
  });

  it('serves a group on the origin when it has a member there, not again on peers', async () => {
    const g1 = await b.consumer('g1');
    await subscribe(g1, 'g1', 'fleet', 'job', { group: 'workers' });
    const plain = await b.consumer('plain');
    await subscribe(plain, 'plain', 'fleet', 'job');
    const g0 = await a.consumer('g0');
    await subscribe(g0, 'g0', 'fleet', 'job', { group: 'workers' });
    const p = await a.producer('fleet');
    const toPlain = waitFor(plain, JOB);
    const toOrigin = waitFor(g0, JOB);
    produce(p, 'fleet', 'job', 1);
    expect(await toPlain).toMatchObject({ message: 1 });
    expect(await toOrigin).toMatchObject({ message: 1 });
    await expectNothing(g1, JOB, 400);
  });

  it('gives a group with members only on peers each message once, on one of them', async () => {
    const members = await Promise.all(
      [b, b, c, c].map(async (node, i) => {
        const s = await node.consumer(`m${i}`);
        await subscribe(s, `m${i}`, 'fleet', 'job', { group: 'far' });
        return s;
      }),
    );
    const seen: number[] = [];
    for (const s of members) s.on(JOB, (m: { message: number }) => seen.push(m.message));
    const p = await a.producer('fleet');
    for (let i = 0; i < 40; i++) produce(p, 'fleet', 'job', i);
    await waitUntil(() => seen.length >= 40, '40 group deliveries');
    await delay(300);
    expect(seen.sort((x, y) => x - y)).toEqual([...Array(40).keys()]);
  });

  it('leaves a group to live members elsewhere when its member on the origin has left', async () => {
    // A non-durable member on the producing node that disconnected stays registered until idle
    // eviction; it must not take (and drop) the group's messages.
    const ghost = await a.consumer('ghost');
    await subscribe(ghost, 'ghost', 'fleet', 'job', { group: 'crew' });
    ghost.disconnect();
    await delay(100);
    const members = await Promise.all(
      [b, c].map(async (node, i) => {
        const s = await node.consumer(`live${i}`);
        await subscribe(s, `live${i}`, 'fleet', 'job', { group: 'crew' });
        return s;
      }),
    );
    const seen: number[] = [];
    for (const s of members) s.on(JOB, (m: { message: number }) => seen.push(m.message));
    const p = await a.producer('fleet');
    for (let i = 0; i < 10; i++) produce(p, 'fleet', 'job', i);
    await waitUntil(() => seen.length >= 10, '10 group deliveries');
    await delay(300);
    expect(seen.sort((x, y) => x - y)).toEqual([...Array(10).keys()]);
  });

  it("keeps an offline durable consumer's copies on the node it is registered with", async () => {
    const sleeper = await b.consumer('sleeper');
    await subscribe(sleeper, 'sleeper', 'fleet', 'job', { durable: true });
    sleeper.disconnect();
    await delay(100);
    const p = await a.producer('fleet');
    for (const n of [1, 2, 3]) produce(p, 'fleet', 'job', n);
    await waitUntil(() => (b.broker.getStats().realms.default?.queued ?? 0) === 3, 'B stores 3');
    // Stored once in the cluster: the origin has no registration of that consumer.
    expect(a.broker.getStats().realms.default?.queued ?? 0).toBe(0);
    const back = await b.consumer('sleeper');
    const got = collect<{ message: number }>(back, JOB, 3);
    await subscribe(back, 'sleeper', 'fleet', 'job', { durable: true });
    expect((await got).map((m) => m.message)).toEqual([1, 2, 3]);
    await expectNothing(back, JOB, 300);
  });

  it('tracks an ACK-required copy on the peer that delivered it', async () => {
    const w = await b.consumer('acker');
    await subscribe(w, 'acker', 'fleet', 'job', { ack: true });
    const p = await a.producer('fleet');
    const first = waitFor<{ msgId?: string; message: unknown }>(w, JOB);
    produce(p, 'fleet', 'job', 'needs-ack', { guaranteed: true });
    const copy = await first;
    expect(copy.message).toBe('needs-ack');
    expect(typeof copy.msgId).toBe('string');
    w.emit(ClientEvent.ACK, { msgId: copy.msgId });
    await sync(w);
    await expectNothing(w, JOB, 400);
  });
});

describe('embedding', () => {
  it("gives a peer's in-process subscriber the messages of other nodes, origin 'cluster'", async () => {
    const seen: { topic: string; payload: unknown; origin?: string }[] = [];
    b.broker.subscribe('sensors/#', (m) => {
      seen.push({ topic: m.topic, payload: m.payload, origin: m.origin });
    });
    const p = await a.producer('fleet');
    produce(p, 'fleet', 'sensors/kitchen', 21);
    await waitUntil(() => seen.length === 1, 'one message in-process on B');
    expect(seen).toEqual([{ topic: 'sensors/kitchen', payload: 21, origin: 'cluster' }]);
  });
});

describe('realms across nodes', () => {
  const tokens = [
    { token: 'alpha-producer-token-0001', realm: 'alpha', role: 'producer' },
    { token: 'alpha-consumer-token-0001', realm: 'alpha', role: 'consumer' },
    { token: 'beta-consumer-token-00001', realm: 'beta', role: 'consumer' },
  ];
  let authed: ClusterNodes;
  beforeEach(async () => {
    authed = await startCluster(
      redis.url,
      ['realm-a', 'realm-b'],
      { auth: { enabled: true, auto_admin_token: false, tokens } },
      { env: {} },
    );
  });
  afterEach(async () => {
    await authed.close();
  });

  it('delivers a message of realm alpha only to alpha consumers on the peer', async () => {
    const [origin, peer] = authed.nodes as [Harness, Harness];
    const alpha = await consumerIn(peer, { token: 'alpha-consumer-token-0001' }, 'w');
    await subscribe(alpha, 'w', 'fleet', 'job');
    const beta = await consumerIn(peer, { token: 'beta-consumer-token-00001' }, 'w');
    await subscribe(beta, 'w', 'fleet', 'job');
    const p = await producerIn(origin, { token: 'alpha-producer-token-0001' }, 'fleet');
    const got = waitFor(alpha, JOB);
    produce(p, 'fleet', 'job', 'alpha only');
    expect(await got).toMatchObject({ message: 'alpha only' });
    await expectNothing(beta, JOB, 400);
  });
});

describe('wire compatibility and bad input', () => {
  it("routes a reference node's wrapper exactly as §17 shows it", async () => {
    const w = await b.consumer('w');
    await subscribe(w, 'w', 'fleet', 'job');
    const got = waitFor(w, JOB);
    const pub = new Redis(redis.url);
    try {
      await pub.publish(
        `${cluster.prefix}:messages`,
        JSON.stringify({
          node_id: '9f1c2e3a4b5c6d7e',
          payload: {
            realm: 'default',
            event: 'job',
            message: 'j1',
            producer: 'fleet',
            ttl: 3600,
            guaranteed: false,
            enc: null,
            to: null,
            contentType: null,
            method: null,
            broadcast: null,
            group: null,
          },
        }),
      );
      expect(await got).toEqual({ event: 'job', message: 'j1', from: 'fleet' });
    } finally {
      pub.disconnect();
    }
  });

  it('ignores and counts unparsable or incomplete wrappers, and keeps relaying', async () => {
    const w = await b.consumer('w');
    await subscribe(w, 'w', 'fleet', 'job');
    const pub = new Redis(redis.url);
    try {
      const channel = `${cluster.prefix}:messages`;
      await pub.publish(channel, 'not json');
      await pub.publish(channel, JSON.stringify({ node_id: 'x', payload: { event: 'job' } }));
      await pub.publish(channel, JSON.stringify({ node_id: 'x', payload: { realm: 'default' } }));
      await pub.publish(channel, JSON.stringify([1, 2, 3]));
      await expectNothing(w, JOB, 300);
    } finally {
      pub.disconnect();
    }
    const got = waitFor(w, JOB);
    produce(await a.producer('fleet'), 'fleet', 'job', 'still works');
    expect(await got).toMatchObject({ message: 'still works' });
    const metrics = await (await fetch(`${b.url}/api/metrics`)).text();
    expect(metrics).toContain('tyo_mq_cluster_received_total{outcome="invalid"} 4');
    expect(metrics).toContain('tyo_mq_cluster_redis_up 1');
    expect(metrics).toContain('tyo_mq_cluster_nodes 3');
  });

  it('reports the cluster in /api/stats and the node id in /health', async () => {
    const health = (await (await fetch(`${b.url}/health`)).json()) as { node_id: unknown };
    expect(health.node_id).toBe('node-b');
    const stats = b.broker.getStats().cluster;
    expect(stats).toMatchObject({ node_id: 'node-b', redis: 'up', prefix: cluster.prefix });
    expect(stats?.nodes.map((n) => n.node_id).sort()).toEqual(['node-a', 'node-b', 'node-c']);
    expect(stats?.nodes[0]).toMatchObject({ node_id: 'node-b', self: true });
    expect(b.broker.getStats().cluster_node_id).toBe('node-b');
  });
});
