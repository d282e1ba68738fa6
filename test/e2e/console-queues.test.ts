/**
 * End to end (issue 27): the Queues view against the console's real local broker. A real
 * offline durable consumer holds copies; the view lists its queue with the ready count, Peek
 * shows the copies (and leaves them), Purge — after typing the consumer's name — deletes them,
 * the row shows 0 and Activity records `purge_queue`. Move… sends the messages selected in Peek,
 * then every ready one, to a consumer-group member, which gets them at once and leaves them
 * un-ACKed; In flight lists them with attempt 1 and the ACK deadline, and Release now hands them
 * to the other member (attempt 2), which ACKs them; Activity records `move_queue` and
 * `release_in_flight`. Screenshots at 1280 and 390 px go to `SHOTS_DIR` when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityList } from '../../shared/console-api-activity';
import {
  ClientEvent,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../shared/protocol-events';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import {
  callApi,
  startConsole,
  type RunningConsole,
  stopConsole,
} from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { openConsolePage, localBrokerUrl } from '../support/console-page';

const SHOTS = process.env.SHOTS_DIR;
const CONSUMER = 'invoice-archiver-eu-west';
const PRODUCER = 'billing-service-primary';
const N = 4;

const readyOf = (page: Page): Promise<string | null> =>
  page.getByTestId(`queue-row-${CONSUMER}`).getByTestId('queue-ready').getAttribute('data-value');

describe('queues view end to end', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let page: Page;
  let brokerUrl = '';
  const sockets: Socket[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-queues-');
    app = await startConsole(path.join(dir.path, 'data'));
    brokerUrl = await localBrokerUrl(app);
    ({ browser, page } = await openConsolePage(app, pageErrors));
  }, 120_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await browser?.close();
    await stopConsole(app);
    await dir?.remove();
  }, 30_000);

  it('lists an offline durable queue, peeks it and purges it after confirmation', async () => {
    // A durable subscriber that goes away: the broker stores copies for it.
    const consumer = await connectSocket(brokerUrl, sockets);
    consumer.emit(ClientEvent.CONSUMER, consumerPayload(CONSUMER));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload(CONSUMER, PRODUCER, 'invoices/issued/eu', { durable: true }),
    );
    // A PING round trip: the subscription is registered before the socket goes.
    await consumer.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
    consumer.close();

    await page.getByTestId('nav-queues').click();
    await page.getByTestId(`queue-row-${CONSUMER}`).waitFor({ timeout: 15_000 });
    await expect.poll(() => readyOf(page), { timeout: 15_000 }).toBe('0');

    const producer = await connectSocket(brokerUrl, sockets);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload(PRODUCER));
    for (let n = 1; n <= N; n += 1) {
      producer.emit(
        ClientEvent.PRODUCE,
        producePayload('invoices/issued/eu', { invoice: n }, { from: PRODUCER }),
      );
    }
    // The table refreshes on its own.
    await expect.poll(() => readyOf(page), { timeout: 15_000 }).toBe(String(N));

    // Filtering by another consumer hides the row; clearing the filter shows it again.
    await page.getByTestId('queues-filter-consumer').fill('nobody');
    await page.getByTestId('queues-empty').waitFor();
    await page.getByTestId('queues-filter-consumer').fill('archiver');
    await page.getByTestId(`queue-row-${CONSUMER}`).waitFor();

    await page.getByTestId(`queue-row-${CONSUMER}`).getByRole('button').click();
    await page.getByTestId('queue-peek').click();
    await expect.poll(() => page.getByTestId('queue-peek-item').count()).toBe(N);
    expect(await page.getByTestId('queue-peek-list').textContent()).toContain('"invoice":1');
    // Peeking took nothing away.
    await page.getByTestId('queue-peek').click();
    await expect.poll(() => page.getByTestId('queue-peek-item').count()).toBe(N);
    expect(await readyOf(page)).toBe(String(N));

    // A peeked preview opens as Text / Hex (issue 27): no JSON tree, the preview's bytes.
    const firstItem = page.getByTestId('queue-peek-item').first();
    const preview = (await firstItem.locator('.queue-peek__payload').textContent()) ?? '';
    await firstItem.getByTestId('queue-peek-view').click();
    expect(await firstItem.getByTestId('queue-peek-payload-tab-tree').count()).toBe(0);
    await firstItem.getByTestId('queue-peek-payload-tab-hex').click();
    const hex = (await firstItem.getByTestId('queue-peek-payload-hex').textContent()) ?? '';
    expect(
      hex.startsWith(
        `00000000 ${Buffer.from(preview)
          .subarray(0, 4)
          .toString('hex')
          .replace(/(..)(?!$)/g, '$1 ')}`,
      ),
    ).toBe(true);
    expect(await firstItem.getByTestId('queue-peek-payload-size').getAttribute('data-bytes')).toBe(
      String(Buffer.byteLength(preview)),
    );

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({
        path: path.join(SHOTS, 'queues-1280.png'),
        fullPage: true,
      });
      await page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await page.screenshot({
        path: path.join(SHOTS, 'queues-390.png'),
        fullPage: true,
      });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    // Purge needs the consumer's name typed.
    expect(await page.getByTestId('queue-purge').isDisabled()).toBe(true);
    await page.getByTestId('queue-purge-confirm').fill('invoice-archiver');
    expect(await page.getByTestId('queue-purge').isDisabled()).toBe(true);
    await page.getByTestId('queue-purge-confirm').fill(CONSUMER);
    await page.getByTestId('queue-purge').click();
    await expect
      .poll(() => page.getByTestId('queue-purge-message').textContent())
      .toContain(`Purged ${N} ready messages`);
    await expect.poll(() => readyOf(page), { timeout: 15_000 }).toBe('0');
    expect(await page.getByTestId('queue-detail-ready').textContent()).toBe('0');

    const activity = await callApi<ActivityList>(app, 'listActivity', {
      actions: ['purge_queue'],
    });
    expect(activity.entries).toEqual([
      expect.objectContaining({
        action: 'purge_queue',
        target: 'default',
        params: expect.objectContaining({ consumer: CONSUMER }),
      }),
    ]);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('moves messages to a group member, shows them in flight and releases them to the other', async () => {
    const OLD = 'ledger-export-legacy';
    const EVENT = 'ledger/closed';
    const KEY = subscriptionKey(PRODUCER, EVENT);
    const M = 4;
    const subscribeAs = async (name: string, group?: string) => {
      const s = await connectSocket(brokerUrl, sockets);
      s.emit(ClientEvent.CONSUMER, consumerPayload(name));
      s.emit(
        ClientEvent.SUBSCRIBE,
        jsSubscribePayload(name, PRODUCER, EVENT, {
          durable: true,
          ack: true,
          ackTimeout: '300s',
          group,
        }),
      );
      await s.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
      return s;
    };
    // The legacy consumer's queue fills while it is away.
    (await subscribeAs(OLD)).close();
    const producer = await connectSocket(brokerUrl, sockets);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload(PRODUCER));
    for (let n = 1; n <= M; n += 1) {
      producer.emit(ClientEvent.PRODUCE, producePayload(EVENT, { ledger: n }, { from: PRODUCER }));
    }
    await producer.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
    // Two members of a group come online; the first never ACKs (stuck).
    const got: Record<string, DeliveryEnvelope[]> = { 'exporter-a': [], 'exporter-b': [] };
    for (const name of Object.keys(got)) {
      const s = await subscribeAs(name, 'exporters');
      s.on(consumeEvent(KEY), (e: DeliveryEnvelope) => got[name]!.push(e));
      if (name === 'exporter-b') {
        s.on(consumeEvent(KEY), (e: DeliveryEnvelope) =>
          s.emit(ClientEvent.ACK, { msgId: e.msgId }),
        );
      }
    }
    const rowOf = (consumer: string) => page.getByTestId(`queue-row-${consumer}`);
    const cell = (consumer: string, what: string) =>
      rowOf(consumer).getByTestId(what).getAttribute('data-value');

    await page.getByTestId('queues-filter-consumer').fill('');
    await rowOf(OLD).waitFor({ timeout: 15_000 });
    await expect.poll(() => cell(OLD, 'queue-ready'), { timeout: 15_000 }).toBe(String(M));
    await rowOf(OLD).getByRole('button').click();
    await page.getByTestId('queue-peek').click();
    await expect.poll(() => page.getByTestId('queue-peek-item').count()).toBe(M);

    // Move the two oldest, selected in Peek, to exporter-a.
    await page.getByTestId('queue-peek-select').nth(0).check();
    await page.getByTestId('queue-peek-select').nth(1).check();
    await page.getByTestId('queue-move-open').click();
    // The consumers of the same key are offered as targets, online ones first.
    const peers = page.getByTestId('queue-move-peers');
    await expect.poll(() => peers.textContent()).toContain('exporter-a (online · group exporters)');
    await peers.getByTestId('queue-move-peer').filter({ hasText: 'exporter-a' }).click();
    expect(await page.getByTestId('queue-move-target').inputValue()).toBe('exporter-a');
    await page.getByTestId('queue-move-scope-selected').check();
    await page.getByTestId('queue-move-submit').click();
    expect(await page.getByTestId('queue-move-confirm').textContent()).toContain(
      'Move 2 ready messages of ledger-export-legacy to the queue of consumer exporter-a?',
    );
    await page.getByTestId('queue-move-confirm-yes').click();
    await expect
      .poll(() => page.getByTestId('queue-move-message').textContent())
      .toContain('Moved 2 ready messages of ledger-export-legacy to exporter-a');
    await expect.poll(() => got['exporter-a']!.length).toBe(2);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'queues-move-1280.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(SHOTS, 'queues-move-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(got['exporter-a']!.map((e) => e.message)).toEqual([{ ledger: 1 }, { ledger: 2 }]);
    await expect.poll(() => cell(OLD, 'queue-ready'), { timeout: 15_000 }).toBe('2');

    // Then every ready one left.
    await page.getByTestId('queue-move-scope-all').check();
    await page.getByTestId('queue-move-submit').click();
    await page.getByTestId('queue-move-confirm-yes').click();
    await expect
      .poll(() => page.getByTestId('queue-move-message').textContent())
      .toContain('Moved 2 ready messages');
    await expect.poll(() => got['exporter-a']!.length).toBe(M);
    expect(got['exporter-a']!.map((e) => e.message)).toEqual(
      [1, 2, 3, 4].map((ledger) => ({ ledger })),
    );
    await expect.poll(() => cell(OLD, 'queue-ready'), { timeout: 15_000 }).toBe('0');
    expect(got['exporter-b']).toEqual([]);

    // exporter-a is stuck: its queue shows them in flight with attempt 1 and the ACK deadline.
    await page.getByTestId('queue-close').click();
    await expect
      .poll(() => cell('exporter-a', 'queue-in-flight'), { timeout: 15_000 })
      .toBe(String(M));
    await rowOf('exporter-a').getByRole('button').click();
    await page.getByTestId('queue-inflight-load').click();
    await expect.poll(() => page.getByTestId('queue-inflight-item').count()).toBe(M);
    expect(await page.getByTestId('queue-inflight-attempt').allTextContents()).toEqual(
      Array(M).fill('attempt 1'),
    );
    for (const wait of await page.getByTestId('queue-inflight-wait').allTextContents()) {
      expect(wait).toMatch(/^ACK due in [45]m/);
    }
    await page.getByTestId('queue-release').click();

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.getByTestId('queue-release-confirm').waitFor();
      await page.screenshot({ path: path.join(SHOTS, 'queues-actions-1280.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await page.screenshot({ path: path.join(SHOTS, 'queues-actions-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    await page.getByTestId('queue-release-confirm-yes').click();
    await expect
      .poll(() => page.getByTestId('queue-release-message').textContent())
      .toContain(`Released ${M} in-flight messages of exporter-a: ${M} redelivered`);
    await expect.poll(() => got['exporter-b']!.length).toBe(M);
    expect(got['exporter-b']!.map((e) => e.delivery_attempt)).toEqual(Array(M).fill(2));
    // exporter-b ACKed them: nothing is left in exporter-a's queue.
    await expect.poll(() => cell('exporter-a', 'queue-in-flight'), { timeout: 15_000 }).toBe('0');
    expect(await cell('exporter-a', 'queue-ready')).toBe('0');
    // The host's rates: exporter-a's queue saw its copies delivered again and ACKed.
    const rate = (what: string) => rowOf('exporter-a').getByTestId(what).textContent();
    await expect
      .poll(async () => Number(await rate('queue-rate-ack')), { timeout: 15_000 })
      .toBeGreaterThan(0);
    await page.getByTestId('queue-rate-chart').waitFor();
    // Its time axis names each instant once (trial finding: a label repeated), readings 2 s apart.
    const xLabels = () =>
      page
        .getByTestId('queue-rate-chart')
        .locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')
        .allTextContents();
    await expect.poll(async () => (await xLabels()).length, { timeout: 15_000 }).toBeGreaterThan(1);
    const shown = await xLabels();
    expect(new Set(shown).size).toBe(shown.length);
    if (SHOTS) {
      await page.getByTestId('queue-rate-chart').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'queues-rate-chart-1280.png') });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByTestId('queue-rate-chart').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'queues-rate-chart-390.png') });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    const activity = await callApi<ActivityList>(app, 'listActivity', {
      actions: ['move_queue', 'release_in_flight'],
    });
    expect(activity.entries.map((e) => [e.action, e.result])).toEqual(
      expect.arrayContaining([
        ['move_queue', 'moved 2'],
        ['release_in_flight', `released ${M}: ${M} redelivered, 0 requeued, 0 dead-lettered`],
      ]),
    );
    expect(activity.entries).toHaveLength(3);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
