/**
 * Reads a clustered broker node's relay counters from its parsed `/api/metrics` (docs/cluster.md):
 * `tyo_mq_cluster_relayed_total{outcome="sent"|"failed"}` and
 * `tyo_mq_cluster_received_total{outcome="routed"|"invalid"}`. A broker is taken as clustered
 * when it exposes `tyo_mq_cluster_redis_up` (a gauge every clustered node always reports).
 */
import type { ClusterRelay } from '../../shared/console-api-cluster';
import { MetricName } from '../../shared/metric-names';
import { sumSamples, type PromExposition } from './prometheus-text';

/** The relay totals of a clustered node, or undefined when the broker is not clustered. */
export function readClusterRelay(exposition: PromExposition): ClusterRelay | undefined {
  if (!exposition.samples.some((s) => s.name === MetricName.CLUSTER_REDIS_UP)) return undefined;
  const relayed = (outcome: string): number =>
    sumSamples(exposition, MetricName.CLUSTER_RELAYED_TOTAL, { outcome });
  const received = (outcome: string): number =>
    sumSamples(exposition, MetricName.CLUSTER_RECEIVED_TOTAL, { outcome });
  return {
    sent: relayed('sent'),
    failed: relayed('failed'),
    received: received('routed'),
    invalid: received('invalid'),
  };
}
