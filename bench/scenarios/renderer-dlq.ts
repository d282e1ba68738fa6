/**
 * Renderer bench (`BENCH_ONLY=renderer-dlq`): the console's Dead letters view in headless
 * Chromium with 10,000 entries (default) in the local broker's DLQ.
 *
 * The DLQ is seeded straight into the SQLite store of a fresh data directory before the console
 * starts (`npm run console`, real broker, real web host); then the page opens the view and we
 * measure: time from the click to the first rows, time until every page is loaded, long tasks
 * (PerformanceObserver `longtask`, > 50 ms) while the list scrolls from top to bottom, the time a
 * search takes to show its match, and the JS heap after loading.
 *
 * Environment: `BENCH_DLQ_ENTRIES` (default 10000; quick 2000), `CHROMIUM_PATH` (default
 * /usr/bin/chromium). Numbers depend on the machine's load: `load_avg` is reported with them.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { SqliteStore } from '../../broker/storage/sqlite-store';
import { DEFAULT_SQLITE_FILENAME } from '../../broker/storage/create-store';
import { startConsole } from '../../test/support/console-process';

export interface RendererDlqResult {
  entries: number;
  seed_ms: number;
  first_rows_ms: number;
  all_loaded_ms: number;
  search_ms: number;
  scroll: {
    duration_ms: number;
    long_tasks: number;
    long_task_total_ms: number;
    long_task_max_ms: number;
    long_task_ms_per_s: number;
    rows_rendered_max: number;
  };
  js_heap_mib: number | null;
  load_avg: number[];
}

/** Scrolls the list top to bottom, one 600 px step per frame, timing long tasks meanwhile. */
const SCROLL_SCRIPT = `(async () => {
  window.__long = [];
  const list = document.querySelector('[data-testid="dlq-list"]');
  let maxRows = 0;
  const started = performance.now();
  await new Promise((resolve) => {
    const step = () => {
      list.scrollTop += 600;
      maxRows = Math.max(maxRows, list.querySelectorAll('[data-testid="dlq-row"]').length);
      if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1) resolve();
      else requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const duration = performance.now() - started;
  const tasks = window.__long;
  const total = tasks.reduce((a, b) => a + b, 0);
  return {
    duration_ms: Math.round(duration),
    long_tasks: tasks.length,
    long_task_total_ms: Math.round(total),
    long_task_max_ms: Math.round(Math.max(0, ...tasks)),
    long_task_ms_per_s: Math.round((total / duration) * 1000),
    rows_rendered_max: maxRows,
  };
})()`;

/** Writes `n` dead letters (realm `default`, consumer `worker`) into a fresh SQLite store. */
async function seed(dataDir: string, n: number): Promise<void> {
  const store = new SqliteStore({ filename: path.join(dataDir, DEFAULT_SQLITE_FILENAME) });
  try {
    const ids = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        store.enqueue('default', 'orders-created', {
          consumer: 'worker',
          producer: 'orders',
          payload: {
            event: 'created',
            from: 'orders',
            message: {
              order: i,
              customer: `c-${i % 97}`,
              items: [{ sku: `sku-${i % 13}`, qty: 1 }],
            },
          },
          ttl: null,
        }),
      ),
    );
    await Promise.all(
      ids.map((id, i) => store.deadLetter(id, `ack timeout after ${1 + (i % 3)} attempt(s)`)),
    );
  } finally {
    await store.close();
  }
}

export async function runRendererDlqBench(
  quick: boolean,
  log: (line: string) => void,
): Promise<RendererDlqResult> {
  const entries = Number(process.env.BENCH_DLQ_ENTRIES || (quick ? 2_000 : 10_000));
  const root = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-dlq-'));
  const dataDir = path.join(root, 'data');
  const seedStart = performance.now();
  mkdirSync(dataDir, { recursive: true });
  await seed(dataDir, entries);
  const seedMs = performance.now() - seedStart;
  log(`seeded ${entries} dead letters in ${Math.round(seedMs)} ms`);
  const app = await startConsole(dataDir);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--enable-precise-memory-info'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(app.url);
    await page
      .getByTestId('overview-status')
      .filter({ hasText: 'running' })
      .waitFor({ timeout: 60_000 });
    // Long tasks are recorded from here on, in the page.
    await page.evaluate(`(() => {
      window.__long = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__long.push(entry.duration);
      }).observe({ type: 'longtask' });
    })()`);
    const clicked = performance.now();
    await page.getByTestId('nav-dead-letters').click();
    await page.getByTestId('dlq-row').first().waitFor({ timeout: 60_000 });
    const firstRows = performance.now() - clicked;
    await page.getByTestId('dlq-loading').waitFor({ state: 'detached', timeout: 120_000 });
    const allLoaded = performance.now() - clicked;
    log(`first rows ${Math.round(firstRows)} ms, all loaded ${Math.round(allLoaded)} ms`);

    // Scroll top to bottom in steps, one step per animation frame.
    // A string, not a function: tsx's name-keeping helper (`__name`) does not exist in the page.
    const scroll = (await page.evaluate(SCROLL_SCRIPT)) as RendererDlqResult['scroll'];
    log(`scroll ${JSON.stringify(scroll)}`);

    const searchStart = performance.now();
    await page.getByTestId('dlq-search').fill(`"order":${entries - 1},`);
    await page.waitForFunction(
      `document.querySelectorAll('[data-testid="dlq-row"]').length === 1`,
      undefined,
      { timeout: 30_000 },
    );
    const searchMs = performance.now() - searchStart;
    const heap = (await page.evaluate(
      `performance.memory ? performance.memory.usedJSHeapSize : null`,
    )) as number | null;
    return {
      entries,
      seed_ms: Math.round(seedMs),
      first_rows_ms: Math.round(firstRows),
      all_loaded_ms: Math.round(allLoaded),
      search_ms: Math.round(searchMs),
      scroll,
      js_heap_mib: heap === null ? null : Math.round((heap / 1024 / 1024) * 10) / 10,
      load_avg: loadavg().map((l) => Math.round(l * 100) / 100),
    };
  } finally {
    await browser.close();
    if (app.child.pid) {
      try {
        process.kill(-app.child.pid, 'SIGINT');
      } catch {
        // already gone
      }
      await app.exited;
    }
    rmSync(root, { recursive: true, force: true });
  }
}
