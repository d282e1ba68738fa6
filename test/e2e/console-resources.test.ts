/**
 * End to end (issue 27, "Broker resources and alarms"): the Resources view against the
 * console's real local broker (its `alarms.queue_oldest_age_ms` set to 200 ms through the
 * broker's environment). A healthy broker shows no alarms with its memory, event loop, files,
 * store and disk; a stock client's offline durable queue then raises `queue_stale`, which the
 * view lists and the top bar's alarm chip counts on every view; the chip leads back to
 * Resources. Screenshots at 1280 and 390 px go to `SHOTS_DIR` when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Locator, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;
const CONSUMER = 'ledger-sync-worker';
const PRODUCER = 'payments-api';
/** Past the Resources view's refresh (5 s) and the top bar's alarm poll (10 s), ms. */
const POLL_JUMP_MS = 10_000;

const value = (page: Page, testId: string) => page.getByTestId(testId).getAttribute('data-value');

describe('resources view end to end', () => {
  const fx = consoleFixture('switchboard-e2e-resources-', {
    console: { env: { TYO_MQ_ALARMS__QUEUE_OLDEST_AGE_MS: '200' } },
    // The view reads the broker every 5 s and the top bar every 10 s: the test jumps the
    // page's clock to its next reading instead of waiting for it (issue 26).
    page: { clock: true },
  });

  /** Jumps the page's clock past both polls until `locator` shows (the broker's own time is
   * real: the queue grows stale on its own). */
  async function nextReadingShows(locator: Locator): Promise<void> {
    await expect
      .poll(
        async () => {
          if ((await locator.count()) > 0) return true;
          await fx.page.clock.fastForward(POLL_JUMP_MS);
          return false;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
  }

  it('shows a healthy broker, then the stale queue alarm in the view and the top bar', async () => {
    await fx.page.getByTestId('nav-resources').click();
    await fx.page.getByTestId('resources-no-alarms').waitFor({ timeout: 15_000 });
    expect(Number(await value(fx.page, 'resources-rss'))).toBeGreaterThan(10 * 1024 * 1024);
    expect(Number(await value(fx.page, 'resources-fds'))).toBeGreaterThan(3);
    expect(Number(await value(fx.page, 'resources-disk'))).toBeGreaterThan(0);
    // The local broker's SQLite store: its files with their sizes.
    const files = await fx.page.getByTestId('resources-files').textContent();
    expect(files).toContain('messages');
    expect(files).toContain('.sqlite');
    expect(await fx.page.getByTestId('alarm-chip').count()).toBe(0);

    // A stock client's durable queue, its consumer offline, two copies stored.
    const consumer = await fx.connect();
    consumer.emit(ClientEvent.CONSUMER, consumerPayload(CONSUMER));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload(CONSUMER, PRODUCER, 'ledger/entries', { durable: true }),
    );
    await consumer.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
    consumer.close();
    const producer = await fx.connect();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload(PRODUCER));
    for (const n of [1, 2]) {
      producer.emit(
        ClientEvent.PRODUCE,
        producePayload('ledger/entries', { n }, { from: PRODUCER }),
      );
    }

    const alarm = fx.page.locator('[data-testid="resources-alarm"][data-alarm="queue_stale"]');
    await nextReadingShows(alarm);
    expect(await alarm.textContent()).toMatch(/oldest ready message is \d+ s old/);
    expect(Number(await value(fx.page, 'resources-oldest'))).toBeGreaterThan(200);
    // The chip is in the top bar of every view.
    await fx.page.getByTestId('nav-overview').click();
    const chip = fx.page.getByTestId('alarm-chip');
    await nextReadingShows(chip);
    expect(await chip.getAttribute('data-count')).toBe('1');
    await chip.click();
    await fx.page.getByTestId('resources-view').waitFor();
    await alarm.waitFor();

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.screenshot({ path: path.join(SHOTS, 'resources-1280.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await fx.page.screenshot({ path: path.join(SHOTS, 'resources-390.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);
});
