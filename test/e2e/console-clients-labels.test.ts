/**
 * End to end (issue 22, item 13): `npm run console` with its MQTT listener, a real socket.io
 * producer and a real MQTT.js subscriber. In Chromium, the Clients view counts the producer's
 * MQTT subscriber and shows no socket id for it; the offline producer the console's own test
 * publisher left is hidden behind "Show offline leftovers" and labelled when shown; the
 * console's management connection is named; a stock client producing steadily shows a message
 * rate above 0 in its row (and the MQTT device it reaches an out rate), and sorting by messages
 * in/s puts it first (issue 27). Screenshots at 1280 and 390 px go to `SHOTS_DIR`
 * when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { ClientEvent } from '../../shared/protocol-events';
import { jsProducerPayload, producePayload } from '../helpers/stock-clients';
import { callApi } from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { consoleFixture } from '../support/console-fixture';
import { shootBothWidths } from '../support/screenshots';

const SHOTS = process.env.SHOTS_DIR;

const text = async (page: Page, testId: string): Promise<string> =>
  (await page.getByTestId(testId).first().textContent()) ?? '';

describe('clients view labels end to end', () => {
  const fx = consoleFixture('switchboard-e2e-clients-', { mqtt: true });
  let device: MqttClient | null = null;

  beforeAll(async () => {
    device = await connectAsync(`mqtt://127.0.0.1:${fx.mqttPort}`, {
      clientId: 'dashboard-1',
      reconnectPeriod: 0,
      connectTimeout: 5_000,
    });
    await device.subscribeAsync('trucks/+/speed', { qos: 0 });
  }, 30_000);

  // Runs before the fixture's tear-down (vitest runs after-hooks as a stack).
  afterAll(async () => {
    await device?.endAsync(true);
  }, 30_000);

  it('counts MQTT subscribers, hides the console publisher leftover and names the console', async () => {
    const broker = await callApi<LocalBrokerStatus>(fx.app, 'getLocalBroker', {});
    const truck = await connectSocket(`http://127.0.0.1:${broker.port}`, fx.sockets);
    truck.emit(ClientEvent.PRODUCER, jsProducerPayload('truck-7'));
    truck.emit(
      ClientEvent.PRODUCE,
      producePayload('trucks/7/speed', { kmh: 80 }, { from: 'truck-7' }),
    );

    // The page's own test publisher leaves an offline producer `switchboard-console`.
    await fx.page.getByTestId('nav-tap').click();
    await fx.page.getByTestId('publish-event').fill('trucks/7/note');
    await fx.page.getByTestId('publish-send').click();
    await expect
      .poll(() => text(fx.page, 'publish-result'), { timeout: 10_000 })
      .toContain('trucks/7/note');

    await fx.page.getByTestId('nav-clients').click();
    const card = fx.page.getByTestId('client-producer-truck-7');
    await expect.poll(() => card.count(), { timeout: 20_000 }).toBe(1);
    await expect
      .poll(() => card.getByTestId('client-producer-subscribers').textContent(), {
        timeout: 20_000,
      })
      .toBe('0 subscribers · 1 MQTT subscriber on its topics (trucks/7/speed)');

    // The console's publisher is hidden (offline leftover), and shown labelled on request.
    await expect
      .poll(() => text(fx.page, 'clients-show-leftovers-label'), { timeout: 20_000 })
      .toMatch(/\(\d+ hidden\)/);
    expect(await fx.page.getByTestId('client-producer-switchboard-console').count()).toBe(0);
    expect(await text(fx.page, 'clients-console-note')).toContain(
      'its management connection (signed commands)',
    );
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.screenshot({ path: path.join(SHOTS, 'clients-1280.png'), fullPage: true });
    }
    await fx.page.getByTestId('clients-show-leftovers').check();
    const mine = fx.page.getByTestId('client-producer-switchboard-console');
    await expect.poll(() => mine.count()).toBe(1);
    expect(await mine.textContent()).toContain("this console's test publisher");
    expect(await mine.textContent()).toContain('offline');
    // No raw socket id is shown for a producer that gave none.
    expect(await mine.textContent()).not.toContain(' · id ');
    if (SHOTS) {
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await fx.page.screenshot({
        path: path.join(SHOTS, 'clients-leftovers-390.png'),
        fullPage: true,
      });
      await fx.page.setViewportSize({ width: 1280, height: 900 });
      await fx.page.screenshot({
        path: path.join(SHOTS, 'clients-leftovers-1280.png'),
        fullPage: true,
      });
    }
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);

  it('shows a steady producer’s messages per second in its row and sorts by it', async () => {
    const pump = await fx.connect();
    pump.emit(ClientEvent.PRODUCER, jsProducerPayload('pump-3'));
    // A stock client producing steadily, 20 messages a second, to the MQTT device's filter.
    const timer = setInterval(() => {
      pump.emit(
        ClientEvent.PRODUCE,
        producePayload('trucks/9/speed', { kmh: 60 }, { from: 'pump-3' }),
      );
    }, 50);
    try {
      await fx.page.getByTestId('nav-clients').click();
      const rate = (testId: string, side: 'in' | 'out') => async () =>
        Number(
          (await fx.page
            .getByTestId(testId)
            .getByTestId('client-rate')
            .getAttribute(`data-${side}`)) || 0,
        );
      await expect
        .poll(rate('client-producer-pump-3', 'in'), { timeout: 20_000 })
        .toBeGreaterThan(0);
      expect(
        await fx.page
          .getByTestId('client-producer-pump-3')
          .getByTestId('client-rate')
          .textContent(),
      ).toMatch(/^Messages [\d.,]+\/s in · [\d.,]+\/s out$/);
      // The MQTT device subscribed to trucks/+/speed gets them: its out rate rises too.
      await expect
        .poll(rate('client-mqtt-dashboard-1', 'out'), { timeout: 20_000 })
        .toBeGreaterThan(0);

      // Busiest first: the pump heads its realm's producers.
      await fx.page.getByTestId('clients-sort').selectOption('in');
      const first = () =>
        fx.page
          .locator('[data-testid="clients-realm-default"] li[data-testid^="client-producer-"]')
          .first()
          .getAttribute('data-testid');
      await expect.poll(first).toBe('client-producer-pump-3');
      // As registered, the pump (the newest) is not first.
      await fx.page.getByTestId('clients-sort').selectOption('listed');
      await expect.poll(first).not.toBe('client-producer-pump-3');
      await fx.page.getByTestId('clients-sort').selectOption('in');
      if (SHOTS) await shootBothWidths(fx.page, SHOTS, 'clients-rates');
    } finally {
      clearInterval(timer);
    }
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);
});
