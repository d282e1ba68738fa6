/**
 * End to end (issue 22 item 7): a client logged in with a realm's pre-shared key; the key is
 * rotated from the Realms view, which says the client's session was ended (the broker closes
 * it; the old key is refused from then on); then **End sessions** (two clicks) ends the
 * session of a client that logged in with the new key, which is told why. Screenshots at 1280
 * and 390 px go to $SHOTS_DIR (default test-results/).
 */
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagerClient } from '../../electron/services/manager-client';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { ServerEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
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
const OLD_KEY = 'fleet-psk-before-rotation-7d21';
const NEXT_KEY = 'fleet-psk-set-by-script-0b3e';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).textContent();

describe('console realm sessions end to end', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;
  let manager: ManagerClient | null = null;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-sessions-');
  }, 10_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    manager?.close();
    await browser?.close();
    await stopConsole(app);
    await dir.remove();
  }, 30_000);

  it('shows the sessions a rotation ended and ends the rest on request', async () => {
    const dataDir = path.join(dir.path, 'data');
    app = await startConsole(dataDir);
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    const brokerUrl = `http://127.0.0.1:${broker.port}`;
    manager = new ManagerClient({ url: brokerUrl, secret: localAdminToken(dataDir) });
    await manager.command({
      command: 'add_realm',
      realm: 'fleet',
      key: OLD_KEY,
      require_key: true,
    });
    const consumer = { realm: 'fleet', role: 'consumer' };
    const device = await connectSocket(brokerUrl, sockets);
    expect(await authenticate(device, { ...consumer, key: OLD_KEY })).toMatchObject({
      event: 'AUTH_OK',
    });

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.url);
    await page.getByTestId('nav-realms').click();
    await expect
      .poll(() => page.getByTestId('realms-row-fleet').count(), { timeout: 15_000 })
      .toBe(1);
    await page.getByTestId('realm-toggle-fleet').click();

    // Rotate (two clicks): the summary says the session with the old key was ended.
    const told = waitFor<{ code: number; message: string }>(device, ServerEvent.AUTH_FAIL);
    await page.getByTestId('realm-realmKey-generate-fleet').click();
    await page.getByTestId('realm-realmKey-generate-fleet').click();
    await expect
      .poll(() => text(page, 'realms-message'), { timeout: 10_000 })
      .toBe(
        'New pre-shared key for realm fleet. 1 session that used the old pre-shared key was ended (it must reconnect with the new one).',
      );
    expect(await told).toEqual({ code: 401, message: 'Credentials changed; authenticate again' });
    await page.getByTestId('secret-done').click();
    expect(
      await authenticate(await connectSocket(brokerUrl, sockets), { ...consumer, key: OLD_KEY }),
    ).toMatchObject({ event: 'AUTH_FAIL' });

    // A client with the current key; End sessions asks once more, then ends it.
    await manager.command({ command: 'set_realm_key', realm: 'fleet', key: NEXT_KEY });
    const second = await connectSocket(brokerUrl, sockets);
    expect(await authenticate(second, { ...consumer, key: NEXT_KEY })).toMatchObject({
      event: 'AUTH_OK',
    });
    await page.getByTestId('realm-end-sessions-fleet').click();
    await expect.poll(() => text(page, 'realm-end-sessions-fleet')).toBe('Confirm: end sessions');
    await page.screenshot({
      path: path.join(SHOTS, 'realms-end-sessions-1280.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await page.screenshot({
      path: path.join(SHOTS, 'realms-end-sessions-390.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 1280, height: 860 });
    const ended = waitFor<{ code: number; message: string }>(second, ServerEvent.AUTH_FAIL);
    await page.getByTestId('realm-end-sessions-fleet').click();
    await expect
      .poll(() => text(page, 'realms-message'), { timeout: 10_000 })
      .toBe('Realm fleet: 1 session ended; clients that still hold a valid credential reconnect.');
    expect(await ended).toEqual({
      code: 401,
      message: 'Session ended by a manager; authenticate again',
    });
    await page.screenshot({
      path: path.join(SHOTS, 'realms-sessions-ended-1280.png'),
      fullPage: true,
    });
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
