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
import { type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { callApi, callConfirmed } from '../support/console-process';
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
import { consoleFixture } from '../support/console-fixture';

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
  const fx = consoleFixture('switchboard-e2e-trial-', { page: { consoleErrors: false } });

  it('confirms Stop and Restart, and shows a stopped broker as stopped with Start', async () => {
    await fx.page.getByTestId('overview-broker-restart').click();
    const restartText = (await text(fx.page, 'overview-broker-confirm')) ?? '';
    expect(restartText).toContain('disconnects every client');
    expect(restartText).toContain('demo');
    await fx.page.getByTestId('overview-broker-confirm-no').click();
    expect(await fx.page.getByTestId('overview-broker-confirm').count()).toBe(0);
    expect(await text(fx.page, 'overview-status')).toBe('running');

    await openSection(fx.page, 'local');
    expect(await text(fx.page, 'nav-local')).toBe('Broker process');
    expect(await fx.page.locator('.page__title').textContent()).toBe('Broker process');
    await fx.page.getByTestId('local-stop').click();
    expect(await text(fx.page, 'local-confirm')).toContain('stops the demo');
    await fx.page.getByTestId('local-confirm-yes').click();
    await expect.poll(() => text(fx.page, 'local-state'), { timeout: 20_000 }).toBe('stopped');

    await openSection(fx.page, 'overview');
    await fx.page.getByTestId('overview-stopped').waitFor();
    expect(await text(fx.page, 'overview-status')).toBe('stopped');
    expect(await fx.page.getByTestId('overview-broker-restart').count()).toBe(0);
    expect(await fx.page.getByTestId('overview-error').count()).toBe(0);
    expect(await fx.page.getByTestId('chart-unreachable').count()).toBe(0);
    await fx.page.screenshot({
      path: path.join(SHOTS, 'trial-overview-stopped.png'),
      fullPage: true,
    });
    // Start asks nothing.
    await fx.page.getByTestId('overview-broker-start').click();
    await expect.poll(() => text(fx.page, 'overview-status'), { timeout: 30_000 }).toBe('running');
    expect(await fx.page.getByTestId('overview-stopped').count()).toBe(0);
    // One "since broker start" produced total on the page, not two.
    const produced = await fx.page
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
    await callApi(fx.app, 'createRealm', {
      ...LOCAL,
      realm: 'kiosk',
      authRequired: true,
      ephemeral: true,
      ttl: '2m',
    });
    await openSection(fx.page, 'realms');
    await fx.page.getByTestId('realm-toggle-kiosk').click();
    expect(await fx.page.getByTestId('realm-ttl-kiosk').inputValue()).toBe('2m');
    expect(await text(fx.page, 'realm-key-required-state-kiosk')).toMatch(/^off/);
    await fx.page.getByTestId('realm-require-key-kiosk').click();
    expect(await text(fx.page, 'realm-require-key-confirm-kiosk')).toContain(
      'must then present the key',
    );
    await fx.page.getByTestId('realm-require-key-confirm-kiosk-yes').click();
    await fx.page.getByTestId('secret-value').waitFor();
    await fx.page.getByTestId('secret-done').click();
    await expect.poll(() => text(fx.page, 'realm-key-required-state-kiosk')).toMatch(/^on/);
    // Now a key is set: turning it off keeps it (issue 27; console-realm-key-kept.test.ts).
    expect(await text(fx.page, 'realm-require-key-kiosk')).toBe('Require key off');
    await fx.page.getByTestId('realm-require-key-kiosk').click();
    expect(await text(fx.page, 'realm-require-key-confirm-kiosk')).toContain(
      'The pre-shared key is kept',
    );
    await fx.page.getByTestId('realm-require-key-confirm-kiosk-no').click();
  }, 60_000);

  it('refuses a dangerous call from a page script; the UI’s confirmation still works', async () => {
    for (const [method, input] of [
      ['removeRealm', { ...LOCAL, realm: 'kiosk', confirmName: 'kiosk' }],
      ['decideRequest', { ...LOCAL, requestId: 'any', approved: true }],
      ['revokeToken', { ...LOCAL, tokenHash: 'a'.repeat(64) }],
      ['discardDeadLetters', { ...LOCAL, ids: ['x'] }],
    ] as const) {
      expect(await pageCall(fx.page, method, input), method).toMatchObject({
        ok: false,
        error: { code: 'SWB_ERR_CONFIRMATION_REQUIRED' },
      });
    }
    const realms = await callApi<{ realms: { name: string }[] }>(fx.app, 'listRealms', LOCAL);
    expect(realms.realms.map((r) => r.name)).toContain('kiosk');
    // A caller that asks for the confirmation first gets past the gate (to the broker's answer).
    await expect(
      callConfirmed(fx.app, 'revokeToken', { ...LOCAL, tokenHash: 'a'.repeat(64) }),
    ).rejects.toThrow(/SWB_ERR_NOT_FOUND/);

    // The same removal through the UI (type the name, click): it goes through.
    await fx.page.getByTestId('realm-remove-confirm-kiosk').fill('kiosk');
    await fx.page.getByTestId('realm-remove-kiosk').click();
    await expect
      .poll(() => fx.page.getByTestId('realms-row-kiosk').count(), { timeout: 10_000 })
      .toBe(0);
  }, 60_000);

  it('shows the local demo whatever connection is selected', async () => {
    await callApi(fx.app, 'addConnection', {
      name: 'Far away',
      url: 'http://127.0.0.1:9',
      credential: { kind: 'none' },
    });
    await expect
      .poll(() => fx.page.getByTestId('connection-switcher').locator('option').count())
      .toBe(2);
    await fx.page.getByTestId('connection-switcher').selectOption({ label: 'Far away' });
    await openSection(fx.page, 'demo');
    await fx.page.getByTestId('demo-local-only').waitFor();
    expect(await fx.page.getByTestId('demo-error').count()).toBe(0);
    await fx.page.getByTestId('demo-toggle').click();
    await expect.poll(() => text(fx.page, 'demo-state'), { timeout: 20_000 }).toBe('running');
    expect((await callApi<{ running: boolean }>(fx.app, 'getDemo', LOCAL)).running).toBe(true);
    await fx.page.getByTestId('demo-toggle').click();
    await expect.poll(() => text(fx.page, 'demo-state'), { timeout: 20_000 }).toBe('stopped');
    await fx.page.getByTestId('connection-switcher').selectOption({ label: 'Local broker' });
  }, 60_000);

  it('lists activity in words, by connection name, filtered by command and outcome', async () => {
    // A refusal to filter for.
    await expect(
      callApi(fx.app, 'setRealmLifetime', { ...LOCAL, realm: 'never-there', ephemeral: false }),
    ).rejects.toThrow();
    await openSection(fx.page, 'activity');
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBeGreaterThan(3);
    const labels = await fx.page.getByTestId('activity-action').allTextContents();
    expect(labels).toEqual(
      expect.arrayContaining(['Create realm', 'Remove realm', 'Make realm permanent']),
    );
    expect(labels.join(' ')).not.toMatch(/_|AUTHORIZATION/);
    const names = new Set(await fx.page.getByTestId('activity-connection').allTextContents());
    expect([...names]).toEqual(['Local broker']);

    await fx.page.getByTestId('activity-filter-outcome').selectOption('failed');
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(2);
    expect(await fx.page.getByTestId('activity-action').allTextContents()).toEqual([
      'Make realm permanent',
      'Revoke token',
    ]);
    await fx.page.getByTestId('activity-filter-outcome').selectOption('');
    await fx.page.getByTestId('activity-filter-action').selectOption('remove_realm');
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(1);
    expect(await text(fx.page, 'activity-target')).toContain('kiosk');
    await fx.page.getByTestId('activity-filter-action').selectOption('');
    await fx.page.getByTestId('activity-filter-connection').selectOption({ label: 'Far away' });
    await expect.poll(() => fx.page.getByTestId('activity-empty').count()).toBe(1);
    await fx.page.getByTestId('activity-filter-connection').selectOption({ label: 'Local broker' });
    await fx.page.screenshot({ path: path.join(SHOTS, 'trial-activity.png'), fullPage: true });
  }, 60_000);

  it('discards dead letters of two realms from the UI, one entry per realm', async () => {
    const { port } = await callApi<LocalBrokerStatus>(fx.app, 'getLocalBroker', {});
    const url = `http://127.0.0.1:${port}`;
    await callApi(fx.app, 'createRealm', {
      ...LOCAL,
      realm: 'bay',
      authRequired: false,
      ephemeral: false,
    });
    for (const realm of ['default', 'bay']) {
      const consumer = await connectSocket(url, fx.sockets);
      const producer = await connectSocket(url, fx.sockets);
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
            const dead = await callApi<{ total: number }>(fx.app, 'listDeadLetters', {
              ...LOCAL,
              realm,
            });
            return dead.total;
          },
          { timeout: 20_000, interval: 300 },
        )
        .toBeGreaterThan(0);
      consumer.close();
      producer.close();
    }
    await openSection(fx.page, 'dead-letters');
    await expect
      .poll(() => fx.page.getByTestId('dlq-row').count(), { timeout: 15_000 })
      .toBeGreaterThan(1);
    await fx.page.getByTestId('dlq-select-all').click();
    await fx.page.getByTestId('dlq-discard-selected').click();
    await fx.page.getByTestId('dlq-confirm-yes').click();
    await expect
      .poll(() => fx.page.getByTestId('dlq-notice').textContent(), { timeout: 15_000 })
      .toMatch(/^Discarded/);
    expect(await fx.page.getByTestId('dlq-error').count()).toBe(0);

    await openSection(fx.page, 'activity');
    await fx.page.getByTestId('activity-filter-action').selectOption('dlq_discard');
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(2);
    const targets = (await fx.page.getByTestId('activity-target').allTextContents()).map((t) =>
      t.replace(' · ', '').trim(),
    );
    expect(targets.sort()).toEqual(['bay', 'default']);
    for (const details of await fx.page.getByTestId('activity-params').allTextContents()) {
      expect(details).toMatch(/count: \d+ · ids: /);
    }
    for (const result of await fx.page.getByTestId('activity-result').allTextContents()) {
      expect(result).toMatch(/^discarded \d+/);
    }
    await fx.page.getByTestId('activity-filter-action').selectOption('');
  }, 90_000);
});
