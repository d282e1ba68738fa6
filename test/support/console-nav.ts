/**
 * Opening a console section in an e2e test at any width: below 720 px the section list sits
 * behind the top bar's menu button (renderer/src/components/section-nav.tsx), so open it first.
 */
import type { Page } from 'playwright-core';

export async function openSection(page: Page, id: string): Promise<void> {
  const entry = page.getByTestId(`nav-${id}`);
  if (!(await entry.isVisible())) await page.getByTestId('nav-menu').click();
  await entry.click();
}
