/**
 * A Redis outage under a running cluster (docs/cluster.md): each node keeps serving its own
 * clients, reports `redis: down` with only itself as a node, counts the messages it could not
 * relay, and relays again once Redis is back — without a restart and without crashing.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type Harness,
} from '../helpers/broker-harness';
import { captureLogs } from '../support/log-capture';
import { seesNodes, startCluster, type ClusterNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { expectNothing, waitFor, waitUntil } from '../helpers/wait';

let redis: RedisServer;
let cluster: ClusterNodes;

beforeAll(async () => {
  redis = await startRedisServer();
  cluster = await startCluster(redis.url, ['up-a', 'up-b'], { http_api: { enabled: true } });
});
afterAll(async () => {
  await cluster.close();
  await redis.stop();
});

const JOB = exactConsumeEvent('fleet', 'job');

describe('Redis outage', () => {
  it('keeps local delivery, reports the outage, and relays again after Redis returns', async () => {
    const [a, b] = cluster.nodes as [Harness, Harness];
    const local = await a.consumer('local');
    await subscribe(local, 'local', 'fleet', 'job');
    const remote = await b.consumer('remote');
    await subscribe(remote, 'remote', 'fleet', 'job');
    const p = await a.producer('fleet');

    await redis.kill();
    await waitUntil(() => a.broker.getStats().cluster?.redis === 'down', 'A sees Redis down');
    expect(a.broker.getStats().cluster?.nodes.map((n) => n.node_id)).toEqual(['up-a']);

    const during = waitFor(local, JOB);
    produce(p, 'fleet', 'job', 'during the outage');
    expect(await during).toMatchObject({ message: 'during the outage' });
    await expectNothing(remote, JOB, 300);
    const metrics = await (await fetch(`${a.url}/api/metrics`)).text();
    expect(metrics).toContain('tyo_mq_cluster_redis_up 0');
    expect(metrics).toMatch(/tyo_mq_cluster_relayed_total\{outcome="failed"\} [1-9]/);

    await redis.restart();
    await waitUntil(
      () => seesNodes(a, 2) && seesNodes(b, 2),
      'both nodes see each other again',
      15_000,
    );
    const after = waitFor(remote, JOB);
    produce(p, 'fleet', 'job', 'after the outage');
    expect(await after).toMatchObject({ message: 'after the outage' });
  });
});

describe('node liveness', () => {
  it("judges a peer by when its heartbeat changes on the reader's clock, not by its clock", async () => {
    const [a] = cluster.nodes as [Harness];
    const writer = new Redis(redis.url);
    try {
      // A node whose clock runs an hour ahead, then dies: its last heartbeat stays in the future.
      const future = Date.now() + 3_600_000;
      const entry = JSON.stringify({ node_id: 'skewed', started_at: future, last_seen: future });
      await writer.hset(`${cluster.prefix}:nodes`, 'skewed', entry);
      await waitUntil(() => seesNodes(a, 3), 'A lists the skewed node');
      await waitUntil(() => seesNodes(a, 2), 'A drops it once it stops changing', 5_000);
    } finally {
      writer.disconnect();
    }
  });
});

describe('a Redis that refuses the password', () => {
  it('says so in the log and in /api/stats, not just "unreachable"', async () => {
    const guarded = await startRedisServer(['--requirepass', 'right-password-0001']);
    const log = captureLogs();
    const node = await startBroker(
      {
        cluster: {
          enabled: true,
          redis_url: `redis://:wrong-password@127.0.0.1:${guarded.port}`,
          node_id: 'locked-out',
          connect_timeout_ms: 500,
        },
      },
      { logger: log.logger },
    );
    try {
      const cluster = node.broker.getStats().cluster;
      expect(cluster?.redis).toBe('down');
      expect(cluster?.redis_error).toMatch(/WRONGPASS/);
      expect(log.text()).toContain('refused the credentials');
      expect(log.text()).not.toContain('wrong-password');
    } finally {
      await node.close();
      await guarded.stop();
    }
  });
});
