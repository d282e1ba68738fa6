/**
 * Renderer bench (issue 13): the console's Live tap in Chromium while a real producer sends
 * `rate` messages/s into the tapped realm. Measures, in the page:
 *   - long tasks (PerformanceObserver 'longtask'): total ms per second and the longest task
 *     (goal: no task over 200 ms);
 *   - time for Pause to take effect: from the click to the last change of the rows (goal
 *     ≤ 500 ms), over several pause/resume cycles;
 *   - the renderer's JS heap (CDP `Runtime.getHeapUsage` after a forced GC) before and after the
 *     load, and its peak while it runs (bounded: the page keeps at most 500 messages).
 * The console host samples each tap to its `maxRatePerSec` (default 200/s), so the page never
 * sees 5,000 messages/s: the run reports both rates.
 *
 * Run alone: `BENCH_ONLY=renderer-tap npx tsx bench/run-all.ts` (Chromium at /usr/bin/chromium,
 * or CHROMIUM_PATH).
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { callApi, startConsole } from '../../test/support/console-process';
import { makeTempDir } from '../../test/support/temp-dir';

export interface RendererTapConfig {
  /** Messages per second produced into the tapped realm. */
  rate: number;
  /** Seconds of load. */
  seconds: number;
  /** Pause/resume cycles measured. */
  pauses: number;
  /** Seconds of idle baseline (tap running, no messages) before the load. */
  baselineSeconds: number;
}

export const rendererTapConfig = (quick: boolean): RendererTapConfig =>
  quick
    ? { rate: 5_000, seconds: 5, pauses: 2, baselineSeconds: 2 }
    : { rate: 5_000, seconds: 10, pauses: 4, baselineSeconds: 5 };

export const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

export async function heapBytes(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

/** Main-thread busy time so far, in ms, by kind (CDP Performance metrics, wall clock). */
export async function busyMs(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const pick = (name: string): number => (metrics.find((m) => m.name === name)?.value ?? 0) * 1_000;
  return {
    task: pick('TaskDuration'),
    script: pick('ScriptDuration'),
    layout: pick('LayoutDuration') + pick('RecalcStyleDuration'),
  };
}

async function received(page: Page): Promise<number> {
  return Number(await page.getByTestId('tap-stats').getAttribute('data-received'));
}

/** Clicks Pause in the page and returns ms until the rows last changed (0: never after the click). */
async function pauseEffectMs(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const list = document.querySelector('[data-testid="tap-list"]') as HTMLElement;
    const button = document.querySelector('[data-testid="tap-pause"]') as HTMLButtonElement;
    let last = 0;
    const t0 = performance.now();
    const observer = new MutationObserver(() => {
      last = performance.now() - t0;
    });
    observer.observe(list, { childList: true, subtree: true, characterData: true });
    button.click();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    observer.disconnect();
    return Math.round(last * 10) / 10;
  });
}

export async function runRendererTap(
  config: RendererTapConfig,
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  const dir = await makeTempDir('switchboard-bench-tap-');
  const app = await startConsole(path.join(dir.path, 'data'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
  });
  let producer: Socket | null = null;
  let pump: NodeJS.Timeout | null = null;
  try {
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    const loadStart1m = Math.round(loadavg()[0]! * 10) / 10;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: { start: number; duration: number }[] };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          w.__longTasks.push({ start: entry.startTime, duration: entry.duration });
        }
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(app.url);
    await page.getByTestId('overview-status').filter({ hasText: 'running' }).waitFor();
    await page.getByTestId('nav-tap').click();
    await page.getByTestId('tap-pattern').fill('bench/#');
    await page.getByTestId('tap-start').click();
    await page.getByTestId('tap-state').filter({ hasText: 'tapping' }).waitFor();
    const heapBefore = await heapBytes(page);
    // Baseline: the same page, tap running, no messages — long tasks here are the machine's.
    const baselineStart = await page.evaluate(() => performance.now());
    await page.waitForTimeout(config.baselineSeconds * 1_000);
    const baselineEnd = await page.evaluate(() => performance.now());

    producer = io(`http://127.0.0.1:${broker.port}`, { transports: ['websocket'], forceNew: true });
    const socket = producer;
    await new Promise<void>((resolve, reject) => {
      socket.once(ServerEvent.AUTH_OK, () => resolve());
      socket.once(ServerEvent.AUTH_FAIL, (reply) => reject(new Error(JSON.stringify(reply))));
      socket.once('connect', () =>
        socket.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role: 'both' }),
      );
    });
    log(`renderer-tap: producing ${config.rate}/s for ${config.seconds} s`);
    let sent = 0;
    const loadStart = performance.now();
    const pageLoadStart = await page.evaluate(() => performance.now());
    // Ticks of 10 ms; each sends what is due so far, so a late tick catches up.
    pump = setInterval(() => {
      const due = Math.floor(((performance.now() - loadStart) / 1_000) * config.rate);
      for (; sent < due; sent += 1) {
        socket.emit(ClientEvent.PRODUCE, {
          event: `bench/sensor/${sent % 8}`,
          from: 'bench',
          message: { seq: sent, value: Math.round(Math.random() * 1000), unit: 'mV' },
        });
      }
    }, 10);
    const receivedStart = await received(page);
    // One session for the whole run: the metrics count from `Performance.enable`.
    const perf = await page.context().newCDPSession(page);
    await perf.send('Performance.enable');
    const busyStart = await busyMs(perf);
    let peakHeap = 0;
    const third = (config.seconds * 1_000) / 3;
    for (let i = 0; i < 3; i += 1) {
      await page.waitForTimeout(third);
      const { usedSize } = await page.evaluate(() => ({
        usedSize:
          (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory
            ?.usedJSHeapSize ?? 0,
      }));
      peakHeap = Math.max(peakHeap, usedSize);
    }
    const loadSeconds = (performance.now() - loadStart) / 1_000;
    const sentInLoad = sent;
    const busyEnd = await busyMs(perf);
    const perS = (key: string): number =>
      Math.round(((busyEnd[key] ?? 0) - (busyStart[key] ?? 0)) / loadSeconds);
    const hostReceived = (await received(page)) - receivedStart;
    const stats = await page.getByTestId('tap-stats').innerText();
    log('renderer-tap: measuring pause');
    const pauses: number[] = [];
    for (let i = 0; i < config.pauses; i += 1) {
      pauses.push(await pauseEffectMs(page)); // pauses
      await page.getByTestId('tap-pause').click({ timeout: 10_000 }); // resumes
      await page.waitForTimeout(500);
    }
    clearInterval(pump);
    pump = null;
    const pageLoadEnd = await page.evaluate(() => performance.now());
    const tasks = await page.evaluate(
      () =>
        (window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks,
    );
    const baseline = tasks.filter((t) => t.start >= baselineStart && t.start <= baselineEnd);
    const inLoad = tasks.filter((t) => t.start >= pageLoadStart && t.start <= pageLoadEnd);
    const seconds = Math.max(1, Math.ceil((pageLoadEnd - pageLoadStart) / 1_000));
    const perSecond = new Array<number>(seconds).fill(0);
    for (const task of inLoad) {
      const index = Math.min(seconds - 1, Math.floor((task.start - pageLoadStart) / 1_000));
      perSecond[index] = (perSecond[index] ?? 0) + task.duration;
    }
    log('renderer-tap: stopping');
    // The host may still be draining the broker's backlog: Stop is best effort here.
    await page
      .getByTestId('tap-stop')
      .click({ timeout: 10_000 })
      .catch(() => undefined);
    await page.waitForTimeout(300);
    const heapAfter = await heapBytes(page);
    const maxTask = inLoad.reduce((max, t) => Math.max(max, t.duration), 0);
    const maxPause = Math.max(...pauses);
    return {
      produced_per_s: Math.round(sentInLoad / loadSeconds),
      target_per_s: config.rate,
      host_received_per_s: Math.round(hostReceived / loadSeconds),
      page_max_rows_per_s: 200,
      tap_stats_at_end: stats,
      load_seconds: Math.round(loadSeconds * 10) / 10,
      long_tasks: {
        count: inLoad.length,
        max_task_ms: Math.round(maxTask),
        per_second_ms: perSecond.map((ms) => Math.round(ms)),
        worst_second_ms: Math.round(Math.max(...perSecond)),
      },
      main_thread_busy_ms_per_s: {
        task: perS('task'),
        script: perS('script'),
        style_layout: perS('layout'),
      },
      baseline_idle: {
        seconds: config.baselineSeconds,
        long_task_count: baseline.length,
        long_task_ms: Math.round(baseline.reduce((sum, t) => sum + t.duration, 0)),
        max_task_ms: Math.round(baseline.reduce((max, t) => Math.max(max, t.duration), 0)),
      },
      pause_effect_ms: pauses,
      heap_before_mib: mib(heapBefore),
      heap_peak_mib: mib(peakHeap),
      heap_after_mib: mib(heapAfter),
      load_avg_1m: { start: loadStart1m, end: Math.round(loadavg()[0]! * 10) / 10 },
      goals: {
        no_task_over_200_ms: maxTask <= 200,
        pause_within_500_ms: maxPause <= 500,
      },
      note: 'load_avg_1m is the machine load (2 cores here): long tasks stretch when other processes take the CPU. pause_effect_ms: click → last change of the rows (0 = nothing changed after the click); heap_peak from performance.memory (not GC-forced)',
    };
  } finally {
    if (pump) clearInterval(pump);
    producer?.close();
    await browser.close();
    if (app.child.pid) {
      try {
        process.kill(-app.child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      await app.exited;
    }
    await dir.remove();
  }
}
