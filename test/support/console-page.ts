/**
 * The browser half of an e2e file's set-up (issue 26: the same block stood in a dozen files):
 * one Chromium for the file, one page on the running console, the page's errors collected, and
 * the Overview waited for until the local broker says `running`. The file closes `browser` in
 * its afterAll, as before.
 */
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { LocalBrokerStatus } from '../../shared/console-api';
import { launchChromium } from './chromium';
import { callApi, type RunningConsole } from './console-process';

/** A launched Chromium and its one page, open on the console's Overview. */
export interface ConsolePage {
  browser: Browser;
  page: Page;
}

export interface ConsolePageOptions {
  /** The page's viewport, px; default 1280 × 900. */
  viewport?: { width: number; height: number };
  /** Whether console `error` messages count as page errors too (default true). */
  consoleErrors?: boolean;
  /** More options of the page's browser context (permissions, colour scheme …). */
  context?: Omit<BrowserContextOptions, 'viewport'>;
  /**
   * Install Playwright's fake clock before the page loads (default off). Time still flows as
   * usual; a test waiting for one of the page's polls (every 5–10 s) jumps it with
   * `page.clock.fastForward(ms)`, which fires each timer due in `ms` once, instead of waiting.
   */
  clock?: boolean;
}

/**
 * Launches Chromium, opens `app.url` in a new page whose uncaught errors (and, unless
 * `consoleErrors` is false, console errors) are pushed onto `pageErrors`, and waits for the
 * Overview's status `running`. Closes the browser again when any step fails, so that a failed
 * set-up leaves nothing running. Errors: whatever the launch, navigation or wait throws.
 */
export async function openConsolePage(
  app: RunningConsole,
  pageErrors: string[],
  options: ConsolePageOptions = {},
): Promise<ConsolePage> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({
      ...options.context,
      viewport: options.viewport ?? { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    if (options.consoleErrors !== false) {
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
    }
    if (options.clock) await page.clock.install();
    await page.goto(app.url);
    await page.getByTestId('overview-status').filter({ hasText: 'running' }).waitFor();
    return { browser, page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** The console's local broker as a socket.io URL (`http://127.0.0.1:<port>`). */
export async function localBrokerUrl(app: RunningConsole): Promise<string> {
  const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
  return `http://127.0.0.1:${broker.port}`;
}
