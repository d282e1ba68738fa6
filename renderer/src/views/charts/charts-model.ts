/**
 * Pure model of the Overview charts: keeps the points of one range (fetched once, then appended
 * from `metricsPoint` events, trimmed to the range), and turns them into chart rows for all
 * realms or one realm. Kept apart from the component so it is testable without a DOM.
 */
import type { MetricPoint, MetricRange } from '../../../../shared/console-api-operations';

/** Time covered by each range, ms (`all`: everything the console kept). */
export const RANGE_MS: Record<MetricRange, number> = {
  '5m': 300_000,
  '1h': 3_600_000,
  all: Number.POSITIVE_INFINITY,
};

/** Appended points of `all` after which the view re-fetches the (merged) history. */
export const ALL_REFETCH_AFTER = 600;

/** Appends `point` unless it is older than the newest (by seq), then trims to `range`. */
export function appendPoint(points: MetricPoint[], point: MetricPoint, range: MetricRange) {
  const newest = points[points.length - 1];
  if (newest && newest.seq >= point.seq) return points;
  const next = [...points, point];
  if (range === 'all') return next;
  // Trim by covered time, not wall clock (which may step back).
  let covered = 0;
  let start = next.length;
  while (start > 0 && covered < RANGE_MS[range]) {
    start -= 1;
    covered += next[start]!.spanMs || 1_000;
  }
  return start === 0 ? next : next.slice(start);
}

/** One chart row: time, and each series (null where there is no data: a gap). */
export interface ChartRow {
  t: number;
  produced: number | null;
  delivered: number | null;
  queued: number | null;
  deadLettered: number | null;
  ackTimeouts: number | null;
  rateLimited: number | null;
  connections: number | null;
  queueDepth: number | null;
  dlqDepth: number | null;
}

/** Chart rows for every realm (`realm` null) or one realm (no rate-limited series then). */
export function chartRows(points: MetricPoint[], realm: string | null): ChartRow[] {
  return points.map((p) => {
    if (realm === null) {
      return {
        t: p.t,
        produced: p.rates?.produced ?? null,
        delivered: p.rates?.delivered ?? null,
        queued: p.rates?.queued ?? null,
        deadLettered: p.rates?.deadLettered ?? null,
        ackTimeouts: p.rates?.ackTimeouts ?? null,
        rateLimited: p.rates?.rateLimited ?? null,
        connections: p.connections,
        queueDepth: p.queueDepth,
        dlqDepth: p.dlqDepth,
      };
    }
    const r = p.realms[realm];
    return {
      t: p.t,
      produced: r?.rates?.produced ?? (p.up ? 0 : null),
      delivered: r?.rates?.delivered ?? (p.up ? 0 : null),
      queued: r?.rates?.queued ?? (p.up ? 0 : null),
      deadLettered: r?.rates?.deadLettered ?? (p.up ? 0 : null),
      ackTimeouts: r?.rates?.ackTimeouts ?? (p.up ? 0 : null),
      rateLimited: null,
      connections: p.connections,
      queueDepth: r ? r.queueDepth : p.up ? 0 : null,
      dlqDepth: r ? r.dlqDepth : p.up ? 0 : null,
    };
  });
}

/** Realm names seen in `points`, sorted. */
export function realmsOf(points: MetricPoint[]): string[] {
  const names = new Set<string>();
  for (const p of points.slice(-60)) for (const name of Object.keys(p.realms)) names.add(name);
  return [...names].sort();
}

/** Most rows drawn per chart: more than a chart's width in pixels buys nothing and costs time. */
export const MAX_DRAWN_ROWS = 150;

/**
 * At most `max` rows: consecutive rows averaged in equal buckets (a series stays null only where
 * every row of the bucket is null, so outages still show as gaps).
 */
export function thinRows(rows: ChartRow[], max = MAX_DRAWN_ROWS): ChartRow[] {
  if (rows.length <= max) return rows;
  const per = Math.ceil(rows.length / max);
  const out: ChartRow[] = [];
  for (let i = 0; i < rows.length; i += per) {
    const bucket = rows.slice(i, i + per);
    const row = { t: bucket[bucket.length - 1]!.t } as ChartRow;
    for (const key of Object.keys(bucket[0]!) as (keyof ChartRow)[]) {
      if (key === 't') continue;
      let sum = 0;
      let n = 0;
      for (const r of bucket) {
        const v = r[key];
        if (v !== null) {
          sum += v;
          n += 1;
        }
      }
      row[key] = n === 0 ? null : sum / n;
    }
    out.push(row);
  }
  return out;
}

/**
 * A y-axis tick, short enough for the axis' width (`AXIS_WIDTH` px at 11 px type): up to 9,999
 * in full with a thousands separator, then `12k`, `1.5M`, `2.3G` (one decimal below 10 of a unit).
 * Fractions (rates below 1/s) keep one decimal.
 */
export function axisTick(value: number): string {
  if (!Number.isFinite(value)) return '';
  const abs = Math.abs(value);
  if (abs < 10_000) {
    return abs >= 1 || abs === 0
      ? Math.round(value).toLocaleString('en-GB')
      : String(Math.round(value * 10) / 10);
  }
  for (const [unit, size] of [
    ['G', 1e9],
    ['M', 1e6],
    ['k', 1e3],
  ] as const) {
    if (abs < size) continue;
    const scaled = value / size;
    const digits = Math.abs(scaled) < 10 ? 1 : 0;
    return `${Number(scaled.toFixed(digits))}${unit}`;
  }
  return String(value);
}

/** Width of the charts' y axis, px: fits `axisTick`'s longest label ("9,999", "999k"). */
export const AXIS_WIDTH = 44;

/** Steps a time axis may use, ms: whole seconds, minutes and hours a clock label reads well at. */
const TIME_STEPS = [
  1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000,
  1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];

/**
 * The x-axis ticks of a time chart over `[min, max]` (epoch ms): at most `most` (default 5)
 * instants on the smallest whole step of {@link TIME_STEPS} that keeps within that count, aligned
 * to that step (…:00, …:30), so no two ticks print the same `HH:MM:SS` label (trial finding:
 * a category axis repeated one label when two readings fell in one second). Empty for an empty
 * or non-finite range; one tick (`min`) when no step boundary falls inside it.
 */
export function timeTicks(min: number, max: number, most = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max) || max < min) return [];
  if (max === min) return [min];
  const span = max - min;
  const step =
    TIME_STEPS.find((s) => span / s < most) ?? Math.ceil(span / most / 86_400_000) * 86_400_000;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) ticks.push(t);
  // A window shorter than a second still names its time once.
  return ticks.length === 0 ? [min] : ticks;
}
