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
import { type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ActivityList } from '../../shared/console-api-activity';
import type { RealmList } from '../../shared/console-api';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;
const KEY = 'mk-e2e-secret-7f3a';

const historyShown = (page: Page): Promise<Array<string | null>> =>
  page
    .getByTestId('command-history-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-command')));

describe('commands view end to end', () => {
  const fx = consoleFixture('switchboard-e2e-commands-');

  const choose = async (search: string, command: string): Promise<void> => {
    await fx.page.getByTestId('command-search').fill(search);
    await fx.page.locator(`[data-testid="command-option"][data-command="${command}"]`).click();
    await fx.page.getByTestId('command-editor').waitFor();
  };
  const previewAndSend = async (): Promise<void> => {
    await fx.page.getByTestId('command-preview').click();
    await fx.page.getByTestId('command-envelope').waitFor();
    await fx.page.getByTestId('command-send').click();
  };

  it('picks, previews masked, sends, shows the reply and the history', async () => {
    await fx.page.getByTestId('nav-commands').click();
    await fx.page.getByTestId('command-none').waitFor();

    // Search narrows the grouped list.
    await fx.page.getByTestId('command-search').fill('realm key');
    const names = await fx.page
      .getByTestId('command-option')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-command')));
    expect(names).toContain('set_realm_key');
    expect(names).not.toContain('stats');

    await choose('add realm', 'add_realm');
    await fx.page.getByTestId('command-field-realm').fill('cmd-e2e');
    await fx.page.getByTestId('command-field-manager_key').fill(KEY);
    await fx.page.getByTestId('command-field-required').selectOption('true');
    expect(await fx.page.getByTestId('command-send').isDisabled()).toBe(true);
    await fx.page.getByTestId('command-preview').click();
    const envelope = JSON.parse(
      (await fx.page.getByTestId('command-envelope').textContent()) ?? '',
    ) as { body: Record<string, unknown>; proof: Record<string, unknown> };
    expect(envelope).toEqual({
      body: { command: 'add_realm', manager_key: '••••', realm: 'cmd-e2e', required: true },
      proof: { nonce: '••••', signature: '••••', timestamp: '••••' },
    });
    expect(await fx.page.getByTestId('command-envelope-box').textContent()).not.toContain(KEY);
    // An edit drops the preview: what is sent is what was shown.
    await fx.page.getByTestId('command-field-realm').fill('cmd-e2e-2');
    await fx.page.getByTestId('command-envelope').waitFor({ state: 'detached' });
    await fx.page.getByTestId('command-field-realm').fill('cmd-e2e');
    await previewAndSend();
    await expect
      .poll(() => fx.page.getByTestId('command-reply-status').textContent())
      .toMatch(/^ok in \d+ ms/);
    expect(await fx.page.getByTestId('command-reply-tree').textContent()).toMatch(
      /^▾\{"ok": true,"settings": ▾\{"enabled": true,"realms"/,
    );
    const realms = await callApi<RealmList>(fx.app, 'listRealms', { connectionId: 'local' });
    expect(realms.realms.find((r) => r.name === 'cmd-e2e')?.managerKeyConfigured).toBe(true);

    await choose('stats', 'stats');
    await fx.page.getByTestId('command-no-params').waitFor();
    await previewAndSend();
    await expect
      .poll(() => fx.page.getByTestId('command-reply-tree').textContent())
      .toContain('"stats"');
    await expect.poll(() => historyShown(fx.page)).toEqual(['stats', 'add_realm']);

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.screenshot({ path: path.join(SHOTS, 'commands-1280.png'), fullPage: true });
    }

    // History refills the form; the secret is not kept.
    await fx.page.locator('[data-testid="command-history-item"][data-command="add_realm"]').click();
    expect(await fx.page.getByTestId('command-field-realm').inputValue()).toBe('cmd-e2e');
    expect(await fx.page.getByTestId('command-field-manager_key').inputValue()).toBe('');

    // A destructive command asks first.
    await choose('remove realm', 'remove_realm');
    await fx.page.getByTestId('command-field-realm').fill('cmd-e2e');
    await previewAndSend();
    await fx.page.getByTestId('command-send-confirm').waitFor();
    if (SHOTS) {
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await fx.page.screenshot({ path: path.join(SHOTS, 'commands-390.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 1280, height: 900 });
    }
    await fx.page.getByTestId('command-send-confirm-yes').click();
    await expect
      .poll(() => fx.page.getByTestId('command-reply-status').textContent())
      .toMatch(/^ok in/);
    await expect.poll(() => historyShown(fx.page)).toEqual(['remove_realm', 'stats', 'add_realm']);

    const activity = await callApi<ActivityList>(fx.app, 'listActivity', {
      actions: ['add_realm', 'remove_realm'],
    });
    expect(activity.entries.map((e) => [e.action, e.ok])).toEqual([
      ['remove_realm', true],
      ['add_realm', true],
    ]);
    expect(activity.entries[1]!.params).toMatchObject({ realm: 'cmd-e2e', manager_key: '<set>' });
    expect(JSON.stringify(activity)).not.toContain(KEY);
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);
});
