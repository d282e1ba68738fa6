/**
 * The broker's Prometheus metrics, through prom-client.
 *
 * Source: `spec/protocol-admin.md` §10.4 (names, labels, when each counter moves). Per the
 * Note there, `event` labels are client-controlled, so each realm keeps at most
 * `maxEventLabels` distinct values and folds the rest into `event="other"`.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { MetricName, OTHER_EVENT_LABEL } from '../../shared/metric-names';

type LabelledCounter = { inc(n?: number): void };

/** Counters of one broker; one `Registry` each, so brokers in one process do not mix. */
export class BrokerMetrics {
  readonly registry = new Registry();
  private readonly connectionsTotal: Counter;
  private readonly produced: Counter<'event' | 'realm'>;
  private readonly delivered: Counter<'event' | 'realm'>;
  /** Cached label children: `realm → event → child`, bounded per realm. */
  private readonly producedChildren = new Map<string, Map<string, LabelledCounter>>();
  private readonly deliveredChildren = new Map<string, Map<string, LabelledCounter>>();
  private readonly queued: Counter<'realm'>;
  private readonly dlq: Counter<'realm'>;
  private readonly ackTimeouts: Counter<'realm'>;
  /** Plain totals for `status` without a scrape. */
  readonly totals = { produced: 0, delivered: 0, connections: 0, queued: 0, deadLettered: 0 };

  constructor(
    private readonly maxEventLabels: number,
    currentConnections: () => number,
  ) {
    const registers = [this.registry];
    this.connectionsTotal = new Counter({
      name: MetricName.CONNECTIONS_TOTAL,
      help: 'Connections accepted on the main namespace',
      registers,
    });
    this.produced = new Counter({
      name: MetricName.MESSAGES_PRODUCED_TOTAL,
      help: 'Messages routed',
      labelNames: ['event', 'realm'],
      registers,
    });
    this.delivered = new Counter({
      name: MetricName.MESSAGES_DELIVERED_TOTAL,
      help: 'Messages emitted to consumer sockets',
      labelNames: ['event', 'realm'],
      registers,
    });
    this.queued = new Counter({
      name: MetricName.MESSAGES_QUEUED_TOTAL,
      help: 'Durable copies committed to the store',
      labelNames: ['realm'],
      registers,
    });
    this.dlq = new Counter({
      name: MetricName.MESSAGES_DLQ_TOTAL,
      help: 'Copies moved to the dead-letter queue',
      labelNames: ['realm'],
      registers,
    });
    this.ackTimeouts = new Counter({
      name: MetricName.ACK_TIMEOUT_TOTAL,
      help: 'ACK deadlines that expired',
      labelNames: ['realm'],
      registers,
    });
    new Gauge({
      name: MetricName.CONNECTIONS_CURRENT,
      help: 'Engine.IO clients connected now',
      registers,
      collect() {
        this.set(currentConnections());
      },
    });
  }

  connection(): void {
    this.totals.connections++;
    this.connectionsTotal.inc();
  }

  messageProduced(realm: string, event: string): void {
    this.totals.produced++;
    this.child(this.produced, this.producedChildren, realm, event).inc();
  }

  messageDelivered(realm: string, event: string): void {
    this.totals.delivered++;
    this.child(this.delivered, this.deliveredChildren, realm, event).inc();
  }

  messageQueued(realm: string): void {
    this.totals.queued++;
    this.queued.labels({ realm }).inc();
  }

  messageDeadLettered(realm: string): void {
    this.totals.deadLettered++;
    this.dlq.labels({ realm }).inc();
  }

  ackTimeout(realm: string): void {
    this.ackTimeouts.labels({ realm }).inc();
  }

  /** Prometheus text exposition of every metric. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private child(
    counter: Counter<'event' | 'realm'>,
    cache: Map<string, Map<string, LabelledCounter>>,
    realm: string,
    event: string,
  ): LabelledCounter {
    let byEvent = cache.get(realm);
    if (!byEvent) {
      byEvent = new Map();
      cache.set(realm, byEvent);
    }
    let child = byEvent.get(event);
    if (!child) {
      const label = byEvent.size >= this.maxEventLabels ? OTHER_EVENT_LABEL : event;
      child = byEvent.get(label) ?? counter.labels({ event: label, realm });
      // Past the cap only the folded child is cached, so the map (and label set) stays bounded.
      byEvent.set(label, child);
    }
    return child;
  }
}
