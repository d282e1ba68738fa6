/**
 * End to end (issue 22, item 15): with **Follow new entries** on, the Dead letters list fills
 * while a real consumer's copies are dead-lettered, without Refresh, and keeps the newest row in
 * view; at 390 px each row still shows the consumer the copy was meant for, in full.
 * Screenshots at 1280 and 390 px go to `SHOTS_DIR` when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import { exactConsumeEvent } from '../helpers/broker-harness';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { startConsole, type RunningConsole, stopConsole } from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { openConsolePage, localBrokerUrl } from '../support/console-page';

const SHOTS = process.env.SHOTS_DIR;
const CONSUMER = 'invoice-archiver-eu-west';

const rows = (page: Page): Promise<number> => page.getByTestId('dlq-row').count();

describe('dead letters follow mode end to end', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let page: Page;
  let brokerUrl = '';
  const sockets: Socket[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-dlq-follow-');
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

  it('fills the list while the DLQ fills and shows the consumer at 390 px', async () => {
    // A consumer that never ACKs: each copy is dead-lettered after one 200 ms attempt.
    const consumer = await connectSocket(brokerUrl, sockets);
    consumer.emit(ClientEvent.CONSUMER, consumerPayload(CONSUMER));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload(CONSUMER, 'billing-service-primary', 'invoices/issued/eu', {
        durable: true,
        manualAck: true,
        ackTimeout: '200ms',
        retry: { max_attempts: 1 },
      }),
    );
    let delivered = 0;
    consumer.on(exactConsumeEvent('billing-service-primary', 'invoices/issued/eu'), () => {
      delivered += 1;
    });
    const producer = await connectSocket(brokerUrl, sockets);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('billing-service-primary'));
    const send = (n: number): void => {
      producer.emit(
        ClientEvent.PRODUCE,
        producePayload('invoices/issued/eu', { invoice: n }, { from: 'billing-service-primary' }),
      );
    };

    await page.getByTestId('nav-dead-letters').click();
    await expect.poll(() => page.getByTestId('dlq-empty').count(), { timeout: 15_000 }).toBe(1);
    await page.getByTestId('dlq-follow').check();

    // Each copy reaches the consumer, is not ACKed, and lands in the DLQ: the list follows.
    for (let n = 1; n <= 3; n += 1) {
      send(n);
      await expect.poll(() => delivered, { timeout: 20_000 }).toBe(n);
      await expect.poll(() => rows(page), { timeout: 20_000 }).toBe(n);
    }
    expect(await page.getByTestId('dlq-count').textContent()).toContain('3 loaded');
    // No "out of date" notice while following.
    expect(await page.getByTestId('dlq-stale').count()).toBe(0);

    // 390 px: the consumer is shown whole in every row (not cut off by the producer and event).
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'dead-letters-390.png'), fullPage: true });
    }
    const boxes = await page.getByTestId('dlq-row-consumer').evaluateAll((nodes) =>
      nodes.map((node) => {
        const el = node as HTMLElement;
        const row = el.closest('[data-testid="dlq-row"]')!.getBoundingClientRect();
        const box = el.getBoundingClientRect();
        return {
          text: el.textContent,
          whole: el.scrollWidth <= el.clientWidth,
          inside: box.left >= row.left && box.right <= row.right && box.width > 0,
        };
      }),
    );
    expect(boxes).toHaveLength(3);
    for (const box of boxes) {
      expect(box).toEqual({ text: `→ ${CONSUMER}`, whole: true, inside: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    if (SHOTS) {
      await page.screenshot({ path: path.join(SHOTS, 'dead-letters-1280.png'), fullPage: true });
    }

    // Off: new entries wait for Refresh again (and the out-of-date notice says so).
    await page.getByTestId('dlq-follow').uncheck();
    send(4);
    await expect.poll(() => delivered, { timeout: 20_000 }).toBe(4);
    await expect.poll(() => page.getByTestId('dlq-stale').count(), { timeout: 20_000 }).toBe(1);
    expect(await rows(page)).toBe(3);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
