/**
 * The Overview's "Cluster" panel for a clustered broker node (docs/console.md, "Cluster"): the
 * Redis link (a warning while it is down: nothing is relayed then), the redacted Redis URL and
 * key prefix as the broker reports them, the relay counters, and the nodes alive with their
 * version, uptime and last heartbeat, the answering node marked. Renders nothing for a broker
 * that is not clustered.
 */
import type { ClusterRelay } from '../../../../shared/console-api-cluster';
import type { ClusterStatus } from '../../../../shared/http-api';
import { StatusBadge } from '../../components/status-badge';
import { formatCount, formatDuration } from '../../format';
import { buildClusterModel, formatLastSeen } from './cluster-model';
import { useNow } from '../../hooks/use-now';
import '../../styles/cluster.css';

export interface ClusterPanelProps {
  cluster: ClusterStatus | null | undefined;
  relay: ClusterRelay | null | undefined;
  /** Console wall-clock time of the sample, epoch ms. */
  sampledAt: number;
}

export function ClusterPanel({ cluster, relay, sampledAt }: ClusterPanelProps) {
  const now = useNow();
  const model = buildClusterModel(cluster, relay, sampledAt, now);
  if (!model) return null;
  return (
    <section className="panel cluster" aria-label="Cluster" data-testid="cluster-panel">
      <header className="cluster__header">
        <h3 className="cluster__title">Cluster</h3>
        <StatusBadge
          label={model.redisUp ? 'Redis up' : 'Redis down'}
          tone={model.redisUp ? 'ok' : 'bad'}
          testId="cluster-redis"
        />
      </header>
      {!model.redisUp && (
        <p className="cluster__warning" role="alert" data-testid="cluster-redis-down">
          <strong>Redis is unreachable:</strong> messages are not relayed to other nodes while Redis
          is down. Consumers on other nodes miss what is produced here; delivery on this node goes
          on. Only this node is listed until the link is back.
          {model.redisError && (
            <>
              {' '}
              Last error: <code data-testid="cluster-redis-error">{model.redisError}</code>
            </>
          )}
        </p>
      )}
      <dl className="facts cluster__facts">
        <dt>Redis</dt>
        <dd>
          <code data-testid="cluster-redis-url">{model.redisUrl}</code>
        </dd>
        <dt>Prefix</dt>
        <dd>
          <code data-testid="cluster-prefix">{model.prefix}</code>
        </dd>
        {model.relay && (
          <>
            <dt>Relayed</dt>
            <dd data-testid="cluster-relayed">
              {formatCount(model.relay.sent)} sent · {formatCount(model.relay.failed)} failed
            </dd>
            <dt>Received</dt>
            <dd data-testid="cluster-received">
              {formatCount(model.relay.received)} routed · {formatCount(model.relay.invalid)}{' '}
              invalid
            </dd>
          </>
        )}
      </dl>
      <h4 className="cluster__subtitle">
        Nodes <span className="muted">({formatCount(model.nodes.length)} alive)</span>
      </h4>
      <ul className="cluster-nodes" data-testid="cluster-nodes">
        {model.nodes.map((node) => (
          <li
            key={node.nodeId}
            className="cluster-node"
            data-testid={`cluster-node-${node.nodeId}`}
            data-self={node.self || undefined}
          >
            <span className="cluster-node__id">{node.nodeId}</span>
            {node.self && <span className="tag">this connection</span>}
            <span className="muted">v{node.version}</span>
            <span className="muted">up {formatDuration(node.uptimeSeconds)}</span>
            <span className="muted" data-testid={`cluster-node-${node.nodeId}-seen`}>
              {formatLastSeen(node.lastSeenSeconds)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
