/**
 * Pure view model of the Overview's "Cluster" panel (cluster-panel.tsx), from one sample's
 * `/api/stats` `cluster` block and the relay counters of its `/api/metrics`. Kept apart from the
 * component so it is testable without a DOM.
 *
 * Ages and uptimes are measured on the answering node's clock (its own `last_seen` is the time
 * it answered) plus the time elapsed on the console's clock since the sample was taken, so a
 * console whose clock differs from the broker's still shows "last seen 2 s ago", not minutes.
 */
import type { ClusterRelay } from '../../../../shared/console-api-cluster';
import type { ClusterStatus } from '../../../../shared/http-api';

export interface ClusterNodeRow {
  nodeId: string;
  version: string;
  /** Whole seconds since the node started; null when its clock is ahead of the answering one. */
  uptimeSeconds: number | null;
  /** Whole seconds since its last heartbeat (0 for the answering node). */
  lastSeenSeconds: number;
  /** The node the console is connected to. */
  self: boolean;
}

export interface ClusterModel {
  nodeId: string;
  redisUp: boolean;
  /** While down: the broker's last Redis error (e.g. a refused password), if it gave one. */
  redisError: string | null;
  /** As the broker reports it (password already redacted), through `maskUrlSecrets`. */
  redisUrl: string;
  prefix: string;
  nodes: ClusterNodeRow[];
  /** Relay totals, or null when the metrics did not carry them. */
  relay: ClusterRelay | null;
}

/**
 * The panel's model, or null for a broker that is not clustered.
 * @param sampledAt console wall-clock time of the sample, epoch ms
 * @param now console wall-clock time now, epoch ms (an earlier `now` counts as no time elapsed)
 */
export function buildClusterModel(
  cluster: ClusterStatus | null | undefined,
  relay: ClusterRelay | null | undefined,
  sampledAt: number,
  now: number,
): ClusterModel | null {
  if (!cluster) return null;
  const self = cluster.nodes.find((n) => n.self);
  const elapsed = Math.max(0, now - sampledAt);
  // Without its own entry (never sent by the broker), the newest heartbeat stands in for "now".
  const reference =
    (self?.last_seen ?? Math.max(0, ...cluster.nodes.map((n) => n.last_seen))) + elapsed;
  const seconds = (ms: number): number => Math.floor(ms / 1000);
  return {
    nodeId: cluster.node_id,
    redisUp: cluster.redis === 'up',
    redisError: cluster.redis === 'up' ? null : (cluster.redis_error ?? null),
    redisUrl: maskUrlSecrets(cluster.redis_url),
    prefix: cluster.prefix,
    nodes: cluster.nodes.map((node) => ({
      nodeId: node.node_id,
      version: node.version,
      uptimeSeconds: reference >= node.started_at ? seconds(reference - node.started_at) : null,
      lastSeenSeconds: Math.max(0, seconds(reference - node.last_seen)),
      self: node.self,
    })),
    relay: relay ?? null,
  };
}

/** `0` → `"last seen just now"`, `1` → `"last seen 1 s ago"`, `125` → `"last seen 2 min ago"`. */
export function formatLastSeen(seconds: number): string {
  if (seconds < 1) return 'last seen just now';
  if (seconds < 120) return `last seen ${Math.floor(seconds)} s ago`;
  if (seconds < 7_200) return `last seen ${Math.floor(seconds / 60)} min ago`;
  return `last seen ${Math.floor(seconds / 3_600)} h ago`;
}

const SECRET_QUERY = /([?&][^=&#]*(?:pass|secret|token|auth)[^=&#]*=)[^&#]*/gi;

/**
 * `url` with the values of secret-looking query parameters (`password=`, `auth_token=`…)
 * replaced by `***`; anything else is left as it is. The broker redacts the password of the
 * URL's user part only, and ioredis also takes `?password=…`: a safety net for brokers that
 * report such a URL as it was configured.
 */
export function maskUrlSecrets(url: string): string {
  return url.replace(SECRET_QUERY, '$1***');
}
