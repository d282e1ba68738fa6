/**
 * The bench's regression guard (bench/lib/baseline-compare.ts): which figures it picks from a
 * bench document, which way each is better, and what it writes and reports, on real files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  compareFigures,
  figuresOf,
  guardAgainstBaseline,
  lowerIsBetter,
} from '../../bench/lib/baseline-compare';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const doc = (ratio: number, p99: number, fail = 0) => ({
  schema: 'switchboard-bench/1',
  started_at: `run-${ratio}`,
  machine: { cpus: 2 },
  parameters: { repeats: 3 },
  fanout: [{ consumers: 1, ratio, goal_min_ratio: 0.8, latency_loaded_ms: { p50: 1, p99 } }],
  mqtt_conformance: { totals: { switchboard: { pass: 38, fail } } },
});

describe('figuresOf', () => {
  it('takes measured figures by path and leaves goals, parameters and machine out', () => {
    expect(figuresOf(doc(0.9, 4))).toEqual({
      'fanout[0].ratio': 0.9,
      'fanout[0].latency_loaded_ms.p50': 1,
      'fanout[0].latency_loaded_ms.p99': 4,
      'mqtt_conformance.totals.switchboard.pass': 38,
      'mqtt_conformance.totals.switchboard.fail': 0,
    });
  });
});

describe('compareFigures', () => {
  it('knows which way each figure is better', () => {
    expect(lowerIsBetter('fanout[0].ratio')).toBe(false);
    expect(lowerIsBetter('fanout[0].latency_loaded_ms.p99')).toBe(true);
    expect(lowerIsBetter('durable.server_cpu_us_per_message')).toBe(true);
    expect(lowerIsBetter('mqtt_conformance.totals.switchboard.fail')).toBe(true);
  });

  it('flags a change worse than the tolerance, not a better one or a small one', () => {
    const before = figuresOf(doc(1, 4));
    const r = compareFigures(before, figuresOf(doc(0.8, 3.9, 1)), 15);
    expect(r.compared).toBe(5);
    expect(r.regressions.map((f) => f.path)).toEqual([
      'fanout[0].ratio',
      'mqtt_conformance.totals.switchboard.fail',
    ]);
    expect(r.figures.find((f) => f.path === 'fanout[0].ratio')).toMatchObject({
      baseline: 1,
      current: 0.8,
      change_pct: -20,
    });
    // Better figures are never regressions, however large the change.
    expect(compareFigures(before, figuresOf(doc(2, 1))).regressions).toEqual([]);
  });
});

describe('guardAgainstBaseline', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir('swb-bench-results-');
  });
  afterEach(() => tmp.remove());

  it('writes latest.json each run, compares with baseline.json once it exists', () => {
    const files = {
      latestFile: join(tmp.path, 'results', 'latest.json'),
      baselineFile: join(tmp.path, 'results', 'baseline.json'),
    };
    const first = guardAgainstBaseline(doc(1, 4), files);
    expect(first).toMatchObject({ baseline_file: null, compared: 0 });
    expect(existsSync(files.baselineFile)).toBe(false);
    expect(JSON.parse(readFileSync(files.latestFile, 'utf8')).started_at).toBe('run-1');

    guardAgainstBaseline(doc(1, 4), files, { saveBaseline: true });
    const third = guardAgainstBaseline(doc(0.5, 4), files);
    expect(third).toMatchObject({
      baseline_file: files.baselineFile,
      baseline_started_at: 'run-1',
    });
    expect(third.regressions.map((f) => f.path)).toEqual(['fanout[0].ratio']);
    expect(JSON.parse(readFileSync(files.latestFile, 'utf8')).started_at).toBe('run-0.5');
  });
});
