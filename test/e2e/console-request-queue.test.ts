/**
 * End to end (issue 22 items 2 and 9): four pending requests in two realms. The Requests view
 * lists all four oldest first with the total and the count per realm, the sidebar badge says 4,
 * the role list does not offer `admin`, and approving the selected request moves on to the one
 * after it; past 20 the queue is paged. Screenshots at 1280 and 390 px go to $SHOTS_DIR (default test-results/).
 */
import path from 'node:path';
import { type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import { consoleFixture } from '../support/console-fixture';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.SHOTS_DIR ?? path.join(REPO, 'test-results');

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).textContent();

describe('console request queue end to end', () => {
  const fx = consoleFixture('switchboard-e2e-queue-', {
    page: { viewport: { width: 1280, height: 860 }, consoleErrors: false },
  });

  it('shows every pending request with counts, the real badge, and moves to the next', async () => {
    for (const realm of ['fleet', 'lab'])
      await fx.manager().command({ command: 'add_realm', realm });

    // Four requests, each in its own millisecond (their order is the order asked).
    const asked: Array<[string, string]> = [
      ['fleet', 'agent-a'],
      ['lab', 'agent-b'],
      ['fleet', 'agent-c'],
      ['fleet', 'agent-d'],
    ];
    for (const [realm, clientId] of asked) {
      const t = Date.now();
      while (Date.now() === t) await new Promise((resolve) => setImmediate(resolve));
      const socket = await fx.connect();
      const reply = (await socket.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
        realm,
        role: 'consumer',
        client_id: clientId,
        client_name: clientId.toUpperCase(),
        client_token: `${clientId}-token-0d9c8b7a`,
      })) as { ok: boolean };
      expect(reply.ok).toBe(true);
    }

    await expect
      .poll(() => text(fx.page, 'nav-requests-count'), { timeout: 15_000 })
      .toContain('4');
    await fx.page.getByTestId('nav-requests').click();
    await expect.poll(() => text(fx.page, 'request-total'), { timeout: 10_000 }).toBe('4 pending');
    expect(await text(fx.page, 'request-count-fleet')).toBe('fleet 3');
    expect(await text(fx.page, 'request-count-lab')).toBe('lab 1');
    const items = fx.page.getByTestId('request-queue').locator('li');
    await expect.poll(() => items.count()).toBe(4);
    expect(await items.allTextContents()).toEqual([
      expect.stringContaining('AGENT-A'),
      expect.stringContaining('AGENT-B'),
      expect.stringContaining('AGENT-C'),
      expect.stringContaining('AGENT-D'),
    ]);
    expect(
      await fx.page.getByTestId('requests-filter').locator('option').allTextContents(),
    ).toEqual(['all realms', 'default', 'fleet (3)', 'lab (1)']);

    // Item 9: approve offers every role but admin.
    const roles = await fx.page
      .getByTestId('request-role-select')
      .locator('option')
      .allTextContents();
    expect(roles).toEqual(['as requested (consumer)', 'producer', 'consumer', 'both', 'manager']);
    await fx.page.screenshot({ path: path.join(SHOTS, 'requests-queue-1280.png'), fullPage: true });
    await fx.page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await fx.page.screenshot({ path: path.join(SHOTS, 'requests-queue-390.png'), fullPage: true });
    await fx.page.setViewportSize({ width: 1280, height: 860 });

    // Approving the second request moves on to the one after it (agent-c), not back to the top.
    await fx.page.getByTestId('queue-agent-b').click();
    await expect.poll(() => text(fx.page, 'request-client')).toBe('AGENT-B (agent-b)');
    await fx.page.getByTestId('request-approve').click();
    await expect
      .poll(() => text(fx.page, 'request-last-decision'), { timeout: 10_000 })
      .toBe('Approved agent-b in lab as consumer.');
    await expect.poll(() => text(fx.page, 'request-total'), { timeout: 10_000 }).toBe('3 pending');
    expect(await text(fx.page, 'request-client')).toBe('AGENT-C (agent-c)');
    await expect
      .poll(() => text(fx.page, 'nav-requests-count'), { timeout: 10_000 })
      .toContain('3');
    // One realm left: no per-realm chips.
    expect(await fx.page.getByTestId('request-count-fleet').count()).toBe(0);
    await fx.page.screenshot({
      path: path.join(SHOTS, 'requests-queue-next-1280.png'),
      fullPage: true,
    });

    // Twenty more: the queue is paged (20 a page), oldest first.
    const bulk = await fx.connect();
    for (let n = 0; n < 20; n++) {
      const reply = (await bulk.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
        realm: 'fleet',
        client_id: `bulk-${n}`,
        client_name: `Bulk ${n}`,
        client_token: `bulk-${n}-token-51aa2c`,
      })) as { ok: boolean };
      expect(reply.ok).toBe(true);
    }
    await expect.poll(() => text(fx.page, 'request-page'), { timeout: 10_000 }).toBe('1–20 of 23');
    await fx.page.getByTestId('request-page-next').click();
    await expect.poll(() => text(fx.page, 'request-page'), { timeout: 10_000 }).toBe('21–23 of 23');
    await expect.poll(() => items.count()).toBe(3);
    expect(await items.allTextContents()).toEqual([
      expect.stringContaining('Bulk 17'),
      expect.stringContaining('Bulk 18'),
      expect.stringContaining('Bulk 19'),
    ]);
    await expect
      .poll(() => text(fx.page, 'nav-requests-count'), { timeout: 10_000 })
      .toContain('23');
    await fx.page.setViewportSize({ width: 390, height: 844 });
    await fx.page.screenshot({ path: path.join(SHOTS, 'requests-pager-390.png'), fullPage: true });
    await fx.page.setViewportSize({ width: 1280, height: 860 });
    await fx.page.getByTestId('request-page-prev').click();
    await expect.poll(() => text(fx.page, 'request-page'), { timeout: 10_000 }).toBe('1–20 of 23');
    expect(fx.pageErrors).toEqual([]);
  }, 180_000);
});
