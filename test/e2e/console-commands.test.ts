/**
 * End to end (issue 27): the Commands view against the console's real local broker in Chromium.
 * Search the catalogue, fill `add_realm`'s generated form (a manager key among the fields),
 * Preview shows the signed envelope with proof and key masked, Send creates the realm (the
 * reply as a JSON tree), `stats` shows the new realm's numbers, a destructive `remove_realm`
 * asks first, History lists the runs and refills the form (the key left empty), and Activity
 * records the commands with the key as `<set>`. Screenshots at 1280 and 390 px go to
 * `SHOTS_DIR` when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityList } from '../../shared/console-api-activity';
import type { RealmList } from '../../shared/console-api';
import { openConsolePage } from '../support/console-page';
import {
  callApi,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const SHOTS = process.env.SHOTS_DIR;
const KEY = 'mk-e2e-secret-7f3a';

const historyShown = (page: Page): Promise<Array<string | null>> =>
  page
    .getByTestId('command-history-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-command')));

describe('commands view end to end', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-commands-');
    app = await startConsole(path.join(dir.path, 'data'));
    ({ browser, page } = await openConsolePage(app, pageErrors));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stopConsole(app);
    await dir?.remove();
  }, 30_000);

  const choose = async (search: string, command: string): Promise<void> => {
    await page.getByTestId('command-search').fill(search);
    await page.locator(`[data-testid="command-option"][data-command="${command}"]`).click();
    await page.getByTestId('command-editor').waitFor();
  };
  const previewAndSend = async (): Promise<void> => {
    await page.getByTestId('command-preview').click();
    await page.getByTestId('command-envelope').waitFor();
    await page.getByTestId('command-send').click();
  };

  it('picks, previews masked, sends, shows the reply and the history', async () => {
    await page.getByTestId('nav-commands').click();
    await page.getByTestId('command-none').waitFor();

    // Search narrows the grouped list.
    await page.getByTestId('command-search').fill('realm key');
    const names = await page
      .getByTestId('command-option')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-command')));
    expect(names).toContain('set_realm_key');
    expect(names).not.toContain('stats');

    await choose('add realm', 'add_realm');
    await page.getByTestId('command-field-realm').fill('cmd-e2e');
    await page.getByTestId('command-field-manager_key').fill(KEY);
    await page.getByTestId('command-field-required').selectOption('true');
    expect(await page.getByTestId('command-send').isDisabled()).toBe(true);
    await page.getByTestId('command-preview').click();
    const envelope = JSON.parse(
      (await page.getByTestId('command-envelope').textContent()) ?? '',
    ) as { body: Record<string, unknown>; proof: Record<string, unknown> };
    expect(envelope).toEqual({
      body: { command: 'add_realm', manager_key: '••••', realm: 'cmd-e2e', required: true },
      proof: { nonce: '••••', signature: '••••', timestamp: '••••' },
    });
    expect(await page.getByTestId('command-envelope-box').textContent()).not.toContain(KEY);
    // An edit drops the preview: what is sent is what was shown.
    await page.getByTestId('command-field-realm').fill('cmd-e2e-2');
    await page.getByTestId('command-envelope').waitFor({ state: 'detached' });
    await page.getByTestId('command-field-realm').fill('cmd-e2e');
    await previewAndSend();
    await expect
      .poll(() => page.getByTestId('command-reply-status').textContent())
      .toMatch(/^ok in \d+ ms/);
    expect(await page.getByTestId('command-reply-tree').textContent()).toMatch(
      /^▾\{"ok": true,"settings": ▾\{"enabled": true,"realms"/,
    );
    const realms = await callApi<RealmList>(app, 'listRealms', { connectionId: 'local' });
    expect(realms.realms.find((r) => r.name === 'cmd-e2e')?.managerKeyConfigured).toBe(true);

    await choose('stats', 'stats');
    await page.getByTestId('command-no-params').waitFor();
    await previewAndSend();
    await expect
      .poll(() => page.getByTestId('command-reply-tree').textContent())
      .toContain('"stats"');
    await expect.poll(() => historyShown(page)).toEqual(['stats', 'add_realm']);

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'commands-1280.png'), fullPage: true });
    }

    // History refills the form; the secret is not kept.
    await page.locator('[data-testid="command-history-item"][data-command="add_realm"]').click();
    expect(await page.getByTestId('command-field-realm').inputValue()).toBe('cmd-e2e');
    expect(await page.getByTestId('command-field-manager_key').inputValue()).toBe('');

    // A destructive command asks first.
    await choose('remove realm', 'remove_realm');
    await page.getByTestId('command-field-realm').fill('cmd-e2e');
    await previewAndSend();
    await page.getByTestId('command-send-confirm').waitFor();
    if (SHOTS) {
      await page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await page.screenshot({ path: path.join(SHOTS, 'commands-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await page.getByTestId('command-send-confirm-yes').click();
    await expect
      .poll(() => page.getByTestId('command-reply-status').textContent())
      .toMatch(/^ok in/);
    await expect.poll(() => historyShown(page)).toEqual(['remove_realm', 'stats', 'add_realm']);

    const activity = await callApi<ActivityList>(app, 'listActivity', {
      actions: ['add_realm', 'remove_realm'],
    });
    expect(activity.entries.map((e) => [e.action, e.ok])).toEqual([
      ['remove_realm', true],
      ['add_realm', true],
    ]);
    expect(activity.entries[1]!.params).toMatchObject({ realm: 'cmd-e2e', manager_key: '<set>' });
    expect(JSON.stringify(activity)).not.toContain(KEY);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
