/**
 * End to end (issue 27): the Topic tree against the console's real local broker, fed by real
 * stock socket.io-client producers and an MQTT.js device with a retained message. The view
 * opens on the default realm's tree, shows the top levels with their subtree counts, expands,
 * marks the retained topic, filters, and a topic's detail shows its last value, its history and
 * a chart of its numeric fields. Leaving the view stops the tree (its consumer leaves the
 * broker). Screenshots at 1280 and 390 px go to `SHOTS_DIR` when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { type Browser, type Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientList } from '../../shared/console-api-operations';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { openConsolePage, localBrokerUrl } from '../support/console-page';
import {
  callApi,
  freePort,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const SHOTS = process.env.SHOTS_DIR;

const paths = (page: Page): Promise<Array<string | null>> =>
  page
    .getByTestId('topic-row')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-path')));
const row = (page: Page, p: string) => page.locator(`[data-testid="topic-row"][data-path="${p}"]`);

describe('topic tree end to end', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let page: Page;
  let mqtt: MqttClient | null = null;
  const sockets: Socket[] = [];
  let pump: NodeJS.Timeout | undefined;
  const pageErrors: string[] = [];

  const producer = async (url: string): Promise<Socket> => {
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once(ServerEvent.AUTH_OK, () => resolve());
      socket.once(ServerEvent.AUTH_FAIL, (r) => reject(new Error(JSON.stringify(r))));
      socket.once('connect', () =>
        socket.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role: 'producer' }),
      );
    });
    return socket;
  };

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-topics-');
    const mqttPort = await freePort();
    app = await startConsole(path.join(dir.path, 'data'), { mqttPort });
    ({ browser, page } = await openConsolePage(app, pageErrors));
    mqtt = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
      reconnectPeriod: 0,
      connectTimeout: 5_000,
    });
    await mqtt.publishAsync('home/kitchen/config', '{"mode":"eco","target":21}', {
      qos: 1,
      retain: true,
    });
    const url = await localBrokerUrl(app);
    const [a, b] = await Promise.all([producer(url), producer(url)]);
    let i = 0;
    // Two producers, a steady trickle on a handful of topics (the tree sees them live).
    pump = setInterval(() => {
      i += 1;
      a!.emit(ClientEvent.PRODUCE, {
        event: 'home/kitchen/temp',
        from: 'thermo',
        message: { temp: 20 + (i % 5), env: { rh: 40 + (i % 3) }, unit: 'C' },
      });
      a!.emit(ClientEvent.PRODUCE, { event: 'home/hall/motion', from: 'pir', message: i % 2 });
      b!.emit(ClientEvent.PRODUCE, { event: 'plant/line-1/speed', from: 'plc', message: 12 });
      b!.emit(ClientEvent.PRODUCE, { event: 'plant/line-2/state', from: 'plc', message: 'run' });
    }, 50);
  }, 120_000);

  afterAll(async () => {
    clearInterval(pump);
    sockets.forEach((socket) => socket.close());
    await mqtt?.endAsync(true);
    await browser?.close();
    await stopConsole(app);
    await dir?.remove();
  }, 30_000);

  it('shows, expands, filters and opens a topic with its chart', async () => {
    await page.getByTestId('nav-topics').click();
    await page.getByTestId('topics-state').filter({ hasText: 'watching' }).waitFor();
    await expect.poll(() => paths(page), { timeout: 10_000 }).toEqual(['home', 'plant']);
    // Subtree counts grow with the traffic.
    const count = async (p: string): Promise<number> =>
      Number(await row(page, p).getAttribute('data-count'));
    await expect.poll(() => count('home')).toBeGreaterThan(4);
    await expect.poll(() => page.getByTestId('topics-stats').textContent()).toContain('5 topics');
    expect(await page.getByTestId('topics-stats').textContent()).toContain('1 retained');
    expect(await page.getByTestId('topics-retained-note').count()).toBe(0);

    await row(page, 'home').getByTestId('topic-toggle').click();
    await expect.poll(() => paths(page)).toEqual(['home', 'home/hall', 'home/kitchen', 'plant']);
    await row(page, 'home/kitchen').getByTestId('topic-toggle').click();
    await expect
      .poll(() => paths(page))
      .toEqual([
        'home',
        'home/hall',
        'home/kitchen',
        'home/kitchen/config',
        'home/kitchen/temp',
        'plant',
      ]);
    // The MQTT retained message seeds its topic (no live traffic there).
    expect(await row(page, 'home/kitchen/config').textContent()).toContain('R');
    expect(await row(page, 'home/kitchen/config').textContent()).toContain('"mode":"eco"');

    await row(page, 'home/kitchen/temp').getByTestId('topic-open').click();
    await page.getByTestId('topic-chart').waitFor();
    await expect
      .poll(() => page.getByTestId('topic-detail-title').textContent())
      .toBe('home/kitchen/temp');
    await expect.poll(() => page.getByTestId('topic-history-item').count()).toBeGreaterThan(2);
    expect(await page.getByTestId('topic-detail').textContent()).toContain('"unit"');
    // Both numeric fields are plotted, the string one is not.
    const legend = await page.getByTestId('topic-chart').locator('.ops-legend li').allInnerTexts();
    expect(legend).toEqual(['temp', 'env.rh']);

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'topics-1280.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await page.screenshot({ path: path.join(SHOTS, 'topics-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    // The filter keeps the matches and the levels above them, opened.
    await page.getByTestId('topics-filter').fill('speed');
    await expect.poll(() => paths(page)).toEqual(['plant', 'plant/line-1', 'plant/line-1/speed']);
    await page.getByTestId('topics-filter').fill('');
    await expect.poll(() => paths(page)).toContain('home/kitchen/temp');

    // An inner level nothing was published on says so.
    await row(page, 'plant').getByTestId('topic-open').click();
    await page.getByTestId('topic-detail-none').waitFor();

    // Leaving the view stops the tree: its consumer leaves the broker.
    const treeConsumers = async (): Promise<number> => {
      const list = await callApi<ClientList>(app, 'listClients', { connectionId: 'local' });
      return list.realms
        .flatMap((r) => r.consumers)
        .filter((c) => c.online && c.name.startsWith('switchboard-tap-')).length;
    };
    expect(await treeConsumers()).toBe(1);
    await page.getByTestId('nav-overview').click();
    await expect.poll(treeConsumers, { timeout: 10_000 }).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
