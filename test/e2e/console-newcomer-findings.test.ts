/**
 * What a newcomer's operator trial found in the console (issue 27), in Chromium against
 * `npm run console` and its real local broker (SQLite store) with real clients:
 *   - Overview: the Connections figure says how many of the broker's connections are the
 *     console's own (its management connection), instead of passing it off as a client;
 *   - Realms: a permanent realm's lifetime reads "Permanent" (it read "1h", the suggested TTL of
 *     "Make ephemeral"); an ephemeral realm shows its TTL;
 *   - Realms: "Require key" off and on again keeps the key (it rotated it): a live session with
 *     the key stays and the same key admits a new consumer afterwards;
 *   - Queues: "Discard selected" deletes the ticked ready messages and no other, confirmed and
 *     recorded in Activity.
 * Screenshots at 1280 and 390 px of each view: test-results/newcomer-*.png.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ActivityList } from '../../shared/console-api-activity';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { consoleFixture } from '../support/console-fixture';
import { openSection } from '../support/console-nav';
import { callApi } from '../support/console-process';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const KEY = 'depot-psk-3f9a61c2';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).first().textContent();

/** Screenshots of the page as it is at 1280 and 390 px wide; no sideways scrolling at 390. */
async function shots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `newcomer-${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, `newcomer-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('console findings of a newcomer’s operator trial', () => {
  const fx = consoleFixture('switchboard-e2e-newcomer-');

  it('says which of the broker’s connections are the console’s own', async () => {
    await expect
      .poll(() => text(fx.page, 'overview-connections-detail'), { timeout: 15_000 })
      .toBe('open now · incl. 1 from this console');
    // A client of the operator's adds to the figure, not to the console's share.
    const before = Number(
      await fx.page.getByTestId('overview-connections').getAttribute('data-value'),
    );
    await fx.connect();
    await expect
      .poll(
        async () =>
          Number(await fx.page.getByTestId('overview-connections').getAttribute('data-value')),
        {
          timeout: 15_000,
        },
      )
      .toBe(before + 1);
    expect(await text(fx.page, 'overview-connections-detail')).toBe(
      'open now · incl. 1 from this console',
    );
    await shots(fx.page, 'overview');
  }, 60_000);

  it('shows a permanent realm as Permanent and keeps its key when "require key" goes off and on', async () => {
    await fx
      .manager()
      .command({ command: 'add_realm', realm: 'depot', key: KEY, require_key: true });
    await callApi(fx.app, 'createRealm', {
      connectionId: 'local',
      realm: 'kiosk',
      authRequired: true,
      ephemeral: true,
      ttl: '2m',
    });
    const consumer = { realm: 'depot', role: 'consumer', key: KEY };
    const live = await fx.connect();
    expect(await authenticate(live, consumer)).toMatchObject({ event: 'AUTH_OK' });

    await openSection(fx.page, 'realms');
    // One realm's actions are open at a time.
    await fx.page.getByTestId('realm-toggle-kiosk').click();
    expect(await text(fx.page, 'realm-lifetime-kiosk')).toBe('Ephemeral · TTL 2m');
    expect(await fx.page.getByTestId('realm-ttl-kiosk').inputValue()).toBe('2m');
    await fx.page.getByTestId('realm-toggle-depot').click();
    expect(await text(fx.page, 'realm-lifetime-depot')).toBe('Permanent');
    // No TTL in the field of a permanent realm ("1h" was read as its lifetime).
    expect(await fx.page.getByTestId('realm-ttl-depot').inputValue()).toBe('');
    expect(await fx.page.getByTestId('realm-extend-depot').isDisabled()).toBe(true);

    // Off: only the requirement changes, and the confirmation says the key is kept.
    expect(await text(fx.page, 'realm-require-key-depot')).toBe('Require key off');
    await fx.page.getByTestId('realm-require-key-depot').click();
    expect(await text(fx.page, 'realm-require-key-confirm-depot')).toContain(
      'The pre-shared key is kept',
    );
    await shots(fx.page, 'realms');
    await fx.page.getByTestId('realm-require-key-confirm-depot-yes').click();
    await expect.poll(() => text(fx.page, 'realm-key-required-state-depot')).toMatch(/^off/);
    // No new key was generated, so none is revealed.
    expect(await fx.page.getByTestId('secret-value').count()).toBe(0);
    // On again.
    await expect.poll(() => text(fx.page, 'realm-require-key-depot')).toBe('Require key on');
    await fx.page.getByTestId('realm-require-key-depot').click();
    await fx.page.getByTestId('realm-require-key-confirm-depot-yes').click();
    await expect.poll(() => text(fx.page, 'realm-key-required-state-depot')).toMatch(/^on/);
    expect(await fx.page.getByTestId('secret-value').count()).toBe(0);

    // The old key still admits a consumer, and the session that used it was never ended.
    expect(await authenticate(await fx.connect(), consumer)).toMatchObject({ event: 'AUTH_OK' });
    expect(live.connected).toBe(true);
    const settings = (await fx.manager().command({ command: 'get' })).settings as {
      realms: Record<string, Record<string, unknown>>;
    };
    expect(settings.realms.depot).toMatchObject({ key_configured: true, require_key: true });
    const activity = await callApi<ActivityList>(fx.app, 'listActivity', {
      actions: ['set_realm_require_key', 'set_realm_key'],
    });
    expect(activity.entries.map((e) => e.action)).toEqual([
      'set_realm_require_key',
      'set_realm_require_key',
    ]);
  }, 90_000);

  it('discards the ready messages ticked in Peek and no other', async () => {
    const CONSUMER = 'label-printer-dock-4';
    const PRODUCER = 'warehouse-orders';
    const consumer = await fx.connect();
    consumer.emit(ClientEvent.CONSUMER, consumerPayload(CONSUMER));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload(CONSUMER, PRODUCER, 'labels/print', { durable: true }),
    );
    await consumer.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
    consumer.close();
    const producer = await fx.connect();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload(PRODUCER));
    for (let n = 1; n <= 4; n += 1) {
      producer.emit(
        ClientEvent.PRODUCE,
        producePayload('labels/print', { label: n }, { from: PRODUCER }),
      );
    }
    await producer.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });

    await openSection(fx.page, 'queues');
    const row = fx.page.getByTestId(`queue-row-${CONSUMER}`);
    const ready = () => row.getByTestId('queue-ready').getAttribute('data-value');
    await expect.poll(ready, { timeout: 15_000 }).toBe('4');
    await row.getByRole('button').click();
    await fx.page.getByTestId('queue-peek').click();
    await expect.poll(() => fx.page.getByTestId('queue-peek-item').count()).toBe(4);
    expect(await fx.page.getByTestId('queue-discard-selected').isDisabled()).toBe(true);
    await fx.page.getByTestId('queue-peek-select').nth(0).check();
    await fx.page.getByTestId('queue-peek-select').nth(2).check();
    expect(await text(fx.page, 'queue-discard-selected')).toBe('Discard 2 selected messages');
    await fx.page.getByTestId('queue-discard-selected').click();
    expect(await text(fx.page, 'queue-discard-confirm')).toContain(
      `Deletes the 2 selected messages of ${CONSUMER} for good; the other messages stay queued.`,
    );
    await fx.page.getByTestId('queue-discard-confirm').scrollIntoViewIfNeeded();
    await shots(fx.page, 'queues');
    await fx.page.getByTestId('queue-discard-confirm-yes').click();
    await expect
      .poll(() => text(fx.page, 'queue-discard-message'))
      .toBe(`Discarded 2 selected messages of ${CONSUMER} in default.`);
    await expect.poll(ready, { timeout: 15_000 }).toBe('2');
    // The two left are the ones not ticked.
    await fx.page.getByTestId('queue-peek').click();
    await expect.poll(() => fx.page.getByTestId('queue-peek-item').count()).toBe(2);
    const left = await fx.page.getByTestId('queue-peek-list').textContent();
    expect(left).toContain('"label":2');
    expect(left).toContain('"label":4');
    expect(left).not.toContain('"label":1');
    expect(left).not.toContain('"label":3');

    const activity = await callApi<ActivityList>(fx.app, 'listActivity', {
      actions: ['purge_queue', 'discard_queued'],
    });
    expect(activity.entries).toEqual([
      expect.objectContaining({
        action: 'discard_queued',
        ok: true,
        result: 'discarded 2',
        params: expect.objectContaining({ consumer: CONSUMER, count: 2 }),
      }),
    ]);
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);
});
