/**
 * Light and dark themes in Chromium against `npm run console`: the Overview follows the system's
 * colour scheme, the top-bar toggle overrides it and is remembered across reloads, and both
 * themes fit 1280 px and 390 px without horizontal overflow. Screenshots:
 * test-results/overview-light.png, overview-dark.png, overview-dark-390.png.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type RunningConsole, stopConsole } from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const RESULTS = path.join(REPO, 'test-results');

const rootBackground = (page: Page): Promise<string> =>
  page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
const overflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
/** Perceived lightness 0..255 of an `rgb(r, g, b)` colour. */
const lightness = (rgb: string): number => {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b;
};

describe('console themes', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-themes-');
    await mkdir(RESULTS, { recursive: true });
  }, 10_000);

  afterAll(async () => {
    await browser?.close();
    await stopConsole(app);
    await dir.remove();
  }, 30_000);

  it('follows the system scheme, and the toggle overrides and remembers it', async () => {
    app = await startConsole(path.join(dir.path, 'data'));
    browser = await launchChromium();
    const context = await browser.newContext({
      colorScheme: 'light',
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(app.url);
    await expect
      .poll(() => page.getByTestId('overview-status').textContent(), { timeout: 20_000 })
      .toBe('running');
    const toggle = page.getByTestId('theme-toggle');

    // System light → light page.
    expect(await toggle.getAttribute('data-theme-preference')).toBe('system');
    expect(lightness(await rootBackground(page))).toBeGreaterThan(200);
    expect(await overflow(page)).toBe(0);
    await page.screenshot({ path: path.join(RESULTS, 'overview-light.png'), fullPage: true });

    // System dark → dark page, with no preference stored.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(async () => lightness(await rootBackground(page))).toBeLessThan(50);

    // Toggle: system → light overrides the dark system scheme…
    await toggle.click();
    expect(await toggle.getAttribute('data-theme-preference')).toBe('light');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(lightness(await rootBackground(page))).toBeGreaterThan(200);
    // …and survives a reload.
    await page.reload();
    await expect
      .poll(() => page.getByTestId('overview-status').textContent(), { timeout: 20_000 })
      .toBe('running');
    expect(await toggle.getAttribute('data-theme-preference')).toBe('light');
    expect(lightness(await rootBackground(page))).toBeGreaterThan(200);

    // light → dark even though the system is now light.
    await page.emulateMedia({ colorScheme: 'light' });
    await toggle.click();
    expect(await toggle.getAttribute('data-theme-preference')).toBe('dark');
    expect(lightness(await rootBackground(page))).toBeLessThan(50);
    expect(await page.evaluate(() => localStorage.getItem('switchboard.theme'))).toBe('dark');
    await page.screenshot({ path: path.join(RESULTS, 'overview-dark.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await overflow(page)).toBe(0);
    await page.screenshot({ path: path.join(RESULTS, 'overview-dark-390.png'), fullPage: true });

    // dark → system: the key is gone and the page follows the system (light) again.
    await toggle.click();
    expect(await toggle.getAttribute('data-theme-preference')).toBe('system');
    expect(await page.evaluate(() => localStorage.getItem('switchboard.theme'))).toBeNull();
    expect(lightness(await rootBackground(page))).toBeGreaterThan(200);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
