/**
 * Renderer bench (`BENCH_ONLY=renderer-queues`): the console's Queues view in headless Chromium
 * with 5,000 durable queues (issue 27 goal: first rows < 1 s, sort and filter < 100 ms).
 *
 * A real console (`npm run console`: real broker, real web host) and one stock socket.io-client
 * consumer that subscribes durably to `queues` events, then leaves, so each subscription is an
 * offline queue; a producer stores 0–6 copies in a tenth of them so that sorting by ready moves
 * rows. The page then opens the view and we measure, inside the page (`performance.now()`):
 * click → first row, and a sort click or a filter change → the next frame with the new rows.
 *
 * Environment: `BENCH_QUEUES` (default 5000; quick 500), `CHROMIUM_PATH` (/usr/bin/chromium).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { localBrokerUrl } from '../../test/support/console-page';
import {
  callApi,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../../test/support/console-process';
import { MAX_QUEUE_PAGE, type QueueList } from '../../shared/console-api-queues';

export interface RendererQueuesResult {
  queues: number;
  seed_ms: number;
  first_rows_ms: number;
  /** Sort clicks (ready ▼, ready ▲, name, age), ms each, click to the next frame. */
  sort_ms: number[];
  /** Filter changes (a consumer substring, then cleared), ms each. */
  filter_ms: number[];
  rows_in_page_max: number;
  js_heap_mib: number | null;
  load_avg: number[];
}

/** Times `action` (in the page) to the frame after it, ms; a string: tsx helpers are not in the page. */
const timed = (action: string): string => `(async () => {
  const t0 = performance.now();
  ${action}
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return Math.round((performance.now() - t0) * 10) / 10;
})()`;

const click = (testId: string): string =>
  `document.querySelector('[data-testid="${testId}"]').click();`;

const filter = (value: string): string => `{
  const input = document.querySelector('[data-testid="queues-filter-key"]');
  const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  set.call(input, ${JSON.stringify(value)});
  input.dispatchEvent(new Event('input', { bubbles: true }));
}`;

/** Durable subscriptions per consumer socket. */
const PER_SOCKET = 500;

function connect(url: string, role: string): Promise<Socket> {
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    socket.once(ServerEvent.AUTH_OK, () => resolve(socket));
    socket.once(ServerEvent.AUTH_FAIL, (r: unknown) => reject(new Error(JSON.stringify(r))));
    socket.once('connect', () =>
      socket.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role }),
    );
  });
}

async function seed(app: RunningConsole, n: number): Promise<void> {
  const url = await localBrokerUrl(app);
  // 500 subscriptions per consumer socket, under the default `max_subscriptions_per_socket`
  // (1,000): a fleet of workers, as users run it.
  const consumers: Socket[] = [];
  for (let s = 0; s * PER_SOCKET < n; s += 1) {
    const consumer = await connect(url, 'consumer');
    consumers.push(consumer);
    for (let i = s * PER_SOCKET; i < Math.min(n, (s + 1) * PER_SOCKET); i += 1) {
      consumer.emit(ClientEvent.SUBSCRIBE, {
        event: `queues/${i}`,
        producer: 'bench',
        consumer: `worker-${s}`,
        durable: true,
        ack: true,
      });
    }
  }
  // Every subscription registered (the broker lists it as a queue) before the consumer leaves.
  const deadline = Date.now() + 120_000;
  while (
    (await callApi<QueueList>(app, 'listQueues', { connectionId: 'local', limit: MAX_QUEUE_PAGE }))
      .total < n
  ) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} queues after 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  for (const consumer of consumers) consumer.close();
  const producer = await connect(url, 'producer');
  for (let i = 0; i < n; i += 10) {
    for (let c = 0; c < i % 7; c += 1) {
      await producer
        .timeout(10_000)
        .emitWithAck(ClientEvent.PRODUCE, { event: `queues/${i}`, from: 'bench', message: { c } });
    }
  }
  producer.close();
}

export async function runRendererQueuesBench(
  quick: boolean,
  log: (line: string) => void,
): Promise<RendererQueuesResult> {
  const queues = Number(process.env.BENCH_QUEUES || (quick ? 500 : 5_000));
  const root = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-queues-'));
  const app = await startConsole(path.join(root, 'data'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--enable-precise-memory-info'],
  });
  try {
    const seedStart = performance.now();
    await seed(app, queues);
    const seedMs = performance.now() - seedStart;
    log(`renderer-queues seeded ${queues} queues in ${Math.round(seedMs)} ms`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(app.url);
    await page.getByTestId('overview-status').filter({ hasText: 'running' }).waitFor();
    const clicked = performance.now();
    await page.getByTestId('nav-queues').click();
    await page.locator('.queues-row').first().waitFor({ timeout: 60_000 });
    const firstRows = performance.now() - clicked;
    // Every queue listed (the intro counts them) before sorting and filtering are timed.
    await page.waitForFunction(
      `document.querySelector('[data-testid="queues-view"]')?.textContent?.includes('${queues.toLocaleString('en-GB')} durable queues')`,
      undefined,
      { timeout: 60_000 },
    );
    const sortMs: number[] = [];
    for (const column of ['ready', 'ready', 'name', 'age']) {
      sortMs.push((await page.evaluate(timed(click(`queues-sort-${column}`)))) as number);
    }
    const filterMs = [
      (await page.evaluate(timed(filter('queues/12')))) as number,
      (await page.evaluate(timed(filter('')))) as number,
    ];
    const rows = (await page.evaluate(`document.querySelectorAll('.queues-row').length`)) as number;
    const heap = (await page.evaluate(
      `performance.memory ? performance.memory.usedJSHeapSize : null`,
    )) as number | null;
    const result: RendererQueuesResult = {
      queues,
      seed_ms: Math.round(seedMs),
      first_rows_ms: Math.round(firstRows),
      sort_ms: sortMs,
      filter_ms: filterMs,
      rows_in_page_max: rows,
      js_heap_mib: heap === null ? null : Math.round((heap / 1024 / 1024) * 10) / 10,
      load_avg: loadavg().map((l) => Math.round(l * 100) / 100),
    };
    log(`renderer-queues ${JSON.stringify(result)}`);
    return result;
  } finally {
    await browser.close();
    await stopConsole(app);
    rmSync(root, { recursive: true, force: true });
  }
}
