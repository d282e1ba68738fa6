/**
 * The console's layout where a newcomer tripped over it (issue 22 items 8 and 20), in Chromium
 * against `npm run console`: a chart axis past four digits reads in full inside the chart
 * (1,600, not "600"); at 390 px the top bar has two rows, keyboard hints are hidden, and the
 * tap filter's placeholder is read in full (hints come back at 1280 px).
 */
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { ClientEvent } from '../../shared/protocol-events';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { connectSocket } from '../support/connect-socket';
import { openSection } from '../support/console-nav';
import {
  callApi,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { openConsolePage } from '../support/console-page';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const LOCAL = { connectionId: 'local' };

describe('console layout an operator tripped over', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-layout-');
    app = await startConsole(path.join(dir.path, 'data'));
    ({ browser, page } = await openConsolePage(app, pageErrors, { consoleErrors: false }));
  }, 120_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await browser?.close();
    await stopConsole(app);
    await dir?.remove();
  }, 30_000);

  it('writes a chart axis past four digits in full, inside the chart', async () => {
    const { port } = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    const url = `http://127.0.0.1:${port}`;
    // 1,600 durable copies held for an offline subscriber: the queue-depth axis reaches 1,600.
    const consumer = await connectSocket(url, sockets);
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('offline-bulk'));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('offline-bulk', 'bulk', 'item', { durable: true }),
    );
    await expect
      .poll(async () => {
        const list = await callApi<{
          realms: { name: string; consumers: { name: string; subscriptions: unknown[] }[] }[];
        }>(app, 'listClients', LOCAL);
        const realm = list.realms.find((r) => r.name === 'default');
        return realm?.consumers.find((c) => c.name === 'offline-bulk')?.subscriptions.length ?? 0;
      })
      .toBe(1);
    consumer.close();
    const producer = await connectSocket(url, sockets);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('bulk'));
    for (let i = 0; i < 1_600; i++) {
      producer.emit(ClientEvent.PRODUCE, producePayload('item', { i }, { from: 'bulk' }));
    }
    await openSection(page, 'overview');
    await expect
      .poll(
        async () => Number(await page.getByTestId('chart-queue-depth').getAttribute('data-value')),
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(1_500);
    await expect
      .poll(
        () =>
          page
            .getByTestId('chart-depths')
            .locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value')
            .allTextContents(),
        { timeout: 15_000 },
      )
      .toContainEqual(expect.stringMatching(/^\d,\d{3}$/));
    const clipped = await page.getByTestId('chart-depths').evaluate((figure) => {
      const svg = figure.querySelector('svg.recharts-surface')!.getBoundingClientRect();
      return [
        ...figure.querySelectorAll(
          '.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value',
        ),
      ]
        .filter((tick) => tick.getBoundingClientRect().left < svg.left - 0.5)
        .map((tick) => tick.textContent);
    });
    expect(clipped).toEqual([]);
    producer.close();
  }, 90_000);

  it('fits a phone: two top-bar rows, no keyboard hints, the whole tap placeholder', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const section of ['overview', 'local', 'requests', 'tap']) {
        await openSection(page, section);
        const rows = await page.evaluate(() => {
          const tops = [...document.querySelector('.topbar')!.children]
            .map((child) => child.getBoundingClientRect())
            .filter((box) => box.width > 0)
            .map((box) => Math.round(box.top + box.height / 2));
          // Items whose centres are within 12 px share a row.
          return tops
            .sort((a, b) => a - b)
            .filter((top, i, all) => i === 0 || top - all[i - 1]! > 12).length;
        });
        expect(rows, section).toBeLessThanOrEqual(2);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          390,
        );
      }
      // Requests (the current section before tap): keyboard hints hidden.
      await openSection(page, 'requests');
      expect(
        await page
          .locator('.keys-hint')
          .evaluateAll((els) => els.every((el) => getComputedStyle(el).display === 'none')),
      ).toBe(true);
      await openSection(page, 'tap');
      const fits = await page.getByTestId('tap-filter').evaluate((input) => {
        const el = input as HTMLInputElement;
        const style = getComputedStyle(el);
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room =
          el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return context.measureText(el.placeholder).width <= room;
      });
      expect(fits).toBe(true);
      await page.screenshot({ path: path.join(SHOTS, 'trial-tap-390.png'), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    // Wide, with a keyboard: the hints are back.
    await openSection(page, 'requests');
    expect(
      await page
        .locator('.keys-hint')
        .evaluateAll((els) => els.every((el) => getComputedStyle(el).display !== 'none')),
    ).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
