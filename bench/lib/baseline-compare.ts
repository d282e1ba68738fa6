/**
 * The bench's regression guard (issue 25): every run's key figures side by side with the
 * figures of a committed baseline, so a slower change is visible in the JSON it prints.
 *
 * Files (in `bench/results/`):
 *   - `baseline.json`: the figures of the run committed when a performance issue was resolved
 *     (`BENCH_SAVE_BASELINE=1 npm run bench` writes it; commit it with the change);
 *   - `latest.json`: the figures of the newest run (written by every run, not committed).
 *
 * A figure is a numeric leaf of the bench document whose key names a measured result
 * (`KEY_PATTERN`: throughput, ratios, latency percentiles, CPU per message, conformance
 * counts), addressed by its path (`fanout[0].ratio`). Goals and parameters are left out.
 * Direction: keys about time, CPU, latency or memory are better lower (`LOWER_IS_BETTER`),
 * every other figure better higher. A change counts as a regression when it is worse by more
 * than `tolerancePct` (default 15 %: these shared 2-core machines vary by about that between
 * runs; compare ratios measured in one run, which vary less).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Keys that hold a measured figure (the last key of the path). */
const KEY_PATTERN =
  /(^ratio$|_ratio$|_per_s$|^p50$|^p90$|^p99$|^p99_9$|^max$|_us_per_[a-z_]+$|^pass$|^fail$|_ms$)/;
/** Keys never compared: goals, parameters and inputs of the run. */
const SKIP_PATTERN = /^(goal|target|parameters|machine|load_avg|duration|started|schema)/;
/** Figures that are better lower (by the last key, or any key of the path). */
const LOWER_IS_BETTER = /(latency|_ms$|cpu|_us_|^p\d|^max$|delay|rss|heap|^fail$|long_task)/;

/** `{path: value}` of every figure in `doc`. Arrays are indexed (`[0]`). */
export function figuresOf(doc: unknown, path = '', out: Record<string, number> = {}) {
  if (Array.isArray(doc)) {
    doc.forEach((v, i) => figuresOf(v, `${path}[${i}]`, out));
  } else if (typeof doc === 'object' && doc !== null) {
    for (const [key, value] of Object.entries(doc)) {
      if (SKIP_PATTERN.test(key)) continue;
      const p = path === '' ? key : `${path}.${key}`;
      if (typeof value === 'number' && Number.isFinite(value)) {
        if (KEY_PATTERN.test(key)) out[p] = value;
      } else {
        figuresOf(value, p, out);
      }
    }
  }
  return out;
}

/** One figure of this run against the baseline. */
export interface FigureChange {
  path: string;
  baseline: number;
  current: number;
  /** (current − baseline) / baseline, in %, rounded to 0.1; null when the baseline is 0. */
  change_pct: number | null;
  /** Worse than the baseline by more than the tolerance, in its figure's direction. */
  regression: boolean;
}

export interface BaselineComparison {
  /** Where the baseline came from, or null when there is none (nothing compared). */
  baseline_file: string | null;
  baseline_started_at: string | null;
  tolerance_pct: number;
  /** Figures present in both runs (a run of some scenarios compares only those). */
  compared: number;
  regressions: FigureChange[];
  /** Every compared figure, in path order. */
  figures: FigureChange[];
}

/** Whether a figure at `path` is better lower. */
export function lowerIsBetter(path: string): boolean {
  return path.split(/[.[\]]+/).some((k) => k !== '' && LOWER_IS_BETTER.test(k));
}

/** Compares `current` figures with `baseline` figures (see the module comment). */
export function compareFigures(
  baseline: Record<string, number>,
  current: Record<string, number>,
  tolerancePct = 15,
): Pick<BaselineComparison, 'compared' | 'regressions' | 'figures' | 'tolerance_pct'> {
  const figures: FigureChange[] = [];
  for (const path of Object.keys(current).sort()) {
    const before = baseline[path];
    if (before === undefined) continue;
    const now = current[path]!;
    const change =
      before === 0 ? null : Math.round(((now - before) / Math.abs(before)) * 1000) / 10;
    const worse = lowerIsBetter(path) ? now > before : now < before;
    // From a baseline of 0 (no failure before) any worsening counts.
    const beyond = change === null || Math.abs(change) > tolerancePct;
    figures.push({
      path,
      baseline: before,
      current: now,
      change_pct: change,
      regression: worse && beyond,
    });
  }
  return {
    tolerance_pct: tolerancePct,
    compared: figures.length,
    regressions: figures.filter((f) => f.regression),
    figures,
  };
}

/** The document a results file holds. */
interface ResultsFile {
  started_at: string;
  figures: Record<string, number>;
}

/**
 * Writes this run's figures to `latestFile` (and to `baselineFile` when `saveBaseline`), and
 * returns them compared with the baseline file's (the one there before this run).
 */
export function guardAgainstBaseline(
  doc: { started_at?: string },
  files: { latestFile: string; baselineFile: string },
  opts: { saveBaseline?: boolean; tolerancePct?: number } = {},
): BaselineComparison {
  const current: ResultsFile = { started_at: doc.started_at ?? '', figures: figuresOf(doc) };
  let previous: ResultsFile | null = null;
  if (existsSync(files.baselineFile)) {
    previous = JSON.parse(readFileSync(files.baselineFile, 'utf8')) as ResultsFile;
  }
  const text = `${JSON.stringify(current, null, 2)}\n`;
  mkdirSync(dirname(files.latestFile), { recursive: true });
  writeFileSync(files.latestFile, text);
  if (opts.saveBaseline) writeFileSync(files.baselineFile, text);
  if (!previous) {
    return {
      baseline_file: null,
      baseline_started_at: null,
      tolerance_pct: opts.tolerancePct ?? 15,
      compared: 0,
      regressions: [],
      figures: [],
    };
  }
  return {
    baseline_file: files.baselineFile,
    baseline_started_at: previous.started_at,
    ...compareFigures(previous.figures, current.figures, opts.tolerancePct),
  };
}
