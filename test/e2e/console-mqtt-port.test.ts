/**
 * End to end: the console's local broker MQTT port (`--broker-mqtt-port`), as a newcomer meets it.
 *   - A taken MQTT port: exit 3, naming that port and `--broker-mqtt-port` (not the socket.io
 *     port and `--broker-port`).
 *   - `--broker-mqtt-port 0`: the chosen port is in the startup log and the `MQTT:` stdout line
 *     beside the socket.io endpoint,
 *     in the Local broker view and on the Overview, and stays the same after Restart, so MQTT
 *     devices reconnect to the address they had.
 * Screenshots of the Local broker view at 1280 and 390 px: test-results/mqttport-*.png.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { connectAsync } from 'mqtt';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import {
  callApi,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../support/console-process';
import { openSection } from '../support/console-nav';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).first().textContent();

/** Runs the console to its exit; resolves with its exit code and output. */
async function runConsole(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '--silent', 'console', '--', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'silent' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr?.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}

describe('console local broker MQTT port', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-mqttport-');
  }, 10_000);

  afterAll(async () => {
    await browser?.close();
    await stopConsole(app);
    await dir.remove();
  }, 30_000);

  it('names the taken MQTT port and the console flag to change it', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const run = await runConsole([
        '--port',
        '0',
        '--broker-port',
        '0',
        '--broker-mqtt-port',
        String(taken),
        '--data-dir',
        path.join(dir.path, 'taken'),
      ]);
      expect(run.code).toBe(3);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim()).toBe(
        `Cannot start the local broker: MQTT port ${taken} is already in use. Pick another with --broker-mqtt-port <n> (0 = any free port, off = no MQTT).`,
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  }, 90_000);

  it('shows the MQTT port it chose and keeps it across restarts', async () => {
    app = await startConsole(path.join(dir.path, 'data'), { mqttPort: 0, logLevel: 'info' });
    const first = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    expect(first.state).toBe('running');
    const mqttPort = first.mqttPort as number;
    expect(mqttPort).toBeGreaterThan(0);
    expect(first.mqttPort).not.toBe(first.port);

    // The startup log names it beside the socket.io endpoint.
    await expect
      .poll(() =>
        app!.stderr
          .join('')
          .split('\n')
          .filter((line) => line.includes('"console ready"'))
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      )
      .toEqual([
        expect.objectContaining({
          broker: { host: '127.0.0.1', port: first.port },
          mqttPort,
          mqttWsPort: null,
        }),
      ]);

    // …and so do the lines it prints on stdout (issue 27 item 1).
    await expect
      .poll(() => app!.stdout.filter((line) => line.trim() !== ''))
      .toEqual([
        `Console: ${app.url}`,
        `Broker:  http://127.0.0.1:${first.port}`,
        `MQTT:    mqtt://127.0.0.1:${mqttPort}`,
      ]);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.url);
    await page.getByTestId('overview-status').filter({ hasText: 'running' }).waitFor();
    expect(await text(page, 'overview-port')).toBe(String(first.port));
    expect(await text(page, 'overview-ports')).toBe(`socket.io · MQTT ${mqttPort}`);

    await openSection(page, 'local');
    await expect.poll(() => text(page, 'local-state')).toBe('running');
    expect(await text(page, 'local-port')).toBe(String(first.port));
    expect(await text(page, 'local-mqtt-port')).toBe(String(mqttPort));

    await page.getByTestId('local-restart').click();
    await page.getByTestId('local-confirm-yes').click();
    await expect
      .poll(async () => (await callApi<LocalBrokerStatus>(app!, 'getLocalBroker', {})).pid, {
        timeout: 30_000,
      })
      .not.toBe(first.pid);
    await expect.poll(() => text(page, 'local-state'), { timeout: 30_000 }).toBe('running');
    const again = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    expect(again).toMatchObject({ state: 'running', port: first.port, mqttPort });
    expect(await text(page, 'local-mqtt-port')).toBe(String(mqttPort));
    // A device reconnects to the address it had.
    const device = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    await device.endAsync(true);

    await page.screenshot({ path: path.join(SHOTS, 'mqttport-local-broker-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SHOTS, 'mqttport-local-broker-390.png') });
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
