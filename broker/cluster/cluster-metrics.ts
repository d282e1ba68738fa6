/**
 * Prometheus metrics of a cluster node (docs/cluster.md), registered in the broker's registry:
 * `tyo_mq_cluster_redis_up`, `tyo_mq_cluster_relayed_total{outcome}`,
 * `tyo_mq_cluster_received_total{outcome}` and `tyo_mq_cluster_nodes`. Counts are kept as
 * plain numbers and handed over at scrape time (the relay is on the message hot path).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { MetricName } from '../../shared/metric-names';

export type RelayOutcome = 'sent' | 'failed';
export type ReceiveOutcome = 'routed' | 'invalid';

export class ClusterMetrics {
  /** Reports the streams relay's inbox figures from now on. */
  streams(source: () => { backlog: number; missed: number }): void {
    this.streamsSource = source;
  }

  readonly relayed: Record<RelayOutcome, number> = { sent: 0, failed: 0 };
  readonly received: Record<ReceiveOutcome, number> = { routed: 0, invalid: 0 };

  private streamsSource: (() => { backlog: number; missed: number }) | null = null;

  constructor(registry: Registry, source: { up(): boolean; nodes(): number }) {
    const registers = [registry];
    const streams = (): { backlog: number; missed: number } | null =>
      this.streamsSource?.() ?? null;
    let missedSeen = 0;
    new Counter({
      name: MetricName.CLUSTER_RELAY_MISSED_TOTAL,
      help: "Messages trimmed from this node's relay inbox before it read them (streams relay)",
      registers,
      collect() {
        const missed = streams()?.missed ?? 0;
        this.inc(missed - missedSeen);
        missedSeen = missed;
      },
    });
    new Gauge({
      name: MetricName.CLUSTER_RELAY_BACKLOG,
      help: "Entries in this node's relay inbox not read yet, at the last check (streams relay)",
      registers,
      collect() {
        this.set(streams()?.backlog ?? 0);
      },
    });
    new Gauge({
      name: MetricName.CLUSTER_REDIS_UP,
      help: 'Whether this node is connected to the cluster Redis (1) or not (0)',
      registers,
      collect() {
        this.set(source.up() ? 1 : 0);
      },
    });
    new Gauge({
      name: MetricName.CLUSTER_NODES,
      help: 'Cluster nodes seen alive, this one included',
      registers,
      collect() {
        this.set(source.nodes());
      },
    });
    const relayed = this.relayed;
    const sent = { sent: 0, failed: 0 };
    new Counter({
      name: MetricName.CLUSTER_RELAYED_TOTAL,
      help: 'Messages relayed to cluster peers, by outcome',
      labelNames: ['outcome'],
      registers,
      collect() {
        for (const outcome of ['sent', 'failed'] as const) {
          this.inc({ outcome }, relayed[outcome] - sent[outcome]);
          sent[outcome] = relayed[outcome];
        }
      },
    });
    const received = this.received;
    const seen = { routed: 0, invalid: 0 };
    new Counter({
      name: MetricName.CLUSTER_RECEIVED_TOTAL,
      help: 'Messages received from cluster peers, by outcome',
      labelNames: ['outcome'],
      registers,
      collect() {
        for (const outcome of ['routed', 'invalid'] as const) {
          this.inc({ outcome }, received[outcome] - seen[outcome]);
          seen[outcome] = received[outcome];
        }
      },
    });
  }
}
