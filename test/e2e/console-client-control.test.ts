/**
 * End to end (issue 27): in the Clients view, a connected consumer's Details open its detail
 * panel (what admitted it, its history); Force close (with its confirmation) closes that one
 * connection — the client sees the disconnect, another client of the realm stays — and the
 * panel shows it closed with the `force-closed` history entry. Screenshots at 1280 and 390 px
 * go to $SHOTS_DIR (default test-results/).
 */
import path from 'node:path';
import { type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import { consumerPayload } from '../helpers/stock-clients';
import { waitFor } from '../helpers/wait';
import { consoleFixture } from '../support/console-fixture';
import { connectAsync } from 'mqtt';
import type { ClientDetailResult } from '../../shared/console-api-operations';
import { callApi } from '../support/console-process';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.SHOTS_DIR ?? path.join(REPO, 'test-results');
const KEY = 'fleet-psk-client-control-4e19';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).textContent();

describe('console client detail and force close end to end', () => {
  const fx = consoleFixture('switchboard-e2e-clientctl-', {
    page: { viewport: { width: 1280, height: 860 }, consoleErrors: false },
    mqtt: true,
  });

  it('opens a client, force-closes it, and shows it closed with its history', async () => {
    await fx
      .manager()
      .command({ command: 'add_realm', realm: 'fleet', key: KEY, require_key: true });
    const login = async (name: string): Promise<Socket> => {
      const s = await fx.connect();
      expect(await authenticate(s, { realm: 'fleet', role: 'consumer', key: KEY })).toMatchObject({
        event: 'AUTH_OK',
      });
      s.emit(ClientEvent.CONSUMER, consumerPayload(name));
      return s;
    };
    const worker = await login('worker');
    const keeper = await login('keeper');

    await fx.page.getByTestId('nav-clients').click();
    const open = fx.page.getByTestId('client-open-consumer-worker');
    await expect.poll(() => open.count(), { timeout: 20_000 }).toBe(1);
    await open.click();
    await expect
      .poll(() => text(fx.page, 'client-detail-admitted'), { timeout: 10_000 })
      .toBe('key');
    expect(await text(fx.page, 'client-detail-facts')).toContain('socket.io over websocket');
    expect(await text(fx.page, 'client-detail-history')).toContain('authenticated');
    await fx.page.screenshot({ path: path.join(SHOTS, 'clients-detail-1280.png'), fullPage: true });
    await fx.page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await fx.page.screenshot({ path: path.join(SHOTS, 'clients-detail-390.png'), fullPage: true });
    await fx.page.setViewportSize({ width: 1280, height: 860 });

    // Force close asks first; Cancel keeps it, the confirmation closes that one connection.
    await fx.page.getByTestId('client-force-close').click();
    await fx.page.getByTestId('client-force-close-confirm-no').click();
    expect(worker.connected).toBe(true);
    const gone = waitFor<string>(worker, 'disconnect');
    await fx.page.getByTestId('client-force-close').click();
    await fx.page.getByTestId('client-force-close-confirm-yes').click();
    expect(await gone).toBe('io server disconnect');
    await expect
      .poll(() => text(fx.page, 'client-detail-history'), { timeout: 10_000 })
      .toContain('force-closed');
    expect(await text(fx.page, 'client-detail-reason')).toContain('closed by admin');
    expect(await fx.page.getByTestId('client-force-close').count()).toBe(0);
    // Gone from the listing's live connections: offline, no Details any more.
    await expect
      .poll(() => text(fx.page, 'client-consumer-worker'), { timeout: 10_000 })
      .toContain('offline');
    expect(await fx.page.getByTestId('client-open-consumer-worker').count()).toBe(0);
    expect(keeper.connected).toBe(true);
    expect(await fx.page.getByTestId('client-open-consumer-keeper').count()).toBe(1);

    await fx.page.setViewportSize({ width: 390, height: 844 });
    await fx.page.screenshot({ path: path.join(SHOTS, 'clients-closed-390.png'), fullPage: true });
    expect(fx.pageErrors).toEqual([]);
  }, 180_000);

  it('force-closes an MQTT device and keeps it out for 5 minutes', async () => {
    const options = { clientId: 'flood-device', reconnectPeriod: 0, connectTimeout: 5_000 };
    const url = `mqtt://127.0.0.1:${fx.mqttPort}`;
    const first = await connectAsync(url, options);
    // The test before ends at 390 px, where the side navigation is a menu.
    await fx.page.setViewportSize({ width: 1280, height: 860 });
    await fx.page.getByTestId('nav-clients').click();
    const open = fx.page.getByTestId('client-open-mqtt-flood-device');
    await expect.poll(() => open.count(), { timeout: 15_000 }).toBe(1);
    await open.click();
    const state = () => fx.page.getByTestId('client-detail-state').getAttribute('data-state');
    await expect.poll(state, { timeout: 10_000 }).toBe('online');

    // The device leaves while the confirmation is open: the broker's 409 is shown next to the
    // action, and stays when the panel's refresh finds the device back on a new connection.
    await fx.page.getByTestId('client-force-close').click();
    await first.endAsync();
    await expect.poll(state, { timeout: 10_000 }).toBe('closed');
    await fx.page.getByTestId('client-force-close-confirm-yes').click();
    await expect
      .poll(() => text(fx.page, 'client-force-close-error'), { timeout: 10_000 })
      .toContain('not connected');
    await fx.page.screenshot({
      path: path.join(SHOTS, 'clients-close-error-1280.png'),
      fullPage: true,
    });
    const device = await connectAsync(url, options);
    await expect.poll(state, { timeout: 10_000 }).toBe('online');
    expect(await text(fx.page, 'client-force-close-error')).toContain('not connected');
    const closed = new Promise<void>((resolve) => device.once('close', () => resolve()));
    await fx.page.getByTestId('client-force-close').click();
    await fx.page.getByTestId('client-force-close-block').check();
    await fx.page.screenshot({ path: path.join(SHOTS, 'clients-block-1280.png'), fullPage: true });
    await fx.page.getByTestId('client-force-close-confirm-yes').click();
    await closed;
    await expect
      .poll(() => text(fx.page, 'client-detail-notice'))
      .toMatch(/closed\. Its reconnects are refused until/);
    device.end(true);
    // The device tries again at once: refused, and the refusal is in its history.
    await expect(connectAsync(`mqtt://127.0.0.1:${fx.mqttPort}`, options)).rejects.toThrow(
      /Not authorized|Connection refused/i,
    );
    // The refused attempt is the client id's latest record, with why.
    await expect
      .poll(async () => {
        const r = await callApi<ClientDetailResult>(fx.app, 'getClientDetail', {
          connectionId: 'local',
          realm: 'default',
          clientId: 'flood-device',
        });
        return r.detail?.history.map((e) => e.detail ?? '').join(' | ') ?? '';
      })
      .toMatch(/blocked by a manager until/);
  }, 120_000);
});
