/**
 * End to end: `npm run console` in headless Chromium — a live tap that is stopped, or whose page
 * is closed, leaves nothing on the real local broker (docs/console.md "Live tap"): no
 * `switchboard-tap-…` consumer in `GET /api/clients`, no subscription or queue in
 * `GET /api/stats`, and a guaranteed message published afterwards is queued for no one.
 */
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import type { Clients } from '../../shared/http-api';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
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
import { TAP_ORPHAN_MS_ENV } from '../../electron/services/local-console';

/** The console's tap orphan delay in this file, ms (the default is 10,000). */
const ORPHAN_MS = 1_000;

interface RealmStats {
  consumers: { total: number };
  subscriptions: number;
  queued: number;
  queues: unknown[];
}

describe('console live tap leaves nothing on the broker', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let brokerUrl = '';
  let adminToken = '';
  const sockets: Socket[] = [];

  async function api<T>(route: string): Promise<T> {
    const res = await fetch(`${brokerUrl}${route}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }
  async function tapConsumers(): Promise<string[]> {
    const clients = await api<Clients>('/api/clients');
    return Object.values(clients.realms)
      .flatMap((realm) => realm.consumers.map((c) => c.name))
      .filter((name) => name.startsWith('switchboard-tap-'));
  }
  async function defaultStats(): Promise<RealmStats | undefined> {
    return (await api<{ realms: Record<string, RealmStats> }>('/api/stats')).realms.default;
  }
  async function publishGuaranteed(event: string): Promise<void> {
    const socket = await connectSocket(brokerUrl, sockets);
    await new Promise<void>((resolve, reject) => {
      socket.once(ServerEvent.AUTH_OK, () => resolve());
      socket.once(ServerEvent.AUTH_FAIL, (r) => reject(new Error(JSON.stringify(r))));
      socket.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role: 'both' });
    });
    await socket
      .timeout(5_000)
      .emitWithAck(ClientEvent.PRODUCE, { event, message: { n: 1 }, guaranteed: true });
    socket.close();
  }
  async function expectNothingLeft(event: string): Promise<void> {
    await expect.poll(tapConsumers, { timeout: 20_000 }).toEqual([]);
    await publishGuaranteed(event);
    expect(await defaultStats()).toMatchObject({
      consumers: { total: 0 },
      subscriptions: 0,
      queued: 0,
      queues: [],
    });
  }
  async function startTap(page: Page, pattern: string): Promise<void> {
    await page.goto(`${app.url}`);
    await page.getByTestId('nav-tap').click();
    await page.getByTestId('tap-realm').fill('default');
    await page.getByTestId('tap-pattern').fill(pattern);
    await page.getByTestId('tap-start').click();
    await expect
      .poll(() => page.getByTestId('tap-state').first().textContent(), { timeout: 15_000 })
      .toBe('tapping');
    await expect.poll(tapConsumers).toHaveLength(1);
  }

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-tapleft-');
    const dataDir = path.join(dir.path, 'data');
    // A short orphan delay, so the closed-page case waits 1 s, not the default 10 s.
    app = await startConsole(dataDir, {
      env: { [TAP_ORPHAN_MS_ENV]: String(ORPHAN_MS) },
    });
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    brokerUrl = `http://127.0.0.1:${broker.port}`;
    adminToken = localAdminToken(dataDir);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await browser?.close();
    await stopConsole(app);
    await dir?.remove();
  }, 30_000);

  it('Stop removes the tap consumer, its subscription and its queue', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await startTap(page, 'home/#');
    await page.getByTestId('tap-stop').click();
    await expect.poll(() => page.getByTestId('tap-state').first().textContent()).toBe('stopped');
    await expectNothingLeft('home/kitchen');
    await page.close();
  }, 60_000);

  it('closing the page removes the tap within the orphan delay', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await startTap(page, 'garden/#');
    await page.close();
    await expectNothingLeft('garden/shed');
  }, 60_000);
});
