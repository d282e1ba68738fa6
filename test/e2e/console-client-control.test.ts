/**
 * End to end (issue 27): in the Clients view, a connected consumer's Details open its detail
 * panel (what admitted it, its history); Force close (with its confirmation) closes that one
 * connection — the client sees the disconnect, another client of the realm stays — and the
 * panel shows it closed with the `force-closed` history entry. Screenshots at 1280 and 390 px
 * go to $SHOTS_DIR (default test-results/).
 */
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagerClient } from '../../electron/services/manager-client';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import { consumerPayload } from '../helpers/stock-clients';
import { waitFor } from '../helpers/wait';
import {
  callApi,
  localAdminToken,
  startConsole,
  type RunningConsole,
  stopConsole,
} from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.SHOTS_DIR ?? path.join(REPO, 'test-results');
const KEY = 'fleet-psk-client-control-4e19';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).textContent();

describe('console client detail and force close end to end', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;
  let manager: ManagerClient | null = null;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-clientctl-');
  }, 10_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    manager?.close();
    await browser?.close();
    await stopConsole(app);
    await dir.remove();
  }, 30_000);

  it('opens a client, force-closes it, and shows it closed with its history', async () => {
    const dataDir = path.join(dir.path, 'data');
    app = await startConsole(dataDir);
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    const brokerUrl = `http://127.0.0.1:${broker.port}`;
    manager = new ManagerClient({ url: brokerUrl, secret: localAdminToken(dataDir) });
    await manager.command({ command: 'add_realm', realm: 'fleet', key: KEY, require_key: true });
    const login = async (name: string): Promise<Socket> => {
      const s = await connectSocket(brokerUrl, sockets);
      expect(await authenticate(s, { realm: 'fleet', role: 'consumer', key: KEY })).toMatchObject({
        event: 'AUTH_OK',
      });
      s.emit(ClientEvent.CONSUMER, consumerPayload(name));
      return s;
    };
    const worker = await login('worker');
    const keeper = await login('keeper');

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.url);
    await page.getByTestId('nav-clients').click();
    const open = page.getByTestId('client-open-consumer-worker');
    await expect.poll(() => open.count(), { timeout: 20_000 }).toBe(1);
    await open.click();
    await expect.poll(() => text(page, 'client-detail-admitted'), { timeout: 10_000 }).toBe('key');
    expect(await text(page, 'client-detail-facts')).toContain('socket.io over websocket');
    expect(await text(page, 'client-detail-history')).toContain('authenticated');
    await page.screenshot({ path: path.join(SHOTS, 'clients-detail-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SHOTS, 'clients-detail-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    // Force close asks first; Cancel keeps it, the confirmation closes that one connection.
    await page.getByTestId('client-force-close').click();
    await page.getByTestId('client-force-close-confirm-no').click();
    expect(worker.connected).toBe(true);
    const gone = waitFor<string>(worker, 'disconnect');
    await page.getByTestId('client-force-close').click();
    await page.getByTestId('client-force-close-confirm-yes').click();
    expect(await gone).toBe('io server disconnect');
    await expect
      .poll(() => text(page, 'client-detail-history'), { timeout: 10_000 })
      .toContain('force-closed');
    expect(await text(page, 'client-detail-reason')).toContain('closed by admin');
    expect(await page.getByTestId('client-force-close').count()).toBe(0);
    // Gone from the listing's live connections: offline, no Details any more.
    await expect
      .poll(() => text(page, 'client-consumer-worker'), { timeout: 10_000 })
      .toContain('offline');
    expect(await page.getByTestId('client-open-consumer-worker').count()).toBe(0);
    expect(keeper.connected).toBe(true);
    expect(await page.getByTestId('client-open-consumer-keeper').count()).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'clients-closed-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SHOTS, 'clients-closed-390.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
