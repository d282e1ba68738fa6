/**
 * End to end (issue 22, item 16): a second broker runs with auth on. In Chromium, a new profile
 * is tested before it is saved (a wrong token fails the credential layer and nothing is saved;
 * the right one passes); saved with a wrong token, its card says it is refused and backing off,
 * with a growing count of refusals; the right token clears it. Screenshots at 1280 and 390 px go
 * to `SHOTS_DIR` when it is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { openSection } from '../support/console-nav';
import { startConsole, type RunningConsole, stopConsole } from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const SHOTS = process.env.SHOTS_DIR;
const REMOTE_ADMIN = 'remote-admin-token-draft-5c1f0e9a7b3d';

const text = async (page: Page, testId: string): Promise<string> =>
  (await page.getByTestId(testId).first().textContent()) ?? '';

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe('connection profiles tested before saving, and backing off when refused', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let remote: BrokerProcess | null = null;
  let browser: Browser | null = null;

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-draft-');
  }, 10_000);

  afterAll(async () => {
    await browser?.close();
    await stopConsole(app);
    await remote?.stop();
    await dir.remove();
  }, 30_000);

  it('tests a draft, then shows a refused profile backing off', async () => {
    const settingsFile = path.join(dir.path, 'remote-settings.json');
    writeFileSync(
      settingsFile,
      JSON.stringify({
        auth: {
          enabled: true,
          tokens: [{ token: REMOTE_ADMIN, realm: '*', role: 'admin' }],
          realms: { default: { required: false } },
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

    await openSection(page, 'connections');
    await page.getByTestId('connection-add').click();
    await page.getByTestId('connection-name').fill('Edge');
    await page.getByTestId('connection-url').fill(`${remote.url}/`);
    await page.getByTestId('connection-secret').fill('not-the-admin-token');

    // A wrong token: the credential layer fails, and nothing is saved.
    await page.getByTestId('connection-draft-test').click();
    const report = page.getByTestId('connection-draft-report');
    await expect.poll(() => report.getAttribute('data-ok'), { timeout: 15_000 }).toBe('false');
    expect(await report.getByTestId('test-layer-socket').getAttribute('data-status')).toBe('ok');
    expect(await report.getByTestId('test-layer-credential').getAttribute('data-status')).toBe(
      'failed',
    );
    expect(await page.getByTestId('connection-Edge').count()).toBe(0);
    await shoot(page, 'connections-draft-failed');

    // The right token passes every layer.
    await page.getByTestId('connection-secret').fill(REMOTE_ADMIN);
    await page.getByTestId('connection-draft-test').click();
    await expect.poll(() => report.getAttribute('data-ok'), { timeout: 15_000 }).toBe('true');
    expect(await page.getByTestId('connection-Edge').count()).toBe(0);

    // Saved with a wrong token: refused, backing off, the refusals counted.
    await page.getByTestId('connection-secret').fill('still-not-the-admin-token');
    await page.getByTestId('connection-save').click();
    const card = page.getByTestId('connection-Edge');
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    await expect
      .poll(() => text(page, 'connection-state-Edge'), { timeout: 15_000 })
      .toBe('refused · backing off');
    const backoff = card.getByTestId('connection-backoff');
    expect(await backoff.textContent()).toMatch(
      /^Refused (once|\d+ times in a row) \(admin token\): backing off, next try (in \d+ s|now)/,
    );
    const first = Number(await backoff.getAttribute('data-refusals'));
    await expect
      .poll(async () => Number(await backoff.getAttribute('data-refusals')), { timeout: 20_000 })
      .toBeGreaterThan(first);
    await shoot(page, 'connections-backing-off');

    // The right token: online again, no backoff.
    await card.getByTestId('connection-edit').click();
    await page.getByTestId('connection-secret').fill(REMOTE_ADMIN);
    await page.getByTestId('connection-save').click();
    await expect
      .poll(() => text(page, 'connection-state-Edge'), { timeout: 15_000 })
      .toBe('online');
    expect(await card.getByTestId('connection-backoff').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
