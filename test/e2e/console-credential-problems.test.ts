/**
 * End to end: a remote connection the console cannot manage. A second broker runs with auth on
 * and an admin token; the console gets a profile for it with a WRONG admin token, and one with
 * no credential. For each, in Chromium, the Dead letters and Realms views say what failed (the
 * broker refused the credential / no credential is set) and what to do, with a button that opens
 * that connection's editor in Connections; Realms does not stay "loading", Dead letters does not
 * claim the DLQ is empty nor blame a stopped broker. Entering the right token there fixes both.
 * Screenshots (1280 and 390 px) go to test-results/nav-*.png.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { startConsole, type RunningConsole, stopConsole } from '../support/console-process';
import { addConnection, openSection } from '../support/console-nav';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const REMOTE_ADMIN = 'remote-admin-token-e2e-77d0c1a9e4b2';

const text = async (page: Page, testId: string): Promise<string> =>
  (await page.getByTestId(testId).first().textContent()) ?? '';

async function noOverflow(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `nav-${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await noOverflow(page);
  await page.screenshot({ path: path.join(SHOTS, `nav-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe('views of a connection without a working credential', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let remote: BrokerProcess | null = null;
  let browser: Browser | null = null;

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-credential-');
  }, 10_000);

  afterAll(async () => {
    await browser?.close();
    await stopConsole(app, 'SIGKILL');
    await remote?.stop();
    await dir.remove();
  }, 30_000);

  it('says the credential failed and leads to the connection editor', async () => {
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
      [
        '--port',
        '0',
        '--storage',
        'memory',
        '--data-dir',
        path.join(dir.path, 'remote'),
        '--settings',
        settingsFile,
      ],
      20_000,
      { TYO_MQ_ENV_FILE: path.join(dir.path, 'remote.env') },
    );
    app = await startConsole(path.join(dir.path, 'data'));
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.url);
    await expect.poll(() => text(page, 'overview-status'), { timeout: 15_000 }).toBe('running');

    await addConnection(page, 'Wrong', `${remote.url}/`, 'not-the-admin-token');
    await addConnection(page, 'Bare', `${remote.url}/`, null);

    // A wrong admin token: the broker's refusal, and the way to fix it.
    await page.getByTestId('connection-switcher').selectOption({ label: 'Wrong' });
    // The broker answers, but refuses the token: "refused", not "unreachable".
    await openSection(page, 'overview');
    await expect.poll(() => text(page, 'connection-state'), { timeout: 20_000 }).toBe('refused');
    await expect.poll(() => text(page, 'overview-status'), { timeout: 20_000 }).toBe('refused');
    await expect
      .poll(() => text(page, 'chart-unreachable'), { timeout: 20_000 })
      .toMatch(/refused this connection's admin token/);
    await shoot(page, 'overview-refused');
    await openSection(page, 'dead-letters');
    const dlq = page.getByTestId('dlq-credential-problem');
    await expect.poll(() => dlq.count(), { timeout: 20_000 }).toBe(1);
    expect(await dlq.textContent()).toMatch(/refused/i);
    expect(await dlq.textContent()).toContain('Wrong');
    expect(await dlq.textContent()).not.toContain('check that the broker is running');
    expect(await page.getByTestId('dlq-empty').count()).toBe(0);
    await shoot(page, 'dead-letters-refused');

    await openSection(page, 'realms');
    const realms = page.getByTestId('realms-credential-problem');
    await expect.poll(() => realms.count(), { timeout: 20_000 }).toBe(1);
    expect(await realms.textContent()).toMatch(/refused/i);
    expect(
      await page.getByTestId('realms-view').locator('.page__header').textContent(),
    ).not.toContain('loading');
    await shoot(page, 'realms-refused');
    await openSection(page, 'tokens');
    const tokens = page.getByTestId('tokens-credential-problem');
    await expect.poll(() => tokens.count(), { timeout: 20_000 }).toBe(1);
    expect(await tokens.textContent()).toMatch(/refused/i);
    await openSection(page, 'realms');

    // The button opens this connection's editor; the right token fixes the views.
    await realms.getByTestId('realms-credential-problem-action').click();
    await expect.poll(() => page.getByTestId('connections-view').count()).toBe(1);
    expect(await page.evaluate(() => window.location.hash)).toMatch(/^#\/connections/);
    const form = page.getByTestId('connection-form');
    await expect.poll(() => form.count()).toBe(1);
    expect(await form.textContent()).toContain('Edit Wrong');
    await page.getByTestId('connection-secret').fill(REMOTE_ADMIN);
    await page.getByTestId('connection-save').click();
    await expect.poll(() => form.count(), { timeout: 10_000 }).toBe(0);
    // Still the connection in use (an edit does not switch the console to the local broker).
    expect(
      await page.getByTestId('connection-switcher').evaluate((el) => {
        const select = el as HTMLSelectElement;
        return select.options[select.selectedIndex]?.text;
      }),
    ).toBe('Wrong');
    await page.goBack();
    await expect.poll(() => page.getByTestId('realms-view').count()).toBe(1);
    await expect
      .poll(() => page.getByTestId('realms-row-fleet').count(), { timeout: 20_000 })
      .toBe(1);
    expect(await realms.count()).toBe(0);

    // No credential at all: said as such, on both views.
    await page.getByTestId('connection-switcher').selectOption({ label: 'Bare' });
    await expect
      .poll(async () => ((await realms.count()) ? await realms.textContent() : ''), {
        timeout: 20_000,
      })
      .toMatch(/no credential/i);
    await openSection(page, 'dead-letters');
    await expect.poll(() => dlq.count(), { timeout: 20_000 }).toBe(1);
    expect(await dlq.textContent()).toMatch(/no credential/i);
    await shoot(page, 'dead-letters-no-credential');
    await dlq.getByTestId('dlq-credential-problem-action').click();
    await expect.poll(() => form.count()).toBe(1);
    expect(await form.textContent()).toContain('Edit Bare');
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
