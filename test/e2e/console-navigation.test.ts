/**
 * End to end: the console's navigation in Chromium against `npm run console`.
 * - Every section has a hash URL (`#/dead-letters`): a reload keeps the view, back/forward move
 *   between views, an unknown route shows Overview, and the `#token=` of the launch URL never
 *   stays in the address bar (nor in the history back/forward walk through).
 * - The sections are grouped in a left sidebar at 1280 px (one column, left of the view) and
 *   behind a menu button at 390 px (no horizontal overflow), the pending-requests count kept.
 * - The realm removal's "type the name" field shows its whole placeholder at 1280 and 390 px.
 * - The Clients view has no (always disabled) per-row "Disconnect" button, just one short note.
 * Screenshots go to test-results/nav-*.png.
 */
import path from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { ClientEvent } from '../../shared/protocol-events';
import { consumerPayload, jsSubscribePayload } from '../helpers/stock-clients';
import { connectSocket } from '../support/connect-socket';
import {
  callApi,
  startConsole,
  type RunningConsole,
  stopConsole,
} from '../support/console-process';
import { openSection } from '../support/console-nav';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const REALM = 'org:acme-production-eu';

const hashOf = (page: Page): Promise<string> => page.evaluate(() => window.location.hash);
const shown = (page: Page, view: string): Promise<number> => page.getByTestId(view).count();

/** Width of the input's placeholder text and of the box that shows it, px. */
function placeholderFit(input: Locator): Promise<{ text: number; box: number }> {
  return input.evaluate((node) => {
    const el = node as HTMLInputElement;
    const style = getComputedStyle(el);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = style.font;
    return {
      text: context.measureText(el.placeholder).width,
      box: el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
    };
  });
}

async function noOverflow(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
}

describe('console navigation end to end', () => {
  let dir: TempDir;
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-navigation-');
    app = await startConsole(path.join(dir.path, 'data'));
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await browser?.close();
    await stopConsole(app, 'SIGKILL');
    await dir.remove();
  }, 30_000);

  it('gives every view a URL: reload keeps it, back/forward move, unknown → Overview', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app!.url);
    await expect.poll(() => shown(page, 'overview-view'), { timeout: 15_000 }).toBe(1);
    expect(page.url()).not.toContain('token');

    await page.getByTestId('nav-dead-letters').click();
    await expect.poll(() => shown(page, 'dead-letters-view')).toBe(1);
    expect(await hashOf(page)).toBe('#/dead-letters');
    await page.reload();
    await expect.poll(() => shown(page, 'dead-letters-view'), { timeout: 15_000 }).toBe(1);
    expect(await page.getByTestId('nav-dead-letters').getAttribute('aria-current')).toBe('page');

    await page.getByTestId('nav-realms').click();
    await expect.poll(() => shown(page, 'realms-view')).toBe(1);
    await page.getByTestId('nav-clients').click();
    await expect.poll(() => shown(page, 'clients-view')).toBe(1);
    await page.goBack();
    await expect.poll(() => shown(page, 'realms-view')).toBe(1);
    await page.goBack();
    await expect.poll(() => shown(page, 'dead-letters-view')).toBe(1);
    await page.goBack();
    await expect.poll(() => shown(page, 'overview-view')).toBe(1);
    // The first entry is the launch URL with its token already taken out.
    expect(page.url()).not.toContain('token');
    await page.goForward();
    await expect.poll(() => shown(page, 'dead-letters-view')).toBe(1);
    await page.goForward();
    await expect.poll(() => shown(page, 'realms-view')).toBe(1);

    await page.goto(`${app!.origin}/#/no-such-view`);
    await expect.poll(() => shown(page, 'overview-view'), { timeout: 15_000 }).toBe(1);
    expect(await page.getByTestId('nav-overview').getAttribute('aria-current')).toBe('page');
    await page.reload();
    await expect.poll(() => shown(page, 'overview-view'), { timeout: 15_000 }).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('groups the sections in a sidebar at 1280 px and a menu at 390 px', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(app!.url);
    await expect.poll(() => shown(page, 'overview-view'), { timeout: 15_000 }).toBe(1);

    const nav = page.getByTestId('section-nav');
    const titles = await nav.locator('.sidenav__title').allTextContents();
    expect(titles.map((t) => t.toLowerCase())).toEqual([
      'monitor',
      'manage',
      'operations',
      'local',
      'setup',
    ]);
    expect(await page.getByTestId('nav-menu').isVisible()).toBe(false);
    // One column, left of the view.
    const content = (await page.getByTestId('app-content').boundingBox())!;
    const ids = [
      'overview',
      'clients',
      'tap',
      'requests',
      'realms',
      'tokens',
      'dead-letters',
      'activity',
      'local',
      'demo',
      'connections',
    ];
    const boxes = await Promise.all(
      ids.map(async (id) => (await page.getByTestId(`nav-${id}`).boundingBox())!),
    );
    for (const [index, box] of boxes.entries()) {
      expect(box.x + box.width).toBeLessThanOrEqual(content.x);
      if (index > 0) expect(box.y).toBeGreaterThan(boxes[index - 1]!.y);
    }
    await page.screenshot({ path: path.join(SHOTS, 'nav-sidebar-1280.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await noOverflow(page);
    expect(await page.getByTestId('nav-menu').isVisible()).toBe(true);
    expect(await page.getByTestId('nav-realms').isVisible()).toBe(false);
    expect(await page.getByTestId('nav-menu').textContent()).toContain('Overview');
    await page.screenshot({ path: path.join(SHOTS, 'nav-menu-closed-390.png'), fullPage: true });
    await page.getByTestId('nav-menu').click();
    expect(await page.getByTestId('nav-menu').getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.getByTestId('nav-realms').isVisible()).toBe(true);
    await noOverflow(page);
    await page.screenshot({ path: path.join(SHOTS, 'nav-menu-open-390.png') });
    await page.getByTestId('nav-realms').click();
    await expect.poll(() => shown(page, 'realms-view')).toBe(1);
    expect(await page.getByTestId('nav-realms').isVisible()).toBe(false);
    expect(await page.getByTestId('nav-menu').textContent()).toContain('Realms');
    // Escape closes an open menu.
    await page.getByTestId('nav-menu').click();
    await expect.poll(() => page.getByTestId('nav-tokens').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('nav-tokens').isVisible()).toBe(false);
    await openSection(page, 'connections');
    await expect.poll(() => shown(page, 'connections-view')).toBe(1);
    await page.close();
  }, 120_000);

  it('shows the whole "type the name" placeholder of realm removal', async () => {
    await callApi(app!, 'createRealm', {
      connectionId: 'local',
      realm: REALM,
      authRequired: true,
      ephemeral: false,
    });
    const page = await browser!.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(app!.url);
    await expect.poll(() => shown(page, 'overview-view'), { timeout: 15_000 }).toBe(1);
    await page.getByTestId('nav-realms').click();
    const toggle = page.getByTestId(`realm-toggle-${REALM}`);
    await expect.poll(() => toggle.count(), { timeout: 15_000 }).toBe(1);
    await toggle.click();
    const input = page.getByTestId(`realm-remove-confirm-${REALM}`);
    await expect.poll(() => input.count()).toBe(1);
    expect(await input.getAttribute('placeholder')).toContain(REALM);
    const wide = await placeholderFit(input);
    expect(wide.text).toBeLessThanOrEqual(wide.box);
    await input.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'nav-realm-remove-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await noOverflow(page);
    const narrow = await placeholderFit(input);
    expect(narrow.text).toBeLessThanOrEqual(narrow.box);
    await input.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'nav-realm-remove-390.png') });
    await page.close();
  }, 120_000);

  it('says at 390 px that the menu count is pending requests, not a count of the view', async () => {
    const broker = await callApi<LocalBrokerStatus>(app!, 'getLocalBroker', {});
    const requester = await connectSocket(`http://127.0.0.1:${broker.port}`, sockets);
    const reply = (await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'default',
      role: 'consumer',
      client_id: 'nav-agent',
      client_name: 'Nav agent',
      client_token: 'nav-agent-token-0123456789abcdef',
    })) as { ok: boolean };
    expect(reply.ok).toBe(true);
    const page = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(app!.url);
    await expect.poll(() => shown(page, 'overview-view'), { timeout: 15_000 }).toBe(1);
    const count = page.getByTestId('nav-menu-count');
    await expect.poll(() => count.textContent(), { timeout: 15_000 }).toBe('1 pending');
    expect(await count.getAttribute('title')).toBe('1 pending authorization request');
    expect(await page.getByTestId('nav-menu').getAttribute('aria-label')).toBe(
      'Sections menu (showing Overview; 1 pending request)',
    );
    await noOverflow(page);
    await page.screenshot({ path: path.join(SHOTS, 'nav-menu-pending-390.png') });
    await page.close();
  }, 60_000);

  it('lists clients without per-row Disconnect buttons, with one short note', async () => {
    const broker = await callApi<LocalBrokerStatus>(app!, 'getLocalBroker', {});
    const consumer = await connectSocket(`http://127.0.0.1:${broker.port}`, sockets);
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('worker-1'));
    consumer.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('worker-1', 'fleet', 'job'));
    const page = await browser!.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(app!.url);
    await page.getByTestId('nav-clients').click();
    const card = page.getByTestId('client-consumer-worker-1');
    await expect.poll(() => card.count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByRole('button', { name: /disconnect/i }).count()).toBe(0);
    expect(await page.getByTestId('clients-disconnect-note').count()).toBe(1);
    expect(await page.getByTestId('clients-disconnect-note').textContent()).toContain(
      'close_client',
    );
    await page.screenshot({ path: path.join(SHOTS, 'nav-clients-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await noOverflow(page);
    await page.screenshot({ path: path.join(SHOTS, 'nav-clients-390.png'), fullPage: true });
    await page.close();
  }, 120_000);
});
