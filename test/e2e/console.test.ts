/**
 * End to end: `npm run console` as a real process, its UI in headless Chromium, real tyo-mq
 * clients producing through the real broker; the Overview must show what happened.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import {
  connectConsumer,
  connectProducer,
  produceBatch,
  waitForRegistrations,
} from '../support/fleet-clients';
import {
  callApi,
  localAdminToken,
  startConsole,
  type RunningConsole,
  stopConsole,
} from '../support/console-process';
import { processAlive } from '../support/supervisor-helpers';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).textContent();
const value = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).getAttribute('data-value');

describe('console end to end', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-');
  }, 10_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await browser?.close();
    // Only if the test failed midway: stop whatever is left of the console's process group.
    await stopConsole(app);
    await dir.remove();
  }, 30_000);

  it('shows the local broker and live message counts', async () => {
    const dataDir = path.join(dir.path, 'data');
    // `npm run console` itself (other files start the run's bundle of the same CLI).
    app = await startConsole(dataDir, { npm: true });
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    expect(broker.state).toBe('running');
    const brokerUrl = `http://127.0.0.1:${broker.port}`;

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(app.url);

    await expect.poll(() => text(page, 'overview-status'), { timeout: 15_000 }).toBe('running');
    expect(await text(page, 'overview-port')).toBe(String(broker.port));
    await expect.poll(() => text(page, 'link-status'), { timeout: 10_000 }).toBe('console online');
    // The secret left the address bar (kept in sessionStorage for reloads).
    expect(page.url()).not.toContain('token');
    expect(await value(page, 'overview-produced')).toBe('0');

    const consumer = await connectConsumer(brokerUrl, 'worker-1', 'fleet', 'job');
    sockets.push(consumer.socket);
    const producer = await connectProducer(brokerUrl, 'fleet');
    sockets.push(producer);
    await waitForRegistrations(brokerUrl, {
      consumers: 1,
      producers: 1,
      // The local broker runs with auth on: its HTTP API wants the console's admin token.
      bearerToken: localAdminToken(dataDir),
    });
    produceBatch(producer, 'job', 'fleet', 100);
    await consumer.waitFor(100);
    expect(consumer.received).toEqual(Array.from({ length: 100 }, (_, i) => i));

    await expect.poll(() => value(page, 'overview-produced'), { timeout: 15_000 }).toBe('100');
    await expect.poll(() => value(page, 'overview-delivered'), { timeout: 15_000 }).toBe('100');
    expect(await text(page, 'overview-produced')).toBe('100');
    expect(await text(page, 'overview-delivered')).toBe('100');
    expect(await text(page, 'overview-producers')).toBe('1 / 1');
    expect(await text(page, 'overview-consumers')).toBe('1 / 1');
    expect(await text(page, 'overview-produced-rate')).toMatch(/^[\d,.]+\/s$/);
    expect(await value(page, 'overview-uptime')).toMatch(/^\d+$/);

    // A new console link opened in the same tab changes only the fragment (no reload): it is
    // followed at once. A wrong token is refused by the host…
    await page.goto(`${app.origin}/#token=not-the-secret`);
    // …with one full-page screen saying what to do (no dashboard behind it).
    await expect
      .poll(() => page.getByTestId('host-access-screen').getAttribute('data-reason'), {
        timeout: 10_000,
      })
      .toBe('refused');
    expect(await page.getByTestId('overview-view').count()).toBe(0);
    expect(page.url()).not.toContain('token');
    // (The browser logs the refused calls; nothing else may have gone wrong.)
    expect(pageErrors.splice(0).filter((e) => !e.includes('401 (Unauthorized)'))).toEqual([]);
    // …and the right link works again, still without a reload.
    await page.goto(app.url);
    await expect.poll(() => text(page, 'link-status'), { timeout: 10_000 }).toBe('console online');
    expect(page.url()).not.toContain('token');
    await expect.poll(() => value(page, 'overview-delivered'), { timeout: 15_000 }).toBe('100');

    // After a reload the token comes from sessionStorage.
    await page.reload();
    await expect.poll(() => value(page, 'overview-delivered'), { timeout: 15_000 }).toBe('100');
    expect(pageErrors).toEqual([]);

    // Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops the console and
    // its broker; npm re-raises the signal once its child has exited.
    const group = app.child.pid as number;
    process.kill(-group, 'SIGINT');
    expect(['SIGINT', 'code 0', 'code 130']).toContain(await app.exited);
    await expect.poll(() => processAlive(-group), { timeout: 10_000 }).toBe(false);
    expect(processAlive(broker.pid as number)).toBe(false);
    expect(app.stderr.join('')).not.toMatch(/"level":(50|60)/);
    // stdout held the console's URL and its broker's socket.io and MQTT addresses.
    expect(broker.mqttPort).toBeGreaterThan(0);
    expect(app.stdout.filter((line) => line.trim() !== '')).toEqual([
      `Console: ${app.url}`,
      `Broker:  http://127.0.0.1:${broker.port}`,
      `MQTT:    mqtt://127.0.0.1:${broker.mqttPort}`,
    ]);
  }, 180_000);

  it('explains a taken broker port instead of printing a stack trace', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const child = spawn(
        'npm',
        [
          'run',
          '--silent',
          'console',
          '--',
          '--port',
          '0',
          '--broker-port',
          String(port),
          // Tests never bind the standard MQTT port (1883, the console's default).
          '--broker-mqtt-port',
          'off',
          '--data-dir',
          path.join(dir.path, 'taken'),
        ],
        {
          cwd: REPO,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'silent' },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout?.setEncoding('utf8').on('data', (t: string) => (stdout += t));
      child.stderr?.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      const code = await new Promise<number | null>((resolve) =>
        child.once('exit', (c) => resolve(c)),
      );
      expect(code).toBe(3);
      expect(stdout).toBe('');
      expect(stderr.trim()).toBe(
        `Cannot start the local broker: Port ${port} is already in use. Pick another with --broker-port <n> (0 = any free port).`,
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  }, 90_000);
});
