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

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.SHOTS_DIR ?? path.join(REPO, 'test-results');
const KEY = 'fleet-psk-client-control-4e19';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).textContent();

describe('console client detail and force close end to end', () => {
  const fx = consoleFixture('switchboard-e2e-clientctl-', {
    page: { viewport: { width: 1280, height: 860 }, consoleErrors: false },
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
    await fx.page.screenshot({ path: path.join(SHOTS, 'clients-closed-1280.png'), fullPage: true });
    await fx.page.setViewportSize({ width: 390, height: 844 });
    await fx.page.screenshot({ path: path.join(SHOTS, 'clients-closed-390.png'), fullPage: true });
    expect(fx.pageErrors).toEqual([]);
  }, 180_000);
});
