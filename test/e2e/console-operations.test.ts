/**
 * End to end: `npm run console` (local broker, auth on, SQLite), its UI in headless Chromium, and
 * real tyo-mq clients. The chart's produced rate follows a real producer's load and falls back
 * after it; a copy dead-lettered by a real consumer (ACK timeout, retries exhausted) shows in the
 * Dead letters view with its origin, is replayed from the UI and received again by that
 * consumer; the Clients view lists that consumer with its subscription, and a real MQTT.js
 * client (issue 14) in the same realm with its filter and QoS. Screenshots of each view
 * at 1280 and 390 px go to test-results/ (no horizontal overflow at 390 px).
 */
import { connectAsync, type MqttClient } from 'mqtt';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import type { DeadLetterPage } from '../../shared/console-api-operations';
import { ClientEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import { exactConsumeEvent } from '../helpers/broker-harness';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import {
  callApi,
  freePort,
  startConsole,
  type RunningConsole,
  stopConsole,
} from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');

const value = async (page: Page, testId: string): Promise<number> =>
  Number((await page.getByTestId(testId).getAttribute('data-value')) ?? NaN);

/** Screenshots `name` at 1280 px, then at 390 px checking there is no horizontal overflow. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({
    path: path.join(SHOTS, `${name}-1280.png`),
    fullPage: true,
    timeout: 60_000,
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
  await page.screenshot({
    path: path.join(SHOTS, `${name}-390.png`),
    fullPage: true,
    timeout: 60_000,
  });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe('console operations views end to end', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;
  const sockets: Socket[] = [];
  let device: MqttClient | null = null;

  const client = (url: string): Promise<Socket> => connectSocket(url, sockets);

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-operations-');
  }, 10_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await device?.endAsync(true);
    await browser?.close();
    await stopConsole(app);
    await dir.remove();
  }, 30_000);

  it('charts follow a real load; a dead letter is replayed from the UI; clients are listed', async () => {
    const mqttPort = await freePort();
    app = await startConsole(path.join(dir.path, 'data'), { mqttPort });
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    const brokerUrl = `http://127.0.0.1:${broker.port}`;

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(app.url);
    await expect
      .poll(() => page.getByTestId('overview-status').textContent(), { timeout: 15_000 })
      .toBe('running');
    await expect
      .poll(() => page.getByTestId('chart-messages').count(), { timeout: 20_000 })
      .toBe(1);

    // A real producer sends for a few seconds: the produced rate shows it, then falls back.
    const producer = await client(brokerUrl);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('load'));
    const timer = setInterval(
      () => producer.emit(ClientEvent.PRODUCE, producePayload('tick', { n: 1 }, { from: 'load' })),
      20,
    );
    try {
      await expect
        .poll(() => value(page, 'chart-produced-rate'), { timeout: 20_000 })
        .toBeGreaterThan(10);
      await shoot(page, 'ops-overview-charts');
    } finally {
      clearInterval(timer);
    }
    await expect
      .poll(() => value(page, 'chart-produced-rate'), { timeout: 20_000 })
      .toBeLessThan(1);
    // The line is drawn (an SVG path per series).
    expect(await page.getByTestId('chart-messages').locator('path.recharts-curve').count()).toBe(3);

    // A real consumer that never ACKs: its copy is dead-lettered after its one attempt.
    const consumer = await client(brokerUrl);
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('slow-worker'));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('slow-worker', 'fleet', 'job', {
        durable: true,
        manualAck: true,
        ackTimeout: '200ms',
        retry: { max_attempts: 1 },
      }),
    );
    const received: DeliveryEnvelope[] = [];
    let ackNow = false;
    consumer.on(exactConsumeEvent('fleet', 'job'), (envelope: DeliveryEnvelope) => {
      received.push(envelope);
      if (ackNow) consumer.emit(ClientEvent.ACK, { msg_id: envelope.msgId });
    });
    const fleet = await client(brokerUrl);
    fleet.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    fleet.emit(ClientEvent.PRODUCE, producePayload('job', { order: 42 }, { from: 'fleet' }));
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(1);

    await expect
      .poll(
        // A loaded machine can make one call time out: keep asking.
        () =>
          callApi<DeadLetterPage>(app!, 'listDeadLetters', { connectionId: 'local' }).then(
            (page) => page.total,
            () => -1,
          ),
        { timeout: 60_000 },
      )
      .toBe(1);
    await page.getByTestId('nav-dead-letters').click();
    await expect.poll(() => page.getByTestId('dlq-row').count(), { timeout: 15_000 }).toBe(1);
    const row = page.getByTestId('dlq-row').first();
    expect(await row.textContent()).toContain('fleet · job → slow-worker');
    expect(await row.textContent()).toContain('ack timeout');
    await page.getByTestId('dlq-search').fill('order 42');
    await expect.poll(() => page.getByTestId('dlq-row').count()).toBe(1);
    await page.getByTestId('dlq-search').fill('no such text');
    await expect.poll(() => page.getByTestId('dlq-empty').count()).toBe(1);
    await page.getByTestId('dlq-search').fill('');
    await expect.poll(() => page.getByTestId('dlq-row').count(), { timeout: 20_000 }).toBe(1);
    // The list may still be settling from the search: click until the details are open.
    await expect
      .poll(
        async () => {
          await row.locator('.ops-row__main').click();
          return page.getByTestId('dlq-detail').count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    expect(await page.getByTestId('dlq-detail-origin').textContent()).toContain('fleet');
    expect(await page.getByTestId('dlq-payload').textContent()).toContain('"order": 42');
    await shoot(page, 'ops-dead-letters');

    // Replay from the UI (with confirmation); the consumer receives it again and ACKs it.
    ackNow = true;
    await page.getByTestId('dlq-detail-replay').click();
    await page.getByTestId('dlq-confirm-yes').click();
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
    expect(received[1]!.message).toEqual({ order: 42 });
    expect(received[1]!.replay_count).toBe(1);
    await expect.poll(() => page.getByTestId('dlq-notice').textContent()).toBe('Replayed 1 of 1.');
    await expect.poll(() => page.getByTestId('dlq-empty').count()).toBe(1);
    await page.getByTestId('dlq-refresh').click();
    await expect.poll(() => page.getByTestId('dlq-empty').count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByTestId('dlq-row').count()).toBe(0);

    // The Clients view lists the consumer with its subscription, and an MQTT client of the
    // same (open default) realm with its filter and QoS.
    device = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
      clientId: 'sensor-7',
      protocolVersion: 5,
      clean: false,
      properties: { sessionExpiryInterval: 600 },
      reconnectPeriod: 0,
      connectTimeout: 5_000,
    });
    await device.subscribeAsync('sensors/+/temp', { qos: 1 });
    await page.getByTestId('nav-clients').click();
    const mqttCard = page.getByTestId('client-mqtt-sensor-7');
    await expect.poll(() => mqttCard.count(), { timeout: 20_000 }).toBe(1);
    const mqttText = await mqttCard.textContent();
    expect(await mqttCard.getByTestId('client-mqtt-protocol').textContent()).toBe('MQTT 5');
    expect(mqttText).toContain('persistent session');
    expect(mqttText).not.toContain('Disconnect');
    const filter = await mqttCard.getByTestId('client-mqtt-subscription').textContent();
    expect(filter).toContain('sensors/+/temp');
    expect(filter).toContain('QoS 1');
    const card = page.getByTestId('client-consumer-slow-worker');
    await expect.poll(() => card.count(), { timeout: 20_000 }).toBe(1);
    const subscription = await card.getByTestId('client-subscription').textContent();
    expect(subscription).toContain('fleet-job');
    expect(subscription).toContain('durable');
    expect(subscription).toContain('ACK within 200 ms');
    expect(await page.getByTestId('client-producer-fleet').textContent()).toContain('online');
    expect(await page.getByTestId('clients-disconnect-note').textContent()).toContain(
      'close_client',
    );
    await shoot(page, 'ops-clients');

    expect(pageErrors).toEqual([]);
    process.kill(-(app.child.pid as number), 'SIGINT');
    await app.exited;
  }, 400_000);
});
