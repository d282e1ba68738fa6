/**
 * End to end (issue 27): the Definitions view against the console's real local broker, clicked
 * through in Chromium. Export (hashed) downloads a document with the realms' key hashes and no
 * key; an encrypted export holds the keys only as ciphertext. After the broker drifts (a realm
 * setting changed, a realm added), importing the first file shows the diff — the changed
 * setting, the extra realm as a removal that is not applied unless ticked, the note that hashed
 * keys cannot be set — and Apply (confirmed) restores the setting with a per-row result, which
 * Activity records. Screenshots at 1280 and 390 px go to `SHOTS_DIR` when it is set.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RealmList } from '../../shared/console-api';
import type { ActivityList } from '../../shared/console-api-activity';
import { HASH_ONLY_KEY_NOTE } from '../../shared/definitions-diff';
import { openSection } from '../support/console-nav';
import { openConsolePage } from '../support/console-page';
import {
  callApi,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const SHOTS = process.env.SHOTS_DIR;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('definitions view end to end', () => {
  let dir: TempDir;
  let app: RunningConsole;
  let browser: Browser;
  let page: Page;
  let realmKey = '';
  const pageErrors: string[] = [];
  const connectionId = 'local';

  /** Clicks Export and returns the saved file's path and text. */
  const exportFile = async (): Promise<{ file: string; text: string }> => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('definitions-export').click(),
    ]);
    const file = path.join(dir.path, download.suggestedFilename());
    await download.saveAs(file);
    return { file, text: readFileSync(file, 'utf8') };
  };

  const realm = async (name: string) =>
    (await callApi<RealmList>(app, 'listRealms', { connectionId })).realms.find(
      (r) => r.name === name,
    );

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-definitions-');
    app = await startConsole(path.join(dir.path, 'data'));
    ({ browser, page } = await openConsolePage(app, pageErrors));
    await callApi(app, 'createRealm', {
      connectionId,
      realm: 'east',
      authRequired: true,
      ephemeral: false,
      acceptanceRequired: false,
    });
    ({ secret: realmKey } = await callApi<{ secret: string }>(app, 'revealGeneratedSecret', {
      connectionId,
      kind: 'realmKey',
      realm: 'east',
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stopConsole(app);
    await dir?.remove();
  }, 30_000);

  it('exports hashed and encrypted, then imports with a diff and a confirmed apply', async () => {
    await openSection(page, 'definitions');
    await page.getByTestId('definitions-export-hashed').check();
    const hashed = await exportFile();
    expect(hashed.file).toMatch(/switchboard-definitions-local-\d{4}-\d{2}-\d{2}\.json$/);
    expect(hashed.text).toContain(sha(realmKey));
    expect(hashed.text).not.toContain(realmKey);
    expect(hashed.text).not.toContain('encrypted_keys');
    await expect
      .poll(() => page.getByTestId('definitions-export-message').textContent())
      .toContain('keys as SHA-256 only');

    await page.getByTestId('definitions-export-encrypted').check();
    await page.getByTestId('definitions-export-passphrase').fill('an e2e passphrase');
    // Typed twice: a typo would make the exported keys unrecoverable.
    await page.getByTestId('definitions-export-passphrase-again').fill('an e2e passphrasE');
    await page.getByTestId('definitions-export-mismatch').waitFor();
    expect(await page.getByTestId('definitions-export').isDisabled()).toBe(true);
    await page.getByTestId('definitions-export-passphrase-again').fill('an e2e passphrase');
    const encrypted = await exportFile();
    expect(encrypted.text).toContain('"cipher": "aes-256-gcm"');
    expect(encrypted.text).not.toContain(realmKey);

    // The broker drifts from the first file.
    await callApi(app, 'setRealmFlag', {
      connectionId,
      realm: 'east',
      flag: 'acceptance',
      value: true,
    });
    await callApi(app, 'createRealm', {
      connectionId,
      realm: 'west',
      authRequired: true,
      ephemeral: false,
    });

    await page.getByTestId('definitions-file').setInputFiles(hashed.file);
    await expect.poll(() => page.getByTestId('definitions-text').inputValue()).toContain('east');
    await page.getByTestId('definitions-preview').click();
    const row = (id: string) => page.locator(`[data-testid="definitions-row"][data-id="${id}"]`);
    await row('realm:east').waitFor();
    expect(await row('realm:east').getAttribute('data-status')).toBe('changed');
    expect(await row('realm:east').textContent()).toContain('require_acceptance');
    expect(await row('realm:west').getAttribute('data-status')).toBe('removed');

    // A file whose realm is new here says its key cannot be set from a hash.
    const doc = JSON.parse(hashed.text) as { realms: Array<{ name: string }> };
    const east = doc.realms.find((r) => r.name === 'east')!;
    doc.realms.push({ ...east, name: 'north' });
    await page.getByTestId('definitions-text').fill(JSON.stringify(doc, null, 2));
    await page.getByTestId('definitions-preview').click();
    await row('realm:north').waitFor();
    expect(await row('realm:north').textContent()).toContain(HASH_ONLY_KEY_NOTE);

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'definitions-1280.png'), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await row('realm:north').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'definitions-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    await page.getByTestId('definitions-apply').click();
    await page.getByTestId('definitions-confirm-yes').click();
    await expect
      .poll(() => page.getByTestId('definitions-apply-message').textContent(), { timeout: 10_000 })
      .toMatch(/applied, 0 failed/);
    expect(await row('realm:east').getAttribute('data-outcome')).toBe('ok');
    expect(await row('realm:north').getAttribute('data-outcome')).toBe('ok');
    expect(await row('realm:west').getAttribute('data-outcome')).toBe('skipped');
    if (SHOTS) {
      await page.screenshot({
        path: path.join(SHOTS, 'definitions-applied-1280.png'),
        fullPage: true,
      });
    }

    expect(await realm('east')).toMatchObject({ acceptanceRequired: false, keyConfigured: true });
    expect(await realm('north')).toMatchObject({ keyConfigured: false });
    expect(await realm('west')).toBeDefined();
    const activity = await callApi<ActivityList>(app, 'listActivity', { connectionId });
    expect(activity.entries).toContainEqual(
      expect.objectContaining({ action: 'set_realm_acceptance', target: 'east', ok: true }),
    );
    expect(activity.entries).toContainEqual(
      expect.objectContaining({ action: 'add_realm', target: 'north', ok: true }),
    );
    expect(pageErrors).toEqual([]);
    // An encrypted file with a wrong passphrase: one clear line, no diff.
    await page.getByTestId('definitions-text').fill(encrypted.text);
    await page.getByTestId('definitions-import-passphrase').fill('not the passphrase');
    await page.getByTestId('definitions-preview').click();
    await expect
      .poll(() => page.getByTestId('definitions-import-error').textContent(), { timeout: 10_000 })
      .toContain('Wrong passphrase');
    expect(await page.getByTestId('definitions-diff-panel').count()).toBe(0);
    // The refused call is the only console error: the browser logs its 400 response.
    expect(pageErrors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  }, 90_000);
});
