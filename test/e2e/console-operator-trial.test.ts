/**
 * What a newcomer tripped over in the console (issue 22 items 6, 8, 10, 11, 19, 20, 22), in
 * Chromium against `npm run console`:
 *   - Overview: Restart and Stop ask first (every client disconnected, the demo stopped); a
 *     stopped broker reads "Stopped" with Start, not as an outage with Restart;
 *   - Realms: the lifetime field shows the realm's TTL; "require key" is one confirmed action;
 *   - Demo: with a remote connection selected, no error, the local demo's real state;
 *   - Activity: actions in words, connections by name, filters by connection, command, outcome;
 *   - a page script calling a dangerous ConsoleApi method directly is refused, while the same
 *     action through the UI's confirmation works.
 * The layout items (chart axis, 390 px) are in console-layout-trial.test.ts. Screenshots go to
 * test-results/trial-*.png.
 */
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callApi,
  callConfirmed,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../support/console-process';
import type { Socket } from 'socket.io-client';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { connectSocket } from '../support/connect-socket';
import { openSection } from '../support/console-nav';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { openConsolePage } from '../support/console-page';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const LOCAL = { connectionId: 'local' };

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).first().textContent();

/** A ConsoleApi call made by a script in the page, with the page's own console token. */
function pageCall(page: Page, method: string, input: unknown) {
  return page.evaluate(
    async ([name, body]) => {
      const token = sessionStorage.getItem('switchboard.console-token');
      const response = await fetch(`/console-api/call/${name as string}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as { ok: boolean; error?: { code: string } };
    },
    [method, input] as const,
  );
}

describe('console details an operator tripped over', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-trial-');
    app = await startConsole(path.join(dir.path, 'data'));
    ({ browser, page } = await openConsolePage(app, pageErrors, { consoleErrors: false }));
  }, 120_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await browser?.close();
    await stopConsole(app);
    await dir?.remove();
  }, 30_000);

  it('confirms Stop and Restart, and shows a stopped broker as stopped with Start', async () => {
    await page.getByTestId('overview-broker-restart').click();
    const restartText = (await text(page, 'overview-broker-confirm')) ?? '';
    expect(restartText).toContain('disconnects every client');
    expect(restartText).toContain('demo');
    await page.getByTestId('overview-broker-confirm-no').click();
    expect(await page.getByTestId('overview-broker-confirm').count()).toBe(0);
    expect(await text(page, 'overview-status')).toBe('running');

    await openSection(page, 'local');
    expect(await text(page, 'nav-local')).toBe('Broker process');
    expect(await page.locator('.page__title').textContent()).toBe('Broker process');
    await page.getByTestId('local-stop').click();
    expect(await text(page, 'local-confirm')).toContain('stops the demo');
    await page.getByTestId('local-confirm-yes').click();
    await expect.poll(() => text(page, 'local-state'), { timeout: 20_000 }).toBe('stopped');

    await openSection(page, 'overview');
    await page.getByTestId('overview-stopped').waitFor();
    expect(await text(page, 'overview-status')).toBe('stopped');
    expect(await page.getByTestId('overview-broker-restart').count()).toBe(0);
    expect(await page.getByTestId('overview-error').count()).toBe(0);
    expect(await page.getByTestId('chart-unreachable').count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'trial-overview-stopped.png'), fullPage: true });
    // Start asks nothing.
    await page.getByTestId('overview-broker-start').click();
    await expect.poll(() => text(page, 'overview-status'), { timeout: 30_000 }).toBe('running');
    expect(await page.getByTestId('overview-stopped').count()).toBe(0);
    // One "since broker start" produced total on the page, not two.
    const produced = await page
      .getByTestId('overview-view')
      .evaluate(
        (view) =>
          [...view.querySelectorAll('.stat-card')].filter(
            (card) =>
              /produced/i.test(card.textContent ?? '') &&
              /since broker start/.test(card.textContent ?? ''),
          ).length,
      );
    expect(produced).toBe(1);
  }, 90_000);

  it('shows the realm’s TTL and changes "require key" in one confirmed step', async () => {
    await callApi(app, 'createRealm', {
      ...LOCAL,
      realm: 'kiosk',
      authRequired: true,
      ephemeral: true,
      ttl: '2m',
    });
    await openSection(page, 'realms');
    await page.getByTestId('realm-toggle-kiosk').click();
    expect(await page.getByTestId('realm-ttl-kiosk').inputValue()).toBe('2m');
    expect(await text(page, 'realm-key-required-state-kiosk')).toMatch(/^off/);
    await page.getByTestId('realm-require-key-kiosk').click();
    expect(await text(page, 'realm-require-key-confirm-kiosk')).toContain(
      'must then present the key',
    );
    await page.getByTestId('realm-require-key-confirm-kiosk-yes').click();
    await page.getByTestId('secret-value').waitFor();
    await page.getByTestId('secret-done').click();
    await expect.poll(() => text(page, 'realm-key-required-state-kiosk')).toMatch(/^on/);
    // Now a key is set: turning it off rotates it, and says so before.
    expect(await text(page, 'realm-require-key-kiosk')).toBe('Require key off (rotates the key)');
    await page.getByTestId('realm-require-key-kiosk').click();
    expect(await text(page, 'realm-require-key-confirm-kiosk')).toContain('old key stops working');
    await page.getByTestId('realm-require-key-confirm-kiosk-no').click();
  }, 60_000);

  it('refuses a dangerous call from a page script; the UI’s confirmation still works', async () => {
    for (const [method, input] of [
      ['removeRealm', { ...LOCAL, realm: 'kiosk', confirmName: 'kiosk' }],
      ['decideRequest', { ...LOCAL, requestId: 'any', approved: true }],
      ['revokeToken', { ...LOCAL, tokenHash: 'a'.repeat(64) }],
      ['discardDeadLetters', { ...LOCAL, ids: ['x'] }],
    ] as const) {
      expect(await pageCall(page, method, input), method).toMatchObject({
        ok: false,
        error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' },
      });
    }
    const realms = await callApi<{ realms: { name: string }[] }>(app, 'listRealms', LOCAL);
    expect(realms.realms.map((r) => r.name)).toContain('kiosk');
    // A caller that asks for the confirmation first gets past the gate (to the broker's answer).
    await expect(
      callConfirmed(app, 'revokeToken', { ...LOCAL, tokenHash: 'a'.repeat(64) }),
    ).rejects.toThrow(/SWB_ERR_NOT_FOUND/);

    // The same removal through the UI (type the name, click): it goes through.
    await page.getByTestId('realm-remove-confirm-kiosk').fill('kiosk');
    await page.getByTestId('realm-remove-kiosk').click();
    await expect
      .poll(() => page.getByTestId('realms-row-kiosk').count(), { timeout: 10_000 })
      .toBe(0);
  }, 60_000);

  it('shows the local demo whatever connection is selected', async () => {
    await callApi(app, 'addConnection', {
      name: 'Far away',
      url: 'http://127.0.0.1:9',
      credential: { kind: 'none' },
    });
    await expect
      .poll(() => page.getByTestId('connection-switcher').locator('option').count())
      .toBe(2);
    await page.getByTestId('connection-switcher').selectOption({ label: 'Far away' });
    await openSection(page, 'demo');
    await page.getByTestId('demo-local-only').waitFor();
    expect(await page.getByTestId('demo-error').count()).toBe(0);
    await page.getByTestId('demo-toggle').click();
    await expect.poll(() => text(page, 'demo-state'), { timeout: 20_000 }).toBe('running');
    expect((await callApi<{ running: boolean }>(app, 'getDemo', LOCAL)).running).toBe(true);
    await page.getByTestId('demo-toggle').click();
    await expect.poll(() => text(page, 'demo-state'), { timeout: 20_000 }).toBe('stopped');
    await page.getByTestId('connection-switcher').selectOption({ label: 'Local broker' });
  }, 60_000);

  it('lists activity in words, by connection name, filtered by command and outcome', async () => {
    // A refusal to filter for.
    await expect(
      callApi(app, 'setRealmLifetime', { ...LOCAL, realm: 'never-there', ephemeral: false }),
    ).rejects.toThrow();
    await openSection(page, 'activity');
    await expect.poll(() => page.getByTestId('activity-entry').count()).toBeGreaterThan(3);
    const labels = await page.getByTestId('activity-action').allTextContents();
    expect(labels).toEqual(
      expect.arrayContaining(['Create realm', 'Remove realm', 'Make realm permanent']),
    );
    expect(labels.join(' ')).not.toMatch(/_|AUTHORIZATION/);
    const names = new Set(await page.getByTestId('activity-connection').allTextContents());
    expect([...names]).toEqual(['Local broker']);

    await page.getByTestId('activity-filter-outcome').selectOption('failed');
    await expect.poll(() => page.getByTestId('activity-entry').count()).toBe(2);
    expect(await page.getByTestId('activity-action').allTextContents()).toEqual([
      'Make realm permanent',
      'Revoke token',
    ]);
    await page.getByTestId('activity-filter-outcome').selectOption('');
    await page.getByTestId('activity-filter-action').selectOption('remove_realm');
    await expect.poll(() => page.getByTestId('activity-entry').count()).toBe(1);
    expect(await text(page, 'activity-target')).toContain('kiosk');
    await page.getByTestId('activity-filter-action').selectOption('');
    await page.getByTestId('activity-filter-connection').selectOption({ label: 'Far away' });
    await expect.poll(() => page.getByTestId('activity-empty').count()).toBe(1);
    await page.getByTestId('activity-filter-connection').selectOption({ label: 'Local broker' });
    await page.screenshot({ path: path.join(SHOTS, 'trial-activity.png'), fullPage: true });
  }, 60_000);

  it('discards dead letters of two realms from the UI, one entry per realm', async () => {
    const { port } = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    const url = `http://127.0.0.1:${port}`;
    await callApi(app, 'createRealm', {
      ...LOCAL,
      realm: 'bay',
      authRequired: false,
      ephemeral: false,
    });
    for (const realm of ['default', 'bay']) {
      const consumer = await connectSocket(url, sockets);
      const producer = await connectSocket(url, sockets);
      if (realm !== 'default') {
        expect(await authenticate(consumer, { realm, role: 'consumer' })).toMatchObject({
          event: 'AUTH_OK',
        });
        expect(await authenticate(producer, { realm, role: 'producer' })).toMatchObject({
          event: 'AUTH_OK',
        });
      }
      consumer.emit(ClientEvent.CONSUMER, consumerPayload(`stuck-${realm}`));
      consumer.emit(
        ClientEvent.SUBSCRIBE,
        jsSubscribePayload(`stuck-${realm}`, 'feed', 'item', {
          durable: true,
          manualAck: true,
          ackTimeout: '100ms',
          retry: { max_attempts: 1 },
        }),
      );
      producer.emit(ClientEvent.PRODUCER, jsProducerPayload('feed'));
      // Produce until the subscription exists and a copy is dead-lettered (no fixed wait).
      await expect
        .poll(
          async () => {
            producer.emit(ClientEvent.PRODUCE, producePayload('item', { realm }, { from: 'feed' }));
            const page = await callApi<{ total: number }>(app, 'listDeadLetters', {
              ...LOCAL,
              realm,
            });
            return page.total;
          },
          { timeout: 20_000, interval: 300 },
        )
        .toBeGreaterThan(0);
      consumer.close();
      producer.close();
    }
    await openSection(page, 'dead-letters');
    await expect
      .poll(() => page.getByTestId('dlq-row').count(), { timeout: 15_000 })
      .toBeGreaterThan(1);
    await page.getByTestId('dlq-select-all').click();
    await page.getByTestId('dlq-discard-selected').click();
    await page.getByTestId('dlq-confirm-yes').click();
    await expect
      .poll(() => page.getByTestId('dlq-notice').textContent(), { timeout: 15_000 })
      .toMatch(/^Discarded/);
    expect(await page.getByTestId('dlq-error').count()).toBe(0);

    await openSection(page, 'activity');
    await page.getByTestId('activity-filter-action').selectOption('dlq_discard');
    await expect.poll(() => page.getByTestId('activity-entry').count()).toBe(2);
    const targets = (await page.getByTestId('activity-target').allTextContents()).map((t) =>
      t.replace(' · ', '').trim(),
    );
    expect(targets.sort()).toEqual(['bay', 'default']);
    for (const details of await page.getByTestId('activity-params').allTextContents()) {
      expect(details).toMatch(/count: \d+ · ids: /);
    }
    for (const result of await page.getByTestId('activity-result').allTextContents()) {
      expect(result).toMatch(/^discarded \d+/);
    }
    await page.getByTestId('activity-filter-action').selectOption('');
  }, 90_000);
});
