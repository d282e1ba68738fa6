/**
 * The Local broker view against `npm run console` (at log level info) in Chromium, and
 * `switchboard-admin` against that console's broker (issue 22 items 3, 4, 14):
 *   - the console's own polling (`get`, `stats`, `dlq_list`) is not in the log at info, a
 *     command that changes something is;
 *   - the log's level filter and search narrow the lines, with a count;
 *   - the settings editor warns, with its path, about a key the broker accepts but ignores
 *     (`limits.max_connections`), the save result names it instead of "uses it now", and the
 *     broker logs the same key on reload;
 *   - `switchboard-admin --console-data-dir` signs with the console's token without printing it,
 *     and finds the broker's port from `local-broker.json` (no `--url`).
 * Screenshots at 1280 and 390 px go to test-results/local-broker-*.png (no horizontal overflow).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runAdminCli } from '../../broker/admin-cli/main';
import { ClientEvent } from '../../shared/protocol-events';
import { openSection } from '../support/console-nav';
import { localAdminToken } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.SHOTS_DIR ?? path.join(REPO, 'test-results');

const logText = (page: Page): Promise<string> => page.getByTestId('local-log').innerText();

async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({
    path: path.join(SHOTS, `local-broker-${name}-1280.png`),
    fullPage: true,
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, `local-broker-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('Local broker view: log filter, quiet polling, settings warnings', () => {
  const fx = consoleFixture('switchboard-e2e-local-broker-', { console: { logLevel: 'info' } });

  it('keeps polling out of the info log; filters by level and text', async () => {
    await openSection(fx.page, 'local');
    // Reads first (as the console's pollers do), then a change: once the change is in the
    // log, the reads before it would be too if they were logged at info.
    for (const command of ['get', 'stats', 'dlq_list']) {
      expect((await fx.manager().command({ command })).ok).toBe(true);
    }
    expect((await fx.manager().command({ command: 'add_realm', realm: 'org:logged' })).ok).toBe(
      true,
    );
    const intruder = await fx.connect();
    intruder.emit(ClientEvent.AUTHENTICATION, { token: 'not-a-token', realm: 'org:logged' });
    await expect.poll(() => logText(fx.page), { timeout: 15_000 }).toMatch(/token refused/);
    const all = await logText(fx.page);
    expect(all).toMatch(/management command.*"command":"add_realm"/);
    expect(all).not.toMatch(/"command":"(get|stats|dlq_list)"/);

    await fx.page.getByTestId('local-log-level').selectOption('40');
    await expect
      .poll(async () =>
        (await logText(fx.page)).split('\n').every((l) => /^\S+ (warn |error|fatal)/.test(l)),
      )
      .toBe(true);
    expect(await logText(fx.page)).toContain('token refused');
    expect(await logText(fx.page)).not.toContain('add_realm');
    await shoot(fx.page, 'log-filter');
    await fx.page.getByTestId('local-log-level').selectOption('0');
    await fx.page.getByTestId('local-log-search').fill('ADD_REALM');
    await expect.poll(() => logText(fx.page)).toMatch(/^[^\n]*add_realm[^\n]*$/);
    const total = Number(await fx.page.getByTestId('local-log').getAttribute('data-lines'));
    expect(await fx.page.getByTestId('local-log-count').textContent()).toBe(`1 of ${total} lines`);
    await fx.page.getByTestId('local-log-search').fill('no line says this');
    await expect.poll(() => logText(fx.page)).toContain('No line matches the filter');
    await fx.page.getByTestId('local-log-search').fill('');
  }, 60_000);

  it('warns about a key the broker ignores, and the save result names it', async () => {
    const settingsPath = (await fx.page.getByTestId('settings-path').textContent()) ?? '';
    await expect.poll(() => fx.page.getByTestId('settings-text').inputValue()).not.toBe('');
    const next = JSON.parse(readFileSync(settingsPath, 'utf8')) as Record<string, unknown>;
    next.limits = { enabled: true, max_connections: 100 };
    await fx.page.getByTestId('settings-text').fill(JSON.stringify(next, null, 2));
    await expect
      .poll(() => fx.page.getByTestId('settings-valid').textContent())
      .toBe('Valid. The broker ignores one key, listed below.');
    expect(await fx.page.getByTestId('settings-warning').allTextContents()).toEqual([
      'limits.max_connections: settings key accepted but not implemented in this build: the broker ignores it',
    ]);
    await shoot(fx.page, 'settings-warning');
    await fx.page.getByTestId('settings-save').click();
    await expect
      .poll(() => fx.page.getByTestId('settings-saved').textContent(), { timeout: 15_000 })
      .toBe(
        'Saved. The broker reloaded the file and uses it now, except limits.max_connections, which it ignores (not implemented).',
      );
    // The broker names the same key when it reloads the file.
    await expect
      .poll(() => logText(fx.page), { timeout: 15_000 })
      .toMatch(
        /warn\s+settings key accepted but not implemented in this build \{[^}]*"key":"limits.max_connections"\}/,
      );
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);

  it("lets switchboard-admin sign with the console's token from its data directory", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(
      // No --url: the console wrote its broker's address (a free port here) beside its token.
      ['--console-data-dir', fx.dataDir, 'realm', 'list'],
      {
        env: { TYO_MQ_ENV_FILE: path.join(fx.dir.path, 'none.env') },
        stdout: (t) => out.push(t),
        stderr: (t) => err.push(t),
      },
    );
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out.join('\n')).toMatch(/org:logged\s+required/);
    expect(out.join('\n')).not.toContain(localAdminToken(fx.dataDir));
    expect(JSON.parse(readFileSync(path.join(fx.dataDir, 'local-broker.json'), 'utf8'))).toEqual({
      version: 1,
      url: fx.brokerUrl,
    });
  }, 30_000);
});
