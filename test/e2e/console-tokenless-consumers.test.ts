/**
 * Issue 20 defect 1, end to end in Chromium against `npm run console` (local broker, auth on):
 * the Realms view says per realm who may consume, Create realm makes a realm that refuses
 * token-less consumers unless "allow token-less consumers" is ticked, and the Manage switch
 * turns the reference's rule on and off — each checked with a real tyo-mq client.
 * Screenshot at 1280 px: test-results/console-realms-consumers.png.
 */
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { authenticate } from '../helpers/auth-clients';
import {
  callApi,
  startConsole,
  type RunningConsole,
  stopConsole,
} from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).first().textContent();

describe('console: who may consume a realm (issue 20)', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;
  const sockets: Socket[] = [];
  let brokerUrl = '';

  /** A token-less consumer's answer for `realm` (a fresh socket each time). */
  const tokenless = async (realm: string) =>
    authenticate(await connectSocket(brokerUrl, sockets), { realm, role: 'consumer' });

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-tokenless-');
  }, 10_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await browser?.close();
    await stopConsole(app);
    await dir.remove();
  }, 30_000);

  it('labels each realm, creates closed realms by default and exposes the opt-in', async () => {
    app = await startConsole(path.join(dir.path, 'data'));
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    brokerUrl = `http://127.0.0.1:${broker.port}`;
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.url);
    await expect.poll(() => text(page, 'overview-status'), { timeout: 15_000 }).toBe('running');
    await page.getByTestId('nav-realms').click();

    // The local broker's default realm stays open (the console's own default).
    await expect
      .poll(() => text(page, 'realm-consumers-default'), { timeout: 10_000 })
      .toBe('anyone can consume');

    // Create realm, defaults: auth required, consumers need a credential.
    expect(await text(page, 'realm-create-hint')).toContain('Consumers need a token');
    // A new realm requires producer acceptance (the broker's default): the form says so.
    expect(await text(page, 'realm-create-hint')).toContain('Producers need a token too');
    await page.getByTestId('realm-create-name').fill('closed');
    await page.getByTestId('realm-create').click();
    await expect
      .poll(() => text(page, 'realm-consumers-closed'), { timeout: 10_000 })
      .toBe('consumers need a token');
    expect(await text(page, 'realms-message')).toContain('consumers need a token)');
    expect(await tokenless('closed')).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: "Realm 'closed' requires a token or a valid pre-shared key for consumers",
    });

    // Create realm with the opt-in: the hint warns, the badge says reference mode.
    await page.getByTestId('realm-create-name').fill('public');
    await page.getByTestId('realm-create-tokenless').check();
    expect(await text(page, 'realm-create-hint')).toContain('anyone who knows the name');
    await page.getByTestId('realm-create').click();
    await expect
      .poll(() => text(page, 'realm-consumers-public'), { timeout: 10_000 })
      .toBe('token-less consumers allowed (reference mode)');
    expect(await tokenless('public')).toEqual({
      event: 'AUTH_OK',
      realm: 'public',
      role: 'consumer',
    });
    // Unticking "auth required" disables the opt-in (an open realm admits everyone anyway).
    await page.getByTestId('realm-create-auth').uncheck();
    expect(await page.getByTestId('realm-create-tokenless').isDisabled()).toBe(true);
    expect(await text(page, 'realm-create-hint')).toContain('Open realm');
    await page.getByTestId('realm-create-auth').check();
    await page.getByTestId('realm-create-tokenless').uncheck();

    // Manage: the switch turns reference mode on for "closed", then off again.
    await page.getByTestId('realm-toggle-closed').click();
    expect(await text(page, 'realm-access-closed')).toContain('consumers need a token');
    // The switch shows the asked state at once (check() fails when a click leaves it as it was)
    // and stays disabled until the list shows the broker's change (the poll below).
    await page.getByTestId('realm-tokenless-closed').check();
    await expect
      .poll(() => text(page, 'realm-consumers-closed'), { timeout: 10_000 })
      .toBe('token-less consumers allowed (reference mode)');
    expect(await text(page, 'realm-access-closed')).toContain('reference mode');
    expect(await tokenless('closed')).toMatchObject({ event: 'AUTH_OK' });
    await page.screenshot({
      path: path.join(SHOTS, 'console-realms-consumers.png'),
      fullPage: true,
    });
    // uncheck() waits for the switch to be enabled again, i.e. for the list to show the change.
    await page.getByTestId('realm-tokenless-closed').uncheck();
    await expect
      .poll(() => text(page, 'realm-consumers-closed'), { timeout: 10_000 })
      .toBe('consumers need a token');
    expect(await tokenless('closed')).toMatchObject({ event: 'AUTH_FAIL', code: 401 });

    // A pre-shared key makes the label "token or key", and the key admits a consumer.
    await page.getByTestId('realm-realmKey-generate-closed').click();
    await expect.poll(() => page.getByTestId('secret-value').count(), { timeout: 10_000 }).toBe(1);
    const psk = (await text(page, 'secret-value')) ?? '';
    await page.getByTestId('secret-done').click();
    await expect
      .poll(() => text(page, 'realm-consumers-closed'), { timeout: 10_000 })
      .toBe('consumers need a token or key');
    expect(
      await authenticate(await connectSocket(brokerUrl, sockets), {
        realm: 'closed',
        role: 'consumer',
        key: psk,
      }),
    ).toMatchObject({ event: 'AUTH_OK' });
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
