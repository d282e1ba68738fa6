/**
 * The e2e files' screenshot pair (the same dozen lines stood in many files): a full-page shot at
 * 1280 px and one at 390 px, after checking that the page does not overflow sideways at 390 px.
 * The viewport is 1280 × 900 again afterwards.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Writes `<dir>/<name>-1280.png` and `<dir>/<name>-390.png` (creating `dir`). Fails when the
 * 390 px page is wider than 390 px. Errors: what the screenshots or the wait throw.
 */
export async function shootBothWidths(page: Page, dir: string, name: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(dir, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(dir, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}
