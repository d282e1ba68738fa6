/**
 * The Activity page in Chromium against `npm run console`: it lists the operator's actions by
 * default (an entry from before the `origin` field counts as the operator's), hides the
 * console's own background commands (demo mode's set-up and clean-up, an `already gone`
 * clean-up) until the toggle asks for them, marks them `console`, and never shows an
 * `already gone` clean-up as a failure. Screenshots at 1280 and 390 px go to
 * test-results/activity-*.png (no horizontal overflow).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const LOCAL = { connectionId: 'local' };

async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SHOTS, `activity-${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, `activity-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

const targets = (page: Page) =>
  page
    .getByTestId('activity-entry')
    .evaluateAll((items) =>
      items.map((item) => `${item.getAttribute('data-origin')} ${item.textContent ?? ''}`),
    );

/** Activity written by an older console in `dataDir`, before this one starts. */
function seedActivity(dataDir: string): void {
  // An entry written before `origin` existed, and a console clean-up that found nothing.
  const base = { actor: 'console (alice)', connectionId: 'local', durationMs: 2 };
  const old = [
    {
      ...base,
      seq: 1,
      at: Date.now() - 60_000,
      action: 'set_realm_auth',
      target: 'legacy-realm',
      params: { realm: 'legacy-realm', required: true },
      ok: true,
      error: null,
    },
    {
      ...base,
      seq: 2,
      at: Date.now() - 30_000,
      origin: 'console',
      action: 'remove_realm',
      target: 'switchboard-demo',
      params: { realm: 'switchboard-demo' },
      ok: true,
      error: null,
      note: 'already gone',
    },
  ];
  writeFileSync(
    path.join(dataDir, 'console-activity.jsonl'),
    old.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
    { mode: 0o600 },
  );
}

describe('Activity page: operator actions and the console’s own', () => {
  const fx = consoleFixture('switchboard-e2e-activity-', { beforeStart: seedActivity });

  beforeAll(async () => {
    await callApi(fx.app, 'createRealm', {
      ...LOCAL,
      realm: 'ops-realm',
      authRequired: true,
      ephemeral: false,
    });
    await callApi(fx.app, 'startDemo', LOCAL);
    await callApi(fx.app, 'stopDemo', LOCAL);
  }, 60_000);

  it('shows operator actions by default and the console’s own on request', async () => {
    await fx.page.getByTestId('nav-activity').click();
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(2);
    const operator = await targets(fx.page);
    expect(operator[0]).toMatch(/^operator .*Create realm · ops-realm · on Local broker/);
    expect(operator[1]).toMatch(/^operator .*Require auth · legacy-realm · on Local broker/);
    expect(await fx.page.getByTestId('activity-origin').count()).toBe(0);
    expect(await fx.page.getByTestId('activity-include-console').isChecked()).toBe(false);
    await shoot(fx.page, 'operator');

    await fx.page.getByTestId('activity-include-console').check();
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(5);
    const all = await targets(fx.page);
    const consoleOwn = all.filter((entry) => entry.startsWith('console '));
    expect(consoleOwn).toHaveLength(3);
    expect(consoleOwn.every((entry) => entry.includes('switchboard-demo'))).toBe(true);
    expect(await fx.page.getByTestId('activity-origin').count()).toBe(3);
    // No failure anywhere; the clean-up that found nothing says so.
    expect(
      await fx.page.locator('[data-testid="activity-entry"] [data-state="failed"]').count(),
    ).toBe(0);
    expect(await fx.page.getByTestId('activity-note').allTextContents()).toEqual(['already gone']);
    await shoot(fx.page, 'all');

    // New console commands arrive live while the toggle is on, and vanish when it is off.
    await callApi(fx.app, 'startDemo', LOCAL);
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(6);
    await fx.page.getByTestId('activity-include-console').uncheck();
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(2);
    // …and do not arrive while it is off.
    await callApi(fx.app, 'stopDemo', LOCAL);
    await callApi(fx.app, 'setRealmFlag', {
      ...LOCAL,
      realm: 'ops-realm',
      flag: 'acceptance',
      value: false,
    });
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(3);
    expect((await targets(fx.page)).every((entry) => entry.startsWith('operator '))).toBe(true);
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);
});
