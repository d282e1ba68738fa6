/**
 * Opening a console section in an e2e test at any width: below 720 px the section list sits
 * behind the top bar's menu button (renderer/src/components/section-nav.tsx), so open it first.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export async function openSection(page: Page, id: string): Promise<void> {
  const entry = page.getByTestId(`nav-${id}`);
  if (!(await entry.isVisible())) await page.getByTestId('nav-menu').click();
  await entry.click();
}

/**
 * Adds a remote connection through the Connections form, with an admin token (`secret`) or no
 * credential (`null`), and waits until its card shows and the form has closed (the card can
 * show, from a state refresh, before the save has answered).
 */
export async function addConnection(
  page: Page,
  name: string,
  url: string,
  secret: string | null,
): Promise<void> {
  await openSection(page, 'connections');
  await page.getByTestId('connection-add').click();
  await page.getByTestId('connection-name').fill(name);
  await page.getByTestId('connection-url').fill(url);
  if (secret) await page.getByTestId('connection-secret').fill(secret);
  else await page.getByTestId('connection-credential-kind').selectOption('none');
  await page.getByTestId('connection-save').click();
  await expect
    .poll(() => page.getByTestId(`connection-${name}`).count(), { timeout: 10_000 })
    .toBe(1);
  await expect.poll(() => page.getByTestId('connection-form').count(), { timeout: 10_000 }).toBe(0);
}
