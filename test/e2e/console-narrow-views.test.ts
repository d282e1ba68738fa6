/**
 * Every view of the console at 390 px wide, with the demo's traffic in it (issue 27 item 6):
 * nothing sticks out past the screen (a wide table scrolls in its own box instead), and each
 * view is screenshot at 390 and 1280 px (test-results/narrow-<view>-<width>.png) to look at.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openSection } from '../support/console-nav';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const VIEWS = [
  'overview',
  'clients',
  'tap',
  'topics',
  'resources',
  'requests',
  'realms',
  'tokens',
  'identities',
  'definitions',
  'queues',
  'retained',
  'dead-letters',
  'commands',
  'activity',
  'local',
  'demo',
  'connections',
];

/** Elements whose box reaches past the viewport's right edge outside a scrolling box. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrolls = (el: Element | null): boolean => {
      for (let e = el; e && e !== document.body; e = e.parentElement) {
        const o = getComputedStyle(e).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
      }
      return false;
    };
    const found: string[] = [];
    for (const el of document.querySelectorAll('main *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 0.5 || scrolls(el.parentElement)) continue;
      const id = el.getAttribute('data-testid');
      found.push(
        `${el.tagName.toLowerCase()}${id ? `[${id}]` : ''}.${el.className} → ${Math.round(r.right)}`,
      );
    }
    return found;
  });
}

/**
 * Boxed blocks of the view (panels, cards, the stat grid) that touch the block above them: the
 * page's blocks sit at least 8 px apart.
 */
function touching(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const boxed = (el: Element): boolean => {
      const s = getComputedStyle(el);
      // A box has a border all round; a row's divider line is not one.
      return (
        (s.borderTopWidth !== '0px' && s.borderLeftWidth !== '0px') || el.classList.contains('grid')
      );
    };
    const found: string[] = [];
    for (const parent of document.querySelectorAll('main, main *')) {
      const kids = [...parent.children].filter((k) => {
        const r = k.getBoundingClientRect();
        return r.height > 0 && getComputedStyle(k).position !== 'absolute';
      });
      for (let i = 1; i < kids.length; i++) {
        const a = kids[i - 1]!.getBoundingClientRect();
        const b = kids[i]!.getBoundingClientRect();
        // Stacked (not side by side), both boxed, less than 8 px apart.
        if (b.top < a.bottom - 1 || a.right <= b.left || b.right <= a.left) continue;
        if (!boxed(kids[i - 1]!) || !boxed(kids[i]!)) continue;
        if (b.top - a.bottom < 8) {
          found.push(
            `${kids[i - 1]!.className} / ${kids[i]!.className}: ${Math.round(b.top - a.bottom)} px`,
          );
        }
      }
    }
    return found;
  });
}

describe('every view at 390 px', () => {
  const fx = consoleFixture('switchboard-e2e-narrow-', { page: { consoleErrors: false } });

  it('keeps every view inside the screen', async () => {
    await callApi(fx.app, 'startDemo', { connectionId: 'local' });
    const problems: Record<string, string[]> = {};
    for (const view of VIEWS) {
      await fx.page.setViewportSize({ width: 1280, height: 900 });
      await openSection(fx.page, view);
      await fx.page.locator('main').first().waitFor();
      await fx.page.screenshot({
        path: path.join(SHOTS, `narrow-${view}-1280.png`),
        fullPage: true,
      });
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      const found = [...(await overflowing(fx.page)), ...(await touching(fx.page))];
      if (found.length > 0) problems[view] = found.slice(0, 8);
      await fx.page.screenshot({
        path: path.join(SHOTS, `narrow-${view}-390.png`),
        fullPage: true,
      });
    }
    await callApi(fx.app, 'stopDemo', { connectionId: 'local' });
    expect(problems).toEqual({});
  }, 240_000);
});
