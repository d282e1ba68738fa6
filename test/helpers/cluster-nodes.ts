/**
 * Several broker nodes clustered over one private Redis (test/helpers/redis-server.ts), each a
 * harness (test/helpers/broker-harness.ts). `close()` closes every node; the Redis server is
 * the caller's to stop.
 */
import { randomBytes } from 'node:crypto';
import type { BrokerOptions, BrokerSettings, Harness } from './broker-harness';
import { startBroker } from './broker-harness';
import { authenticate, registeredConsumerIn } from './auth-clients';
import { waitUntil, waitUntilAsync } from './wait';

export interface ClusterNodes {
  nodes: Harness[];
  prefix: string;
  close(): Promise<void>;
}

/** A fresh key prefix, so tests sharing one Redis never see each other's keys. */
export function freshPrefix(): string {
  return `test-${randomBytes(4).toString('hex')}`;
}

/** The `cluster` block of test node `id` (fast heartbeat), with `extra` keys merged in. */
export function clusterBlock(
  redisUrl: string,
  prefix: string,
  id: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { enabled: true, redis_url: redisUrl, prefix, node_id: id, heartbeat_ms: 200, ...extra };
}

/** Whether `node` has seen `n` alive nodes (its heartbeat view, `cluster.nodes`). */
export function seesNodes(node: Harness, n: number): boolean {
  const cluster = node.broker.getStats().cluster;
  return cluster?.redis === 'up' && cluster.nodes.length === n;
}

/**
 * Starts `ids.length` nodes (node ids as given) sharing `redisUrl` under a fresh key prefix,
 * each with `settings` merged in (and `options`: pass `{env: {}}` with auth on, so no node
 * reads or writes the working directory's `.env`), and waits until every node sees all.
 */
export async function startCluster(
  redisUrl: string,
  ids: string[],
  settings: BrokerSettings & Record<string, unknown> = {},
  options: BrokerOptions = {},
  /** Extra keys of the `cluster` block (e.g. `inline_max_bytes`). */
  clusterSettings: Record<string, unknown> = {},
): Promise<ClusterNodes> {
  const prefix = freshPrefix();
  const nodes: Harness[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.close()));
  };
  try {
    for (const id of ids) {
      nodes.push(
        await startBroker(
          {
            ...settings,
            cluster: clusterBlock(redisUrl, prefix, id, clusterSettings),
          },
          options,
        ),
      );
    }
    await waitUntil(() => nodes.every((n) => seesNodes(n, ids.length)), 'every node sees all');
  } catch (err) {
    await close();
    throw err;
  }
  return { nodes, prefix, close };
}

/**
 * A consumer `name` admitted to `realm` by role (no credential) on node `h`, registered.
 * @throws when `h` refuses the realm (see `admitsRealm` for one another node just created).
 */
export function realmConsumer(h: Harness, realm: string, name: string) {
  return registeredConsumerIn(h, { realm, role: 'both' }, name);
}

/**
 * Resolves once node `h` admits a role-declared client to `realm`: a realm another node just
 * added or renamed reaches `h` through the cluster's shared settings, a moment later.
 */
export async function admitsRealm(h: Harness, realm: string): Promise<void> {
  await waitUntilAsync(async () => {
    const s = await h.connect();
    try {
      return (await authenticate(s, { realm, role: 'both' })).event === 'AUTH_OK';
    } finally {
      s.disconnect();
    }
  }, `the node admits realm ${realm}`);
}
