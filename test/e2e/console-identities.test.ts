/**
 * End to end (issue 28, console): the E2EE identities view against the console's real local
 * broker, with a stock socket.io client that registers as a consumer, publishes two keys and a
 * prekey bundle with only 4 one-time prekeys. The view lists the identity with the low-water
 * warning, its detail shows the fingerprints (never the keys), Revoke (confirmed) removes one
 * key so a lookup no longer returns it, and Activity records `revoke_identity_key`.
 * Screenshots at 1280 and 390 px go to `SHOTS_DIR` when it is set.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ActivityList } from '../../shared/console-api-activity';
import { ClientEvent } from '../../shared/protocol-events';
import { consumerPayload } from '../helpers/stock-clients';
import { lookupKey, publishKey } from '../broker/extensions/key-clients';
import { BUNDLE, oneTime, publishPrekeys } from '../broker/extensions/prekey-clients';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;
const IDENTITY = 'alice-phone-7f3c';
const KEY_1 = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE-alice-key-one';
const KEY_2 = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE-alice-key-two';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const keysShown = (page: Page): Promise<string[]> =>
  page
    .getByTestId('identity-key')
    .evaluateAll((items) => items.map((item) => item.querySelector('strong')?.textContent ?? ''));

describe('E2EE identities view end to end', () => {
  const fx = consoleFixture('switchboard-e2e-identities-');

  it('lists an identity with its keys and low prekeys, and revokes a key', async () => {
    const alice = await fx.connect();
    alice.emit(ClientEvent.CONSUMER, consumerPayload(IDENTITY));
    await alice.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
    expect(
      await publishKey(alice, { identity: IDENTITY, key_id: 'k1', public_key: KEY_1 }),
    ).toEqual({ ok: true });
    expect(
      await publishKey(alice, { identity: IDENTITY, key_id: 'k2', public_key: KEY_2 }),
    ).toEqual({ ok: true });
    const bundle = { ...BUNDLE, one_time_prekeys: oneTime(4) };
    expect((await publishPrekeys(alice, IDENTITY, bundle)).ok).toBe(true);

    await fx.page.getByTestId('nav-identities').click();
    const row = fx.page.locator(`[data-identity="${IDENTITY}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.getByTestId('identity-prekeys').textContent()).toContain('low prekeys: 4');
    await fx.page.getByTestId('identities-low-water').waitFor();

    await row.getByRole('button').click();
    await fx.page.getByTestId('identity-detail').waitFor();
    expect(await keysShown(fx.page)).toEqual(['k1', 'k2']);
    const fingerprints = await fx.page.getByTestId('identity-fingerprint').allTextContents();
    expect(fingerprints).toEqual([sha(KEY_1), sha(KEY_2)]);
    expect(await fx.page.getByTestId('identities-view').textContent()).not.toContain(KEY_1);
    await fx.page.getByTestId('identity-prekeys-warning').waitFor();

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.screenshot({ path: path.join(SHOTS, 'identities-1280.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await fx.page.screenshot({ path: path.join(SHOTS, 'identities-390.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 1280, height: 900 });
    }

    // Revoke k1, confirmed.
    await fx.page.getByTestId('identity-revoke').first().click();
    await fx.page.getByTestId('identity-revoke-confirm-yes').click();
    await expect
      .poll(() => fx.page.getByTestId('identities-message').textContent())
      .toContain(`Revoked key k1 of ${IDENTITY} in default`);
    await expect.poll(() => keysShown(fx.page)).toEqual(['k2']);
    expect((await lookupKey(alice, IDENTITY)).map((k) => k.key_id)).toEqual(['k2']);

    const activity = await callApi<ActivityList>(fx.app, 'listActivity', {
      actions: ['revoke_identity_key'],
    });
    expect(activity.entries).toEqual([
      expect.objectContaining({
        target: 'default',
        params: expect.objectContaining({ identity: IDENTITY, key_id: 'k1' }),
      }),
    ]);
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);

  it('finds an identity past the first 1,000 by search, and loads the next page', async () => {
    // 1,001 more identities, each with a key, from one stock client registering them in turn.
    const fleet = await fx.connect();
    for (let i = 0; i <= 1_000; i += 1) {
      const name = `device-${String(i).padStart(4, '0')}`;
      fleet.emit(ClientEvent.CONSUMER, consumerPayload(name));
      await fleet.timeout(5_000).emitWithAck(ClientEvent.PING, { sync: true });
      const published = await publishKey(fleet, { identity: name, public_key: `PK-${name}` });
      expect(published).toEqual({ ok: true });
    }
    const intro = fx.page.getByTestId('identities-view').locator('.muted').first();
    // alice and device-0000…0998 fill the first page; device-0999 and device-1000 are beyond it.
    await expect
      .poll(() => intro.textContent(), { timeout: 20_000 })
      .toMatch(/^1,000 identities \(more on the broker\) in default/);
    const more = fx.page.getByTestId('identities-more');
    expect(await more.textContent()).toBe('Load 1,000 more');

    // The search asks the broker: the last identity is found although no page shows it yet.
    await fx.page.getByTestId('identities-search').fill('DEVICE-1000');
    await expect
      .poll(() => intro.textContent(), { timeout: 10_000 })
      .toMatch(/^1 identity matching “DEVICE-1000” in default/);
    await fx.page.locator('[data-identity="device-1000"]').waitFor();
    expect(await more.count()).toBe(0);

    await fx.page.getByTestId('identities-search').fill('');
    await expect.poll(() => intro.textContent(), { timeout: 10_000 }).toMatch(/^1,000 identities/);
    await more.click();
    await expect
      .poll(() => intro.textContent(), { timeout: 10_000 })
      .toMatch(/^1,002 identities in default/);
    expect(await more.count()).toBe(0);
    expect(fx.pageErrors).toEqual([]);
  }, 120_000);
});
