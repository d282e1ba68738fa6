/**
 * MetricsPoller against clustered broker nodes on a real redis-server: a sample carries the
 * `/api/stats` cluster block and the relay counters of `/api/metrics` (what the Overview's
 * Cluster panel shows), and says so when Redis goes away.
 */
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsPoller } from '../../electron/services/metrics-poller';
import { startCluster, type ClusterNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { connectProducer, produceBatch } from '../support/fleet-clients';

describe('MetricsPoller of a clustered node', () => {
  let redis: RedisServer;
  let cluster: ClusterNodes;
  let producer: Socket | null = null;

  beforeAll(async () => {
    redis = await startRedisServer();
    cluster = await startCluster(redis.url, ['node-a', 'node-b'], { http_api: { enabled: true } });
  }, 30_000);

  afterAll(async () => {
    producer?.close();
    await cluster?.close();
    await redis?.stop();
  });

  it('reads the cluster status and relay counters, then Redis down', async () => {
    const [a, b] = cluster.nodes;
    const poller = new MetricsPoller({ target: { baseUrl: a!.url } });
    const first = await poller.pollOnce();
    expect(first.health?.node_id).toBe('node-a');
    expect(first.stats?.cluster).toMatchObject({
      node_id: 'node-a',
      redis: 'up',
      redis_url: redis.url,
      prefix: cluster.prefix,
    });
    expect(first.stats?.cluster?.nodes.map((n) => [n.node_id, n.self])).toEqual([
      ['node-a', true],
      ['node-b', false],
    ]);
    expect(first.counters?.cluster).toEqual({ sent: 0, failed: 0, received: 0, invalid: 0 });

    producer = await connectProducer(b!.url, 'fleet');
    produceBatch(producer, 'job', 'fleet', 3);
    await expect
      .poll(async () => (await poller.pollOnce()).counters?.cluster?.received, { timeout: 10_000 })
      .toBe(3);
    expect(poller.latest()?.counters?.cluster).toMatchObject({ sent: 0, invalid: 0 });

    await redis.kill();
    await expect
      .poll(async () => (await poller.pollOnce()).stats?.cluster?.redis, { timeout: 10_000 })
      .toBe('down');
    const down = poller.latest();
    expect(down?.reachable).toBe(true);
    expect(down?.stats?.cluster?.nodes.map((n) => n.node_id)).toEqual(['node-a']);
    await redis.restart();
  }, 30_000);
});
