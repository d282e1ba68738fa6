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
import { type Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientList } from '../../shared/console-api-operations';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;

const paths = (page: Page): Promise<Array<string | null>> =>
  page
    .getByTestId('topic-row')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-path')));
const row = (page: Page, p: string) => page.locator(`[data-testid="topic-row"][data-path="${p}"]`);

describe('topic tree end to end', () => {
  const fx = consoleFixture('switchboard-e2e-topics-', { mqtt: true });
  let mqtt: MqttClient | null = null;
  let pump: NodeJS.Timeout | undefined;

  const producer = async (url: string): Promise<Socket> => {
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
    fx.sockets.push(socket);
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
    mqtt = await connectAsync(`mqtt://127.0.0.1:${fx.mqttPort}`, {
      reconnectPeriod: 0,
      connectTimeout: 5_000,
    });
    await mqtt.publishAsync('home/kitchen/config', '{"mode":"eco","target":21}', {
      qos: 1,
      retain: true,
    });
    const [a, b] = await Promise.all([producer(fx.brokerUrl), producer(fx.brokerUrl)]);
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
  }, 60_000);

  // Runs before the fixture's tear-down (vitest runs after-hooks as a stack).
  afterAll(async () => {
    clearInterval(pump);
    await mqtt?.endAsync(true);
  }, 30_000);

  it('shows, expands, filters and opens a topic with its chart', async () => {
    await fx.page.getByTestId('nav-topics').click();
    await fx.page.getByTestId('topics-state').filter({ hasText: 'watching' }).waitFor();
    await expect.poll(() => paths(fx.page), { timeout: 10_000 }).toEqual(['home', 'plant']);
    // Subtree counts grow with the traffic.
    const count = async (p: string): Promise<number> =>
      Number(await row(fx.page, p).getAttribute('data-count'));
    await expect.poll(() => count('home')).toBeGreaterThan(4);
    await expect
      .poll(() => fx.page.getByTestId('topics-stats').textContent())
      .toContain('5 topics');
    expect(await fx.page.getByTestId('topics-stats').textContent()).toContain('1 retained');
    expect(await fx.page.getByTestId('topics-retained-note').count()).toBe(0);

    await row(fx.page, 'home').getByTestId('topic-toggle').click();
    await expect.poll(() => paths(fx.page)).toEqual(['home', 'home/hall', 'home/kitchen', 'plant']);
    await row(fx.page, 'home/kitchen').getByTestId('topic-toggle').click();
    await expect
      .poll(() => paths(fx.page))
      .toEqual([
        'home',
        'home/hall',
        'home/kitchen',
        'home/kitchen/config',
        'home/kitchen/temp',
        'plant',
      ]);
    // The MQTT retained message seeds its topic (no live traffic there).
    expect(await row(fx.page, 'home/kitchen/config').textContent()).toContain('R');
    expect(await row(fx.page, 'home/kitchen/config').textContent()).toContain('"mode":"eco"');

    await row(fx.page, 'home/kitchen/temp').getByTestId('topic-open').click();
    await fx.page.getByTestId('topic-chart').waitFor();
    await expect
      .poll(() => fx.page.getByTestId('topic-detail-title').textContent())
      .toBe('home/kitchen/temp');
    await expect.poll(() => fx.page.getByTestId('topic-history-item').count()).toBeGreaterThan(2);
    expect(await fx.page.getByTestId('topic-detail').textContent()).toContain('"unit"');
    // Both numeric fields are plotted, the string one is not.
    const legend = await fx.page
      .getByTestId('topic-chart')
      .locator('.ops-legend li')
      .allInnerTexts();
    expect(legend).toEqual(['temp', 'env.rh']);

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.screenshot({ path: path.join(SHOTS, 'topics-1280.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await fx.page.screenshot({ path: path.join(SHOTS, 'topics-390.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 1280, height: 900 });
    }

    // The filter keeps the matches and the levels above them, opened.
    await fx.page.getByTestId('topics-filter').fill('speed');
    await expect
      .poll(() => paths(fx.page))
      .toEqual(['plant', 'plant/line-1', 'plant/line-1/speed']);
    await fx.page.getByTestId('topics-filter').fill('');
    await expect.poll(() => paths(fx.page)).toContain('home/kitchen/temp');

    // An inner level nothing was published on says so.
    await row(fx.page, 'plant').getByTestId('topic-open').click();
    await fx.page.getByTestId('topic-detail-none').waitFor();

    // Leaving the view stops the tree: its consumer leaves the broker.
    const treeConsumers = async (): Promise<number> => {
      const list = await callApi<ClientList>(fx.app, 'listClients', { connectionId: 'local' });
      return list.realms
        .flatMap((r) => r.consumers)
        .filter((c) => c.online && c.name.startsWith('switchboard-tap-')).length;
    };
    expect(await treeConsumers()).toBe(1);
    await fx.page.getByTestId('nav-overview').click();
    await expect.poll(treeConsumers, { timeout: 10_000 }).toBe(0);
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);
});
