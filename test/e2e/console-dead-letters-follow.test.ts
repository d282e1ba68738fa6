/**
 * End to end (issue 22, item 15): with **Follow new entries** on, the Dead letters list fills
 * while a real consumer's copies are dead-lettered, without Refresh, and keeps the newest row in
 * view; at 390 px each row still shows the consumer the copy was meant for, in full.
 * Screenshots at 1280 and 390 px go to `SHOTS_DIR` when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import { exactConsumeEvent } from '../helpers/broker-harness';
import { jsProducerPayload, producePayload } from '../helpers/stock-clients';
import { subscribeWithoutAck } from '../helpers/dead-lettering-consumer';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;
const CONSUMER = 'invoice-archiver-eu-west';

const rows = (page: Page): Promise<number> => page.getByTestId('dlq-row').count();

describe('dead letters follow mode end to end', () => {
  const fx = consoleFixture('switchboard-e2e-dlq-follow-');

  it('fills the list while the DLQ fills and shows the consumer at 390 px', async () => {
    // A consumer that never ACKs: each copy is dead-lettered after one 200 ms attempt.
    const consumer = await fx.connect();
    subscribeWithoutAck(consumer, CONSUMER, 'billing-service-primary', 'invoices/issued/eu');
    let delivered = 0;
    consumer.on(exactConsumeEvent('billing-service-primary', 'invoices/issued/eu'), () => {
      delivered += 1;
    });
    const producer = await fx.connect();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('billing-service-primary'));
    const send = (n: number): void => {
      producer.emit(
        ClientEvent.PRODUCE,
        producePayload('invoices/issued/eu', { invoice: n }, { from: 'billing-service-primary' }),
      );
    };

    await fx.page.getByTestId('nav-dead-letters').click();
    await expect.poll(() => fx.page.getByTestId('dlq-empty').count(), { timeout: 15_000 }).toBe(1);
    await fx.page.getByTestId('dlq-follow').check();

    // Each copy reaches the consumer, is not ACKed, and lands in the DLQ: the list follows.
    for (let n = 1; n <= 3; n += 1) {
      send(n);
      await expect.poll(() => delivered, { timeout: 20_000 }).toBe(n);
      await expect.poll(() => rows(fx.page), { timeout: 20_000 }).toBe(n);
    }
    expect(await fx.page.getByTestId('dlq-count').textContent()).toContain('3 loaded');
    // No "out of date" notice while following.
    expect(await fx.page.getByTestId('dlq-stale').count()).toBe(0);

    // 390 px: the consumer is shown whole in every row (not cut off by the producer and event).
    await fx.page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.screenshot({ path: path.join(SHOTS, 'dead-letters-390.png'), fullPage: true });
    }
    const boxes = await fx.page.getByTestId('dlq-row-consumer').evaluateAll((nodes) =>
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
    await fx.page.setViewportSize({ width: 1280, height: 900 });
    if (SHOTS) {
      await fx.page.screenshot({ path: path.join(SHOTS, 'dead-letters-1280.png'), fullPage: true });
    }

    // Off: new entries wait for Refresh again (and the out-of-date notice says so).
    await fx.page.getByTestId('dlq-follow').uncheck();
    send(4);
    await expect.poll(() => delivered, { timeout: 20_000 }).toBe(4);
    await expect.poll(() => fx.page.getByTestId('dlq-stale').count(), { timeout: 20_000 }).toBe(1);
    expect(await rows(fx.page)).toBe(3);
    expect(fx.pageErrors).toEqual([]);
  }, 120_000);
});
