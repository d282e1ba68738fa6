/**
 * Small statistics helpers for the benchmarks: percentiles of latency samples and medians of
 * repeated runs.
 *
 * Units are whatever the caller passes in; the benchmarks use milliseconds for latencies and
 * messages per second for throughputs. Results are rounded only when they are reported
 * (`round`), never inside the computation.
 */

/** Latency summary of one run, in milliseconds. */
export interface LatencySummary {
  /** Number of samples (deliveries) the summary is computed from. */
  samples: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
}

/**
 * The `p`-th percentile (0–100) of `sorted`, which must be sorted ascending, by linear
 * interpolation between the closest ranks (the "R-7" / NumPy default definition).
 * Returns `NaN` for an empty input.
 */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (n === 1) return sorted[0]!;
  const rank = (Math.min(Math.max(p, 0), 100) / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.min(lo + 1, n - 1);
  const frac = rank - lo;
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * frac;
}

/** The `p`-th percentile (0–100) of unsorted `values` (copied, then sorted). */
export function percentile(values: ArrayLike<number>, p: number): number {
  return percentileSorted(Float64Array.from(values).sort(), p);
}

/** Median of `values`; `NaN` when empty. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * Summarises the first `count` latency samples of `samples` (milliseconds). The buffer is
 * copied before sorting, so the caller can reuse it.
 */
export function summariseLatency(samples: Float64Array, count = samples.length): LatencySummary {
  const sorted = samples.slice(0, count).sort();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i]!;
  return {
    samples: sorted.length,
    p50_ms: percentileSorted(sorted, 50),
    p90_ms: percentileSorted(sorted, 90),
    p99_ms: percentileSorted(sorted, 99),
    max_ms: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
    mean_ms: sorted.length > 0 ? sum / sorted.length : Number.NaN,
  };
}

/** Rounds `value` to `digits` decimals for reporting; `NaN`/infinite values become `null`. */
export function round(value: number, digits = 3): number | null {
  if (!Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** `a / b` rounded for reporting, or `null` when either side is missing or `b` is zero. */
export function ratio(a: number, b: number, digits = 3): number | null {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return round(a / b, digits);
}

/** Median of each numeric field across runs, keyed like the input objects. */
export function medianOf<K extends string>(
  runs: ReadonlyArray<Record<K, number>>,
  keys: readonly K[],
): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const key of keys) out[key] = median(runs.map((r) => r[key]));
  return out;
}
