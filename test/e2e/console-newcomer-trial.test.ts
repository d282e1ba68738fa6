/**
 * What a newcomer's operator trial of the console found (trial findings 15–24), clicked through
 * in Chromium against `npm run console` and its real local broker:
 *   - 15: a 600-realm definitions file (about 142 KB) read into Import shows its differences;
 *     a file over the import's limit says how to split it, without a call to the host;
 *   - 17/18: the export summary and the diff name tokens by role and realm ("admin token (all
 *     realms)"), the diff names its target broker, "Also remove" counts only what it removes;
 *   - 19: unsaved edits of the settings file survive a visit to Overview;
 *   - 20/22/23: the test publishers state their caps, show one outcome each (an edit hides it, a
 *     failure replaces a success), and say when no subscriber received the message;
 *   - 24: errors read as what to check, not as the host's or broker's internal texts;
 *   - 8/12: a topic's chart fields can be switched off (one y-axis fits the rest); Subs is
 *     empty on a level, a count on a topic;
 * Screenshots at 1280 and 390 px go to test-results/newcomer-*.png.
 */
import path from 'node:path';
import { type Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DefinitionsExport } from '../../shared/console-api-definitions';
import { MAX_DEFINITIONS_CHARS } from '../../shared/definitions-document';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { openSection } from '../support/console-nav';
import { consoleFixture } from '../support/console-fixture';
import { callApi, freePort } from '../support/console-process';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const LOCAL = { connectionId: 'local' };

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).first().textContent();

/** Screenshots of the page at 1280 and 390 px wide, back at 1280 afterwards. */
async function shots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `newcomer-${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, `newcomer-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('console findings of a newcomer trial', () => {
  const fx = consoleFixture('switchboard-e2e-newcomer-', { mqtt: true });
  // Each test checks the page errors of its own steps (some expect a refused call).
  beforeEach(() => {
    fx.pageErrors.splice(0);
  });

  it('imports a 600-realm definitions file, and says how to split one that is too big', async () => {
    const exported = await callApi<DefinitionsExport>(fx.app, 'exportDefinitions', LOCAL);
    const doc = JSON.parse(exported.text) as { realms: Array<Record<string, unknown>> };
    const template = doc.realms.find((r) => r.name === 'default')!;
    for (let i = 0; i < 600; i += 1) doc.realms.push({ ...template, name: `fleet-${i}` });
    const big = JSON.stringify(doc, null, 2);
    expect(big.length).toBeGreaterThan(128 * 1024);

    await openSection(fx.page, 'definitions');
    // Chosen as a file: typing 140 KB into the text area takes Playwright longer than a test.
    const file = (name: string, content: string) =>
      fx.page.getByTestId('definitions-file').setInputFiles({
        name,
        mimeType: 'application/json',
        buffer: Buffer.from(content),
      });
    await file('fleet.json', big);
    await expect
      .poll(async () => (await fx.page.getByTestId('definitions-text').inputValue()).length)
      .toBe(big.length);
    await fx.page.getByTestId('definitions-preview').click();
    await expect
      .poll(() => text(fx.page, 'definitions-preview-message'), { timeout: 20_000 })
      .toContain('600 added');
    expect(await fx.page.getByTestId('definitions-import-error').count()).toBe(0);
    expect(
      await fx.page.locator('[data-testid="definitions-row"][data-status="added"]').count(),
    ).toBe(600);

    await file('too-big.json', 'x'.repeat(MAX_DEFINITIONS_CHARS + 1));
    await expect.poll(() => fx.page.getByTestId('definitions-diff-panel').count()).toBe(0);
    await fx.page.getByTestId('definitions-preview').click();
    await expect
      .poll(() => text(fx.page, 'definitions-import-error'))
      .toContain('Split it into several files');
    await shots(fx.page, 'definitions-too-big');
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);

  it('names tokens by role and realm, the target broker, and counts only removals it sends', async () => {
    await openSection(fx.page, 'definitions');
    const [download] = await Promise.all([
      fx.page.waitForEvent('download'),
      fx.page.getByTestId('definitions-export').click(),
    ]);
    await download.cancel();
    const summary = (await text(fx.page, 'definitions-export-message')) ?? '';
    expect(summary).toMatch(/\d+ tokens? \(metadata only\)/);
    expect(summary).not.toContain('client token');

    // The file lacks a realm the broker has, and the broker's global admin token.
    await callApi(fx.app, 'createRealm', {
      ...LOCAL,
      realm: 'extra',
      authRequired: true,
      ephemeral: false,
    });
    const exported = await callApi<DefinitionsExport>(fx.app, 'exportDefinitions', LOCAL);
    const doc = JSON.parse(exported.text) as {
      realms: Array<{ name: string }>;
      tokens: Array<{ realm: string; role: string }>;
    };
    expect(doc.tokens).toContainEqual(expect.objectContaining({ realm: '*', role: 'admin' }));
    doc.realms = doc.realms.filter((r) => r.name !== 'extra');
    doc.tokens = [];
    await fx.page.getByTestId('definitions-text').fill(JSON.stringify(doc));
    await fx.page.getByTestId('definitions-preview').click();
    const rows = fx.page.locator('[data-testid="definitions-row"][data-status="removed"]');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await text(fx.page, 'definitions-diff-title')).toBe('Differences with Local broker');
    const admin = rows.filter({ hasText: 'not applied' });
    expect(await admin.textContent()).toContain('admin token (all realms)');
    expect(await fx.page.getByTestId('definitions-diff').textContent()).not.toContain(
      'Client token',
    );
    const removals = fx.page.locator('label', { has: fx.page.getByTestId('definitions-removals') });
    expect(await removals.textContent()).toContain('Also remove what the file does not have (1)');
    await fx.page.getByTestId('definitions-removals').check();
    await fx.page.getByTestId('definitions-apply').click();
    expect(await text(fx.page, 'definitions-confirm')).toContain(
      'to Local broker, and remove 1 item?',
    );
    await shots(fx.page, 'definitions-diff');
    await fx.page.getByTestId('definitions-confirm-no').click();
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);

  it('publishes with one outcome per form, and says when nobody received it', async () => {
    await openSection(fx.page, 'tap');
    const json = fx.page.getByTestId('publish-json');
    expect(await fx.page.locator('label', { has: json }).textContent()).toContain(
      'up to 262,144 characters',
    );
    await fx.page.getByTestId('publish-event').fill('trial/nobody');
    await json.fill(JSON.stringify({ blob: 'x'.repeat(100_000) }));
    await fx.page.getByTestId('publish-send').click();
    await expect
      .poll(() => text(fx.page, 'publish-result'), { timeout: 15_000 })
      .toContain('Published trial/nobody to default');
    expect(await text(fx.page, 'publish-result')).toContain('no subscriber received it');
    // An edit hides the outcome of the fields sent before.
    await json.fill('{"a": 1}');
    await expect.poll(() => fx.page.getByTestId('publish-result').count()).toBe(0);

    await fx.page.getByTestId('publish-protocol-mqtt').click();
    await fx.page.getByTestId('mqtt-topic').fill('trial/mqtt');
    await fx.page.getByTestId('mqtt-payload').fill('{"ok": true}');
    await fx.page.getByTestId('mqtt-qos').selectOption('1');
    await fx.page.getByTestId('mqtt-send').click();
    await expect
      .poll(() => text(fx.page, 'mqtt-result'), { timeout: 15_000 })
      .toContain('no subscriber received it');
    // A failed attempt replaces the success: never two outcomes at once.
    await fx.page.getByTestId('mqtt-port').fill(String(await freePort()));
    await fx.page.getByTestId('mqtt-send').click();
    await fx.page.getByTestId('mqtt-error').waitFor({ timeout: 15_000 });
    expect(await fx.page.getByTestId('mqtt-result').count()).toBe(0);
    await shots(fx.page, 'tap-publish');
    await fx.page.getByTestId('mqtt-port').fill('');
    await expect.poll(() => fx.page.getByTestId('mqtt-error').count()).toBe(0);
    await fx.page.getByTestId('mqtt-send').click();
    await fx.page.getByTestId('mqtt-result').waitFor({ timeout: 15_000 });
    expect(await fx.page.getByTestId('mqtt-error').count()).toBe(0);
    expect(fx.pageErrors.filter((e) => !/status of 50\d/.test(e))).toEqual([]);
  }, 90_000);

  it('words a bad field and a refused token for an operator', async () => {
    await openSection(fx.page, 'connections');
    await fx.page.getByTestId('connection-add').click();
    await fx.page.getByTestId('connection-name').fill('staging');
    await fx.page.getByTestId('connection-url').fill('ftp://example.invalid');
    await fx.page.getByTestId('connection-secret').fill('not-the-token');
    await fx.page.getByTestId('connection-draft-test').click();
    await expect
      .poll(() => text(fx.page, 'connection-draft-error'))
      .toContain('Check the URL — must be an http://');
    expect(await text(fx.page, 'connection-draft-error')).not.toContain('Invalid input for');

    await fx.page.getByTestId('connection-url').fill(fx.brokerUrl);
    await fx.page.getByTestId('connection-draft-test').click();
    const credential = fx.page
      .getByTestId('connection-draft-report')
      .getByTestId('test-layer-credential');
    await expect
      .poll(() => credential.textContent(), { timeout: 15_000 })
      .toContain("The broker refused the admin token (401): check the connection's token");
    expect(await credential.textContent()).not.toContain('AUTH_MANAGEMENT_COMMAND');
    await shots(fx.page, 'connection-errors');
    expect(fx.pageErrors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  }, 60_000);

  it('switches chart fields off, and shows Subs only on topics', async () => {
    await openSection(fx.page, 'topics');
    await fx.page.getByTestId('topics-state').filter({ hasText: 'watching' }).waitFor();
    const producer = await fx.connect();
    await new Promise<void>((resolve, reject) => {
      producer.once(ServerEvent.AUTH_OK, () => resolve());
      producer.once(ServerEvent.AUTH_FAIL, (r) => reject(new Error(JSON.stringify(r))));
      producer.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role: 'producer' });
    });
    for (let i = 0; i < 3; i += 1) {
      await producer.emitWithAck(ClientEvent.PRODUCE, {
        event: 'newcomer/plant/m',
        from: 'plc',
        message: { temp: 20 + i, count: 35_000 + i },
      });
    }
    const row = (p: string) => fx.page.locator(`[data-testid="topic-row"][data-path="${p}"]`);
    await row('newcomer').getByTestId('topic-toggle').click({ timeout: 15_000 });
    await row('newcomer/plant').getByTestId('topic-toggle').click();
    await expect
      .poll(() => row('newcomer/plant/m').getByTestId('topic-subs').textContent())
      .toBe('0');
    expect(await row('newcomer').getByTestId('topic-subs').textContent()).toBe('');

    await row('newcomer/plant/m').getByTestId('topic-open').click();
    await fx.page.getByTestId('topic-chart').waitFor();
    const legend = () =>
      fx.page.getByTestId('topic-chart').locator('.ops-legend li').allInnerTexts();
    await expect.poll(legend).toEqual(['temp', 'count']);
    await fx.page.locator('[data-testid="topic-chart-field"][data-field="count"]').uncheck();
    await expect.poll(legend).toEqual(['temp']);
    await shots(fx.page, 'topic-fields');
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);

  it('keeps unsaved settings edits across a visit to Overview', async () => {
    await openSection(fx.page, 'local');
    const editor = fx.page.getByTestId('settings-text');
    await expect.poll(() => editor.inputValue()).not.toBe('');
    const disk = await editor.inputValue();
    const edited = JSON.stringify({ ...JSON.parse(disk), ack_timeout: '45s' }, null, 2);
    await editor.fill(edited);
    await expect.poll(() => text(fx.page, 'settings-valid')).toContain('Valid.');

    await openSection(fx.page, 'overview');
    await fx.page.getByTestId('overview-status').waitFor();
    await openSection(fx.page, 'local');
    await expect.poll(() => editor.inputValue()).toBe(edited);
    expect(await text(fx.page, 'settings-draft-restored')).toContain('unsaved edits are back');
    await expect.poll(() => fx.page.getByTestId('settings-save').isEnabled()).toBe(true);
    await shots(fx.page, 'settings-draft');

    // Reload from disk drops the draft: the next visit shows the file.
    await fx.page.getByTestId('settings-revert').click();
    await expect.poll(() => editor.inputValue()).toBe(disk);
    expect(await fx.page.getByTestId('settings-draft-restored').count()).toBe(0);
    await openSection(fx.page, 'overview');
    await fx.page.getByTestId('overview-status').waitFor();
    await openSection(fx.page, 'local');
    await expect.poll(() => editor.inputValue()).toBe(disk);
    expect(await fx.page.getByTestId('settings-draft-restored').count()).toBe(0);
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);
});
