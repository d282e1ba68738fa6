/**
 * End to end: `npm run console` plus a SECOND broker started as a remote one (auth on, an admin
 * token, HTTP API on). In Chromium: the remote connection is added with its admin token, tested
 * (each layer shown), switched to from the top bar; a real tyo-mq client's authorization request
 * on the remote broker appears without a reload, is approved from the UI, and the client logs
 * in with its token. Only the watched connection's events reach the page. A wrong console token
 * gets one clear full-page screen; a killed console host turns the page stale with actions
 * disabled. No secret appears in anything the page received nor in connections.json.
 * Screenshots (1280 and 390 px) go to test-results/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTIONS_FILE_NAME } from '../../electron/services/connection-profiles';
import { ManagerClient } from '../../electron/services/manager-client';
import { ConsoleChannel } from '../../shared/console-api';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import {
  localAdminToken,
  startConsole,
  type RunningConsole,
  stopConsole,
} from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { openSection } from '../support/console-nav';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const REMOTE_ADMIN = 'remote-admin-token-e2e-4c1d9a7b3f20';
const CLIENT_TOKEN = 'remote-agent-client-token-91ab33c7';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).first().textContent();

async function noOverflow(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
}

describe('console connections end to end', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let remote: BrokerProcess | null = null;
  let browser: Browser | null = null;
  let manager: ManagerClient | null = null;
  const sockets: Socket[] = [];

  const client = (url: string): Promise<Socket> => connectSocket(url, sockets);

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-connections-');
  }, 10_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    manager?.close();
    await browser?.close();
    await stopConsole(app, 'SIGKILL');
    await remote?.stop();
    await dir.remove();
  }, 30_000);

  it('adds, tests and switches to a remote broker, approves a request there, and goes stale', async () => {
    const remoteDir = path.join(dir.path, 'remote');
    const settingsFile = path.join(dir.path, 'remote-settings.json');
    writeFileSync(
      settingsFile,
      JSON.stringify({
        auth: {
          enabled: true,
          tokens: [{ token: REMOTE_ADMIN, realm: '*', role: 'admin' }],
          realms: { default: { required: false }, fleet: {} },
        },
        http_api: { enabled: true },
      }),
    );
    remote = await startBrokerProcess(
      ['--port', '0', '--storage', 'memory', '--data-dir', remoteDir, '--settings', settingsFile],
      20_000,
      { TYO_MQ_ENV_FILE: path.join(dir.path, 'remote.env') },
    );
    const dataDir = path.join(dir.path, 'data');
    app = await startConsole(dataDir);
    const localToken = localAdminToken(dataDir);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const recorded: string[] = [];
    const frames: { at: number; data: string }[] = [];
    const pending: Promise<void>[] = [];
    page.on('response', (response) => {
      if (!response.url().includes(ConsoleChannel.CALL_PREFIX)) return;
      pending.push(
        response.text().then(
          (body) => void recorded.push(body),
          () => undefined,
        ),
      );
    });
    page.on('websocket', (socket) =>
      socket.on('framereceived', (frame) => {
        recorded.push(String(frame.payload));
        frames.push({ at: Date.now(), data: String(frame.payload) });
      }),
    );

    await page.goto(app.url);
    await expect.poll(() => text(page, 'overview-status'), { timeout: 15_000 }).toBe('running');
    expect(await text(page, 'overview-produced-rate')).toMatch(/\/s$/);
    expect(await page.getByTestId('overview-view').textContent()).toContain('since broker start');

    // Add the remote broker with its admin token.
    await page.getByTestId('nav-connections').click();
    await expect.poll(() => page.getByTestId('secret-store-notice').count()).toBe(1);
    expect(await text(page, 'secret-store-notice')).toContain('No OS keychain is used');
    await page.getByTestId('connection-add').click();
    await page.getByTestId('connection-name').fill('Remote');
    await page.getByTestId('connection-url').fill(`${remote.url}/`);
    await page.getByTestId('connection-secret').fill(REMOTE_ADMIN);
    await page.getByTestId('connection-save').click();
    const card = page.getByTestId('connection-Remote');
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    await expect
      .poll(() => text(page, 'connection-state-Remote'), { timeout: 10_000 })
      .toBe('online');

    // Test it: every layer is shown, and passes.
    await card.getByTestId('connection-test').click();
    for (const layer of ['socket', 'credential', 'http']) {
      await expect
        .poll(() => card.getByTestId(`test-layer-${layer}`).getAttribute('data-status'), {
          timeout: 15_000,
        })
        .toBe('ok');
    }
    expect(await card.getByTestId('test-layer-credential').textContent()).toContain(
      'Admin token accepted',
    );
    await page.screenshot({ path: path.join(SHOTS, 'console-connections.png'), fullPage: true });

    // Switch to it from the top bar; the state is visible there.
    await page.getByTestId('connection-switcher').selectOption({ label: 'Remote' });
    await page.getByTestId('nav-overview').click();
    await expect.poll(() => text(page, 'overview-status'), { timeout: 10_000 }).toBe('online');
    expect(await text(page, 'connection-state')).toBe('online');
    expect(await page.locator('.page__title').textContent()).toBe('Remote');
    expect(await page.getByTestId('overview-url').textContent()).toContain(remote.url);
    await page.screenshot({ path: path.join(SHOTS, 'console-switcher.png') });

    // Only the watched connection's overviews reach the page now.
    const switchedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const overviewsSince = frames
      .filter((frame) => frame.at > switchedAt + 500 && frame.data.includes('"event":"overview"'))
      .map((frame) => (JSON.parse(frame.data) as { payload: { connectionId: string } }).payload);
    expect(overviewsSince.length).toBeGreaterThan(0);
    expect(new Set(overviewsSince.map((o) => o.connectionId)).has('local')).toBe(false);

    // A real client asks the remote broker for authorization; it appears without a reload.
    manager = new ManagerClient({ url: remote.url, secret: REMOTE_ADMIN });
    await page.getByTestId('nav-requests').click();
    await expect.poll(() => page.getByTestId('realm-fleet').count(), { timeout: 10_000 }).toBe(1);
    const requester = await client(remote.url);
    const reply = (await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'fleet',
      role: 'consumer',
      client_id: 'remote-agent',
      client_name: 'Remote agent',
      client_token: CLIENT_TOKEN,
    })) as { ok: boolean; request_id: string };
    expect(reply.ok).toBe(true);
    await expect.poll(() => text(page, 'request-realm'), { timeout: 10_000 }).toBe('fleet');
    expect(await text(page, 'request-client')).toBe('Remote agent (remote-agent)');
    const approved = new Promise<unknown>((resolve) =>
      requester.once('AUTHORIZATION_APPROVED', resolve),
    );
    await page.getByTestId('request-approve').click();
    expect(await approved).toEqual({
      request_id: reply.request_id,
      realm: 'fleet',
      role: 'consumer',
    });
    await expect
      .poll(() => text(page, 'request-last-decision'), { timeout: 10_000 })
      .toBe('Approved remote-agent in fleet as consumer.');
    const login = await client(remote.url);
    expect(await authenticate(login, { token: CLIENT_TOKEN, realm: 'fleet' })).toEqual({
      event: 'AUTH_OK',
      realm: 'fleet',
      role: 'consumer',
    });

    // 390 px: no horizontal overflow on any view.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const section of ['overview', 'requests', 'connections']) {
      await openSection(page, section);
      await noOverflow(page);
    }
    await page.getByTestId('connection-add').click();
    await noOverflow(page);
    await page.screenshot({
      path: path.join(SHOTS, 'console-connections-390.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 1280, height: 860 });

    // A wrong console token: one clear full-page screen.
    const wrong = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await wrong.goto(`${app.origin}/#token=not-the-console-token`);
    await expect
      .poll(() => wrong.getByTestId('host-access-screen').getAttribute('data-reason'), {
        timeout: 10_000,
      })
      .toBe('refused');
    expect(await wrong.getByTestId('overview-view').count()).toBe(0);
    expect(await wrong.getByRole('alert').count()).toBe(1);
    expect(await wrong.getByTestId('host-access-screen').textContent()).toContain(
      'npm run console',
    );
    await wrong.screenshot({ path: path.join(SHOTS, 'console-wrong-token.png') });
    await wrong.setViewportSize({ width: 390, height: 844 });
    await noOverflow(wrong);
    await wrong.screenshot({ path: path.join(SHOTS, 'console-wrong-token-390.png') });
    await wrong.close();

    // No secret in anything the page received, nor in the profiles file.
    await Promise.all(pending);
    const all = recorded.join('\n');
    expect(all).toContain('remote-agent');
    for (const secret of [REMOTE_ADMIN, localToken, CLIENT_TOKEN])
      expect(all).not.toContain(secret);
    expect(readFileSync(path.join(dataDir, CONNECTIONS_FILE_NAME), 'utf8')).not.toContain(
      REMOTE_ADMIN,
    );
    expect(app.stderr.join('')).not.toContain(REMOTE_ADMIN);

    // The console host dies: the page marks everything stale and disables actions.
    await page.getByTestId('nav-overview').click();
    await expect.poll(() => text(page, 'overview-status')).toBe('online');
    const group = app.child.pid as number;
    process.kill(-group, 'SIGKILL');
    await app.exited;
    await expect.poll(() => page.getByTestId('stale-banner').count(), { timeout: 10_000 }).toBe(1);
    expect(await text(page, 'overview-status')).toBe('stale (was online)');
    expect(await text(page, 'connection-state')).toBe('stale');
    expect(await text(page, 'link-status')).toBe('console unreachable');
    expect(await page.getByTestId('connection-switcher').isDisabled()).toBe(true);
    await page.getByTestId('nav-connections').click();
    expect(await page.getByTestId('connection-add').isDisabled()).toBe(true);
    await page.getByTestId('nav-local').click();
    expect(await text(page, 'local-state')).toMatch(/^stale \(was /);
    await page.getByTestId('nav-overview').click();
    await page.screenshot({ path: path.join(SHOTS, 'console-stale.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await noOverflow(page);
    await page.screenshot({ path: path.join(SHOTS, 'console-stale-390.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
