import { describe, expect, it } from 'vitest';
import {
  buildClusterModel,
  formatLastSeen,
  maskUrlSecrets,
} from '../../renderer/src/views/overview/cluster-model';
import { buildOverviewModel } from '../../renderer/src/views/overview/overview-model';
import type { Overview } from '../../shared/console-api';
import type { ClusterStatus } from '../../shared/http-api';

// The answering node's clock says 1_000_000 when it answered; the console's clock is an hour
// ahead (it sampled at 4_600_000): ages must not be off by that hour.
const cluster: ClusterStatus = {
  node_id: 'node-a',
  redis: 'up',
  redis_url: 'redis://:***@cache.example:6379/',
  prefix: 'prod:cluster',
  nodes: [
    { node_id: 'node-a', started_at: 925_000, last_seen: 1_000_000, version: '1.4.0', self: true },
    { node_id: 'node-b', started_at: 400_000, last_seen: 997_500, version: '1.3.9', self: false },
  ],
};
const relay = { sent: 12, failed: 1, received: 30, invalid: 2 };
const SAMPLED = 4_600_000;

describe('cluster panel model', () => {
  it('is null for a broker that is not clustered', () => {
    expect(buildClusterModel(undefined, undefined, SAMPLED, SAMPLED)).toBeNull();
    expect(buildClusterModel(null, relay, SAMPLED, SAMPLED)).toBeNull();
  });

  it("measures uptimes and ages on the answering node's clock, whatever the console's clock", () => {
    const model = buildClusterModel(cluster, relay, SAMPLED, SAMPLED);
    expect(model).toEqual({
      nodeId: 'node-a',
      redisUp: true,
      redisError: null,
      redisUrl: 'redis://:***@cache.example:6379/',
      prefix: 'prod:cluster',
      relay,
      nodes: [
        { nodeId: 'node-a', version: '1.4.0', uptimeSeconds: 75, lastSeenSeconds: 0, self: true },
        { nodeId: 'node-b', version: '1.3.9', uptimeSeconds: 600, lastSeenSeconds: 2, self: false },
      ],
    });
  });

  it('adds the time elapsed on the console since the sample, never a negative one', () => {
    const later = buildClusterModel(cluster, null, SAMPLED, SAMPLED + 3_000);
    expect(later?.nodes.map((n) => [n.uptimeSeconds, n.lastSeenSeconds])).toEqual([
      [78, 3],
      [603, 5],
    ]);
    expect(later?.relay).toBeNull();
    const clockBack = buildClusterModel(cluster, null, SAMPLED, SAMPLED - 60_000);
    expect(clockBack?.nodes[1]?.lastSeenSeconds).toBe(2);
  });

  it('reports a Redis link down with only the answering node', () => {
    const down: ClusterStatus = { ...cluster, redis: 'down', nodes: [cluster.nodes[0]!] };
    const model = buildClusterModel(down, relay, SAMPLED, SAMPLED);
    expect(model?.redisUp).toBe(false);
    expect(model?.nodes.map((n) => n.nodeId)).toEqual(['node-a']);
    expect(model?.redisError).toBeNull();
    const refused = buildClusterModel(
      { ...down, redis_error: 'WRONGPASS' },
      relay,
      SAMPLED,
      SAMPLED,
    );
    expect(refused?.redisError).toBe('WRONGPASS');
  });

  it('shows no uptime for a node whose start lies after the answering clock', () => {
    const ahead: ClusterStatus = {
      ...cluster,
      nodes: [cluster.nodes[0]!, { ...cluster.nodes[1]!, started_at: 1_005_000 }],
    };
    expect(buildClusterModel(ahead, null, SAMPLED, SAMPLED)?.nodes[1]?.uptimeSeconds).toBeNull();
  });
});

describe('maskUrlSecrets', () => {
  it('masks secret-looking query values, keeps the rest as the broker wrote it', () => {
    expect(maskUrlSecrets('redis://:***@cache.example:6379')).toBe(
      'redis://:***@cache.example:6379',
    );
    expect(maskUrlSecrets('redis://cache:6379/0?password=hunter2')).toBe(
      'redis://cache:6379/0?password=***',
    );
    expect(maskUrlSecrets('rediss://cache?db=2&Password=a%20b&family=6#x')).toBe(
      'rediss://cache?db=2&Password=***&family=6#x',
    );
    expect(maskUrlSecrets('redis://cache?auth_token=t&tls=true')).toBe(
      'redis://cache?auth_token=***&tls=true',
    );
  });

  it('applies to the panel model', () => {
    const leaky = { ...cluster, redis_url: 'redis://cache:6379?password=hunter2' };
    expect(buildClusterModel(leaky, null, SAMPLED, SAMPLED)?.redisUrl).toBe(
      'redis://cache:6379?password=***',
    );
  });
});

describe('formatLastSeen', () => {
  it('says seconds, then minutes, then hours', () => {
    expect(formatLastSeen(0)).toBe('last seen just now');
    expect(formatLastSeen(0.9)).toBe('last seen just now');
    expect(formatLastSeen(1)).toBe('last seen 1 s ago');
    expect(formatLastSeen(42.7)).toBe('last seen 42 s ago');
    expect(formatLastSeen(119)).toBe('last seen 119 s ago');
    expect(formatLastSeen(125)).toBe('last seen 2 min ago');
    expect(formatLastSeen(7_199)).toBe('last seen 119 min ago');
    expect(formatLastSeen(7_200)).toBe('last seen 2 h ago');
  });
});

describe('overview node id', () => {
  const base: Overview = {
    connectionId: 'prod',
    name: 'Prod',
    url: 'https://mq.example',
    reachable: true,
    error: null,
    health: { status: 'ok', version: '1.4.0', uptime_seconds: 75, node_id: 'node-a' },
    stats: { realms: {}, connections_current: 0, cluster },
    counters: { produced: 0, delivered: 0, connectionsTotal: 0, connectionsCurrent: 0 },
    rates: null,
    local: null,
    sampledAt: SAMPLED,
    seq: 1,
  };

  it("is the broker's node id while it answers, else null", () => {
    expect(buildOverviewModel(base, null).nodeId).toBe('node-a');
    const plain: Overview = {
      ...base,
      health: { ...base.health!, node_id: null },
      stats: { realms: {}, connections_current: 0 },
    };
    expect(buildOverviewModel(plain, null).nodeId).toBeNull();
    const down: Overview = { ...base, reachable: false, error: { code: 'X', message: 'down' } };
    expect(buildOverviewModel(down, null).nodeId).toBeNull();
  });
});
