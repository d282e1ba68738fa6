/**
 * The console's layout where a newcomer tripped over it (issue 22 items 8 and 20), in Chromium
 * against `npm run console`: a chart axis past four digits reads in full inside the chart
 * (1,600, not "600"); at 390 px the top bar has two rows, keyboard hints are hidden, and the
 * tap filter's placeholder is read in full (hints come back at 1280 px).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const LOCAL = { connectionId: 'local' };

describe('console layout an operator tripped over', () => {
  const fx = consoleFixture('switchboard-e2e-layout-', { page: { consoleErrors: false } });

  it('writes a chart axis past four digits in full, inside the chart', async () => {
    const { port } = await callApi<LocalBrokerStatus>(fx.app, 'getLocalBroker', {});
    const url = `http://127.0.0.1:${port}`;
    // 1,600 durable copies held for an offline subscriber: the queue-depth axis reaches 1,600.
    const consumer = await connectSocket(url, fx.sockets);
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('offline-bulk'));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('offline-bulk', 'bulk', 'item', { durable: true }),
    );
    await expect
      .poll(async () => {
        const list = await callApi<{
          realms: { name: string; consumers: { name: string; subscriptions: unknown[] }[] }[];
        }>(fx.app, 'listClients', LOCAL);
        const realm = list.realms.find((r) => r.name === 'default');
        return realm?.consumers.find((c) => c.name === 'offline-bulk')?.subscriptions.length ?? 0;
      })
      .toBe(1);
    consumer.close();
    const producer = await connectSocket(url, fx.sockets);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('bulk'));
    for (let i = 0; i < 1_600; i++) {
      producer.emit(ClientEvent.PRODUCE, producePayload('item', { i }, { from: 'bulk' }));
    }
    await openSection(fx.page, 'overview');
    await expect
      .poll(
        async () =>
          Number(await fx.page.getByTestId('chart-queue-depth').getAttribute('data-value')),
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(1_500);
    await expect
      .poll(
        () =>
          fx.page
            .getByTestId('chart-depths')
            .locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value')
            .allTextContents(),
        { timeout: 15_000 },
      )
      .toContainEqual(expect.stringMatching(/^\d,\d{3}$/));
    const clipped = await fx.page.getByTestId('chart-depths').evaluate((figure) => {
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
    await fx.page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const section of ['overview', 'local', 'requests', 'tap']) {
        await openSection(fx.page, section);
        const rows = await fx.page.evaluate(() => {
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
        expect(
          await fx.page.evaluate(() => document.documentElement.scrollWidth),
        ).toBeLessThanOrEqual(390);
      }
      // Requests (the current section before tap): keyboard hints hidden.
      await openSection(fx.page, 'requests');
      expect(
        await fx.page
          .locator('.keys-hint')
          .evaluateAll((els) => els.every((el) => getComputedStyle(el).display === 'none')),
      ).toBe(true);
      await openSection(fx.page, 'tap');
      const fits = await fx.page.getByTestId('tap-filter').evaluate((input) => {
        const el = input as HTMLInputElement;
        const style = getComputedStyle(el);
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room =
          el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return context.measureText(el.placeholder).width <= room;
      });
      expect(fits).toBe(true);
      await fx.page.screenshot({ path: path.join(SHOTS, 'trial-tap-390.png'), fullPage: true });
    } finally {
      await fx.page.setViewportSize({ width: 1280, height: 900 });
    }
    // Wide, with a keyboard: the hints are back.
    await openSection(fx.page, 'requests');
    expect(
      await fx.page
        .locator('.keys-hint')
        .evaluateAll((els) => els.every((el) => getComputedStyle(el).display !== 'none')),
    ).toBe(true);
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);
});
