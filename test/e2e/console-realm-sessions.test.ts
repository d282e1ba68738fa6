/**
 * End to end (issue 22 item 7): a client logged in with a realm's pre-shared key; the key is
 * rotated from the Realms view, which says the client's session was ended (the broker closes
 * it; the old key is refused from then on); then **End sessions** (two clicks) ends the
 * session of a client that logged in with the new key, which is told why. Screenshots at 1280
 * and 390 px go to $SHOTS_DIR (default test-results/).
 */
import path from 'node:path';
import { type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ServerEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import { waitFor } from '../helpers/wait';
import { consoleFixture } from '../support/console-fixture';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.SHOTS_DIR ?? path.join(REPO, 'test-results');
const OLD_KEY = 'fleet-psk-before-rotation-7d21';
const NEXT_KEY = 'fleet-psk-set-by-script-0b3e';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).textContent();

describe('console realm sessions end to end', () => {
  const fx = consoleFixture('switchboard-e2e-sessions-', {
    page: { viewport: { width: 1280, height: 860 }, consoleErrors: false },
  });

  it('shows the sessions a rotation ended and ends the rest on request', async () => {
    await fx.manager().command({
      command: 'add_realm',
      realm: 'fleet',
      key: OLD_KEY,
      require_key: true,
    });
    const consumer = { realm: 'fleet', role: 'consumer' };
    const device = await fx.connect();
    expect(await authenticate(device, { ...consumer, key: OLD_KEY })).toMatchObject({
      event: 'AUTH_OK',
    });

    await fx.page.getByTestId('nav-realms').click();
    await expect
      .poll(() => fx.page.getByTestId('realms-row-fleet').count(), { timeout: 15_000 })
      .toBe(1);
    await fx.page.getByTestId('realm-toggle-fleet').click();

    // Rotate (two clicks): the summary says the session with the old key was ended.
    const told = waitFor<{ code: number; message: string }>(device, ServerEvent.AUTH_FAIL);
    await fx.page.getByTestId('realm-realmKey-generate-fleet').click();
    await fx.page.getByTestId('realm-realmKey-generate-fleet').click();
    await expect
      .poll(() => text(fx.page, 'realms-message'), { timeout: 10_000 })
      .toBe(
        'New pre-shared key for realm fleet. 1 session that used the old pre-shared key was ended (it must reconnect with the new one).',
      );
    expect(await told).toEqual({ code: 401, message: 'Credentials changed; authenticate again' });
    await fx.page.getByTestId('secret-done').click();
    expect(await authenticate(await fx.connect(), { ...consumer, key: OLD_KEY })).toMatchObject({
      event: 'AUTH_FAIL',
    });

    // A client with the current key; End sessions asks once more, then ends it.
    await fx.manager().command({ command: 'set_realm_key', realm: 'fleet', key: NEXT_KEY });
    const second = await fx.connect();
    expect(await authenticate(second, { ...consumer, key: NEXT_KEY })).toMatchObject({
      event: 'AUTH_OK',
    });
    await fx.page.getByTestId('realm-end-sessions-fleet').click();
    await expect
      .poll(() => text(fx.page, 'realm-end-sessions-fleet'))
      .toBe('Confirm: end sessions');
    await fx.page.screenshot({
      path: path.join(SHOTS, 'realms-end-sessions-1280.png'),
      fullPage: true,
    });
    await fx.page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await fx.page.screenshot({
      path: path.join(SHOTS, 'realms-end-sessions-390.png'),
      fullPage: true,
    });
    await fx.page.setViewportSize({ width: 1280, height: 860 });
    const ended = waitFor<{ code: number; message: string }>(second, ServerEvent.AUTH_FAIL);
    await fx.page.getByTestId('realm-end-sessions-fleet').click();
    await expect
      .poll(() => text(fx.page, 'realms-message'), { timeout: 10_000 })
      .toBe('Realm fleet: 1 session ended; clients that still hold a valid credential reconnect.');
    expect(await ended).toEqual({
      code: 401,
      message: 'Session ended by a manager; authenticate again',
    });
    await fx.page.screenshot({
      path: path.join(SHOTS, 'realms-sessions-ended-1280.png'),
      fullPage: true,
    });
    expect(fx.pageErrors).toEqual([]);
  }, 180_000);
});
