/**
 * Turns scrapes of a broker's `/api/metrics` into chart points: per-second rates of its message
 * counters (in total and per realm), the queue and DLQ depths, the connection count; and merges
 * consecutive points into one (for the long chart ranges).
 *
 * Source: `spec/protocol-admin.md` §10.4 (metric names and labels), docs/http-api.md (Switchboard
 * gauges `tyo_mq_queue_depth`, `tyo_mq_dlq_depth`). A counter that went down means the broker
 * restarted: its increase is then its new value (as Prometheus' `rate()` does).
 */
import type { MetricPoint, MetricRates, RealmMetrics } from '../../shared/console-api-operations';
import { MetricName } from '../../shared/metric-names';
import type { PromExposition } from './prometheus-text';

/** Most realms recorded per point (the first ones by name), so a point stays small. */
export const MAX_REALMS_PER_POINT = 50;

type RealmCounters = Omit<MetricRates, 'rateLimited'>;

/** The counter values of one scrape, read on a monotonic clock. */
export interface CounterSnapshot {
  monotonicAt: number;
  totals: MetricRates;
  realms: Map<string, RealmCounters>;
}

const REALM_COUNTERS: Record<keyof RealmCounters, string> = {
  produced: MetricName.MESSAGES_PRODUCED_TOTAL,
  delivered: MetricName.MESSAGES_DELIVERED_TOTAL,
  queued: MetricName.MESSAGES_QUEUED_TOTAL,
  deadLettered: MetricName.MESSAGES_DLQ_TOTAL,
  ackTimeouts: MetricName.ACK_TIMEOUT_TOTAL,
};
const KEYS = Object.keys(REALM_COUNTERS) as (keyof RealmCounters)[];

const zeroRealm = (): RealmCounters => ({
  produced: 0,
  delivered: 0,
  queued: 0,
  deadLettered: 0,
  ackTimeouts: 0,
});

/** Gauges of one scrape: connections now, copies held and dead letters held (all, per realm). */
export interface Gauges {
  connections: number;
  queueDepth: number;
  dlqDepth: number;
  realmDepths: Map<string, { queueDepth: number; dlqDepth: number }>;
}

/** Reads the counters and gauges a point needs from one exposition. */
export function readExposition(
  metrics: PromExposition,
  monotonicAt: number,
): { snapshot: CounterSnapshot; gauges: Gauges } {
  const totals: MetricRates = { ...zeroRealm(), rateLimited: 0 };
  const realms = new Map<string, RealmCounters>();
  const realmDepths = new Map<string, { queueDepth: number; dlqDepth: number }>();
  const counterKey = new Map<string, keyof RealmCounters>(
    KEYS.map((key) => [REALM_COUNTERS[key], key]),
  );
  let connections = 0;
  let queueDepth = 0;
  let dlqDepth = 0;
  const depthsOf = (realm: string) => {
    let depths = realmDepths.get(realm);
    if (!depths) {
      depths = { queueDepth: 0, dlqDepth: 0 };
      realmDepths.set(realm, depths);
    }
    return depths;
  };
  for (const sample of metrics.samples) {
    if (!Number.isFinite(sample.value)) continue;
    const key = counterKey.get(sample.name);
    const realm = sample.labels.realm;
    if (key) {
      totals[key] += sample.value;
      if (realm !== undefined) {
        let counters = realms.get(realm);
        if (!counters) {
          counters = zeroRealm();
          realms.set(realm, counters);
        }
        counters[key] += sample.value;
      }
    } else if (sample.name === MetricName.RATE_LIMITED_TOTAL) {
      totals.rateLimited += sample.value;
    } else if (sample.name === MetricName.CONNECTIONS_CURRENT) {
      connections += sample.value;
    } else if (sample.name === MetricName.QUEUE_DEPTH) {
      queueDepth += sample.value;
      if (realm !== undefined) depthsOf(realm).queueDepth += sample.value;
    } else if (sample.name === MetricName.DLQ_DEPTH) {
      dlqDepth += sample.value;
      if (realm !== undefined) depthsOf(realm).dlqDepth += sample.value;
    }
  }
  return {
    snapshot: { monotonicAt, totals, realms },
    gauges: { connections, queueDepth, dlqDepth, realmDepths },
  };
}

/** A counter's increase from `before` to `now`, a reset counting from zero. */
const increase = (now: number, before: number): number => (now >= before ? now - before : now);

function ratesOf<T extends Record<string, number>>(
  now: T,
  before: T | undefined,
  seconds: number,
): T {
  const out = {} as Record<string, number>;
  for (const key of Object.keys(now)) {
    out[key] = increase(now[key]!, before?.[key] ?? 0) / seconds;
  }
  return out as T;
}

/**
 * The point of one reachable scrape; rates against `previous` (null for the first scrape or
 * after an outage: rates then null).
 */
export function pointOf(
  metrics: PromExposition,
  at: { t: number; seq: number; monotonicAt: number; spanMs: number },
  previous: CounterSnapshot | null,
): { point: MetricPoint; snapshot: CounterSnapshot } {
  const { snapshot, gauges } = readExposition(metrics, at.monotonicAt);
  const seconds = previous ? (at.monotonicAt - previous.monotonicAt) / 1000 : 0;
  const usable = previous !== null && seconds > 0;
  const names = [...new Set([...snapshot.realms.keys(), ...gauges.realmDepths.keys()])]
    .sort()
    .slice(0, MAX_REALMS_PER_POINT);
  const realms: Record<string, RealmMetrics> = {};
  for (const name of names) {
    const counters = snapshot.realms.get(name) ?? zeroRealm();
    const depths = gauges.realmDepths.get(name) ?? { queueDepth: 0, dlqDepth: 0 };
    realms[name] = {
      rates: usable ? ratesOf(counters, previous.realms.get(name), seconds) : null,
      ...depths,
    };
  }
  return {
    snapshot,
    point: {
      t: at.t,
      seq: at.seq,
      spanMs: at.spanMs,
      up: true,
      rates: usable ? ratesOf(snapshot.totals, previous.totals, seconds) : null,
      totals: snapshot.totals,
      connections: gauges.connections,
      queueDepth: gauges.queueDepth,
      dlqDepth: gauges.dlqDepth,
      realms,
    },
  };
}

/** The point of a scrape that failed: no data, `up: false`. */
export function downPoint(at: { t: number; seq: number; spanMs: number }): MetricPoint {
  return {
    ...at,
    up: false,
    rates: null,
    totals: null,
    connections: null,
    queueDepth: null,
    dlqDepth: null,
    realms: {},
  };
}

/** Average of two rate sets weighted by the time each covers; a null side is left out. */
function mergeRates<T extends Record<string, number>>(
  a: T | null,
  wa: number,
  b: T | null,
  wb: number,
): T | null {
  if (!a) return b;
  if (!b) return a;
  const total = wa + wb || 1;
  const out = {} as Record<string, number>;
  for (const key of Object.keys(a)) out[key] = (a[key]! * wa + (b[key] ?? 0) * wb) / total;
  return out as T;
}

/**
 * One point covering `older` then `newer`: rates averaged over time, depths, totals and the
 * connection count from the newer point (the older one when the newer is down).
 */
export function mergePoints(older: MetricPoint, newer: MetricPoint): MetricPoint {
  const last = newer.up ? newer : older;
  const realms: Record<string, RealmMetrics> = {};
  for (const name of new Set([...Object.keys(older.realms), ...Object.keys(newer.realms)])) {
    const a = older.realms[name];
    const b = newer.realms[name];
    realms[name] = {
      rates: mergeRates(a?.rates ?? null, older.spanMs, b?.rates ?? null, newer.spanMs),
      queueDepth: (b ?? a)!.queueDepth,
      dlqDepth: (b ?? a)!.dlqDepth,
    };
  }
  return {
    t: newer.t,
    seq: newer.seq,
    spanMs: older.spanMs + newer.spanMs,
    up: older.up || newer.up,
    rates: mergeRates(older.rates, older.spanMs, newer.rates, newer.spanMs),
    totals: last.totals,
    connections: last.connections,
    queueDepth: last.queueDepth,
    dlqDepth: last.dlqDepth,
    realms,
  };
}
