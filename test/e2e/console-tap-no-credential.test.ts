/**
 * End to end: a remote connection whose realms cannot be listed (added with credential "None")
 * is selected, then the Live tap opens. Before the fix the tap's realm list selector returned a
 * fresh `[]` on every store read, React re-rendered forever (error #185) and the whole page went
 * blank. The view must render and the page must report no error. The Realms view then names the
 * connection by its name, not its internal id.
 */
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { addConnection } from '../support/console-nav';
import { startConsole, type RunningConsole, stopConsole } from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

describe('live tap on a connection without a credential', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let remote: BrokerProcess | null = null;
  let browser: Browser | null = null;

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-tap-no-credential-');
  }, 10_000);

  afterAll(async () => {
    await browser?.close();
    await stopConsole(app, 'SIGKILL');
    await remote?.stop();
    await dir.remove();
  }, 30_000);

  it('renders the tap view instead of crashing the page, and Realms names the connection', async () => {
    remote = await startBrokerProcess(
      ['--port', '0', '--storage', 'memory', '--data-dir', path.join(dir.path, 'remote')],
      20_000,
      { TYO_MQ_ENV_FILE: path.join(dir.path, 'remote.env') },
    );
    app = await startConsole(path.join(dir.path, 'data'));
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.url);

    await addConnection(page, 'Bare', `${remote.url}/`, null);

    await page.getByTestId('connection-switcher').selectOption({ label: 'Bare' });
    await page.getByTestId('nav-tap').click();
    await expect.poll(() => page.getByTestId('tap-view').count(), { timeout: 10_000 }).toBe(1);
    // Give a render loop time to show itself.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await page.getByTestId('tap-view').count()).toBe(1);
    expect(await page.getByTestId('tap-realm').count()).toBe(1);

    // The Realms view names the connection as the user did, not by its internal id.
    await page.getByTestId('nav-realms').click();
    await expect
      .poll(() => page.getByTestId('realms-view').locator('.page__header .muted').textContent(), {
        timeout: 10_000,
      })
      .toMatch(/^Bare · /);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
