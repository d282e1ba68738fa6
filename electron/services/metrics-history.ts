/**
 * MetricsHistory: per connection, the chart points of every scrape, kept in bounded memory for
 * the console's whole run (so across broker restarts and outages):
 * - the last hour at full resolution (one point per scrape, a ring buffer of 3,600);
 * - everything since the console started at most `ALL_CAPACITY` points: points are merged
 *   into buckets, and when the buffer is full, neighbours are merged pairwise and the bucket
 *   width doubles (so memory stays bounded however long the console runs).
 *
 * Source: issue 13 ("ranges 5 min / 1 h / since start … bounded ring buffer per connection"),
 * ARCHITECTURE §3 (ring buffers). Rates use the poller's monotonic clock; counter resets
 * (a broker restart) count from zero.
 */
import type { MetricPoint, MetricRange } from '../../shared/console-api-operations';
import type { BrokerSample } from './metrics-poller';
import { downPoint, mergePoints, pointOf, type CounterSnapshot } from './metric-points';
import type { PromExposition } from './prometheus-text';
import { RingBuffer } from './ring-buffer';

/** Points kept at full resolution: one hour at one scrape per second. */
export const FINE_CAPACITY = 3_600;
/** Most points of the "since start" range. */
export const ALL_CAPACITY = 720;
/** Points of the `1h` answer: the fine points merged into this many buckets at most. */
const HOUR_POINTS = 720;
/** Initial bucket width of the "since start" range, ms. */
const ALL_BUCKET_MS = 5_000;

const RANGE_MS: Record<Exclude<MetricRange, 'all'>, number> = { '5m': 300_000, '1h': 3_600_000 };

class ConnectionHistory {
  readonly fine = new RingBuffer<MetricPoint>(FINE_CAPACITY);
  all: MetricPoint[] = [];
  bucketMs = ALL_BUCKET_MS;
  pending: MetricPoint | null = null;
  previous: CounterSnapshot | null = null;
  lastMonotonic: number | null = null;

  add(point: MetricPoint): void {
    this.fine.push(point);
    this.pending = this.pending ? mergePoints(this.pending, point) : point;
    if (this.pending.spanMs < this.bucketMs) return;
    this.all.push(this.pending);
    this.pending = null;
    if (this.all.length < ALL_CAPACITY) return;
    const merged: MetricPoint[] = [];
    for (let i = 0; i + 1 < this.all.length; i += 2) {
      merged.push(mergePoints(this.all[i]!, this.all[i + 1]!));
    }
    if (this.all.length % 2 === 1) merged.push(this.all[this.all.length - 1]!);
    this.all = merged;
    this.bucketMs *= 2;
  }
}

export class MetricsHistory {
  private readonly histories = new Map<string, ConnectionHistory>();

  /**
   * Records one scrape of `connectionId` and returns its point. `metrics` is null when the
   * broker could not be read (the point is then `up: false`, and the next rates start afresh).
   */
  record(connectionId: string, sample: BrokerSample, metrics: PromExposition | null): MetricPoint {
    let history = this.histories.get(connectionId);
    if (!history) {
      history = new ConnectionHistory();
      this.histories.set(connectionId, history);
    }
    const spanMs =
      history.lastMonotonic === null ? 0 : Math.max(0, sample.monotonicAt - history.lastMonotonic);
    history.lastMonotonic = sample.monotonicAt;
    const at = { t: sample.sampledAt, seq: sample.seq, spanMs };
    let point: MetricPoint;
    if (sample.reachable && metrics) {
      const next = pointOf(metrics, { ...at, monotonicAt: sample.monotonicAt }, history.previous);
      history.previous = next.snapshot;
      point = next.point;
    } else {
      history.previous = null;
      point = downPoint(at);
    }
    history.add(point);
    return point;
  }

  /** Points of `range`, oldest first (empty for a connection never sampled). */
  points(connectionId: string, range: MetricRange): MetricPoint[] {
    const history = this.histories.get(connectionId);
    if (!history) return [];
    if (range === 'all')
      return history.pending ? [...history.all, history.pending] : [...history.all];
    const fine = history.fine.toArray();
    const newest = fine[fine.length - 1];
    if (!newest) return [];
    // Kept by sample count, cut by the samples' own spans (a slow broker scrapes less often).
    const out: MetricPoint[] = [];
    let covered = 0;
    for (let i = fine.length - 1; i >= 0 && covered < RANGE_MS[range]; i -= 1) {
      out.push(fine[i]!);
      covered += fine[i]!.spanMs || 1_000;
    }
    out.reverse();
    if (range === '5m' || out.length <= HOUR_POINTS) return out;
    const per = Math.ceil(out.length / HOUR_POINTS);
    const merged: MetricPoint[] = [];
    for (let i = 0; i < out.length; i += per) {
      merged.push(out.slice(i, i + per).reduce((a, b) => mergePoints(a, b)));
    }
    return merged;
  }

  /** Forgets connections not in `keep` (removed profiles). */
  retain(keep: readonly string[]): void {
    for (const id of this.histories.keys()) if (!keep.includes(id)) this.histories.delete(id);
  }
}
