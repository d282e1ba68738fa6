/**
 * The broker's `stats` and `health` documents, shared by `GET /api/stats`, `GET /health` and the
 * `stats` management command.
 *
 * Source: `spec/protocol-core.md` §15 (`getStats()`), `spec/protocol-admin.md` §10.3 and §10.5.
 * Switchboard adds the durable queue depths of each realm (`queued`, `queues`, issue 7).
 */
import type { ClusterStatus, Health, Stats, StorageStatus } from '../../shared/http-api';
import { queueStats, type QueueLedger } from '../delivery/queue-ledger';
import type { RealmDirectory } from '../routing/realm-directory';
import { BROKER_VERSION } from '../version';

function count<T extends { online: boolean }>(m: Map<string, T>) {
  let online = 0;
  for (const e of m.values()) if (e.online) online++;
  return { total: m.size, online };
}

/**
 * `stats` (§10.5): per realm, producers and consumers (total/online), subscribed keys, depths,
 * and (Switchboard, issue 14) `mqtt_clients`: MQTT clients connected now, when there are any.
 * `connectionsCurrent` counts socket.io and MQTT connections; `cluster` (docs/cluster.md) is
 * this node's cluster status when clustering is on; `storage` (issue 21) the store's free-space
 * state when it has one (SQLite).
 */
export function brokerStats(
  realms: RealmDirectory,
  ledger: QueueLedger,
  connectionsCurrent: number,
  nodeId: string | undefined,
  mqttClients: ReadonlyMap<string, number> = new Map(),
  cluster?: ClusterStatus,
  storage?: StorageStatus,
  storageFellBack = false,
): Stats {
  const out: Stats = { realms: {}, connections_current: connectionsCurrent };
  for (const realm of realms.values()) {
    out.realms[realm.name] = {
      producers: count(realm.producers),
      consumers: count(realm.consumers),
      subscriptions: realm.subscriptions.size,
      ...queueStats(ledger, realm.name),
    };
  }
  // Realms that hold only stored copies (e.g. every subscriber expired) still show them.
  for (const [name] of ledger.realmDepths()) {
    if (out.realms[name] || ledger.depth(name) === 0) continue;
    out.realms[name] = {
      producers: { total: 0, online: 0 },
      consumers: { total: 0, online: 0 },
      subscriptions: 0,
      ...queueStats(ledger, name),
    };
  }
  for (const [name, n] of mqttClients) {
    out.realms[name] ??= {
      producers: { total: 0, online: 0 },
      consumers: { total: 0, online: 0 },
      subscriptions: 0,
      ...queueStats(ledger, name),
    };
    out.realms[name].mqtt_clients = n;
  }
  if (nodeId) out.cluster_node_id = nodeId;
  if (cluster) out.cluster = cluster;
  if (storage) out.storage = storage;
  if (storageFellBack) out.storage_fell_back = true;
  return out;
}

/** `GET /health` (§10.3); `startedAt` is epoch ms. */
export function brokerHealth(
  startedAt: number,
  nodeId: string | undefined,
  storageFellBack = false,
): Health {
  return {
    status: 'ok',
    version: BROKER_VERSION,
    uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
    node_id: nodeId ?? null,
    ...(storageFellBack ? { storage_fell_back: true as const } : {}),
  };
}
