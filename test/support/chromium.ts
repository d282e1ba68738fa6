/**
 * Debian's Chromium for the browser tests (`CHROMIUM_PATH` overrides `/usr/bin/chromium`),
 * headless with the flags every e2e file used: no sandbox (CI runs as root), no GPU, no
 * first-run or sync work.
 *
 * One Chromium per test run (issue 26): the vitest globalSetup `chromium-server-setup.ts`
 * starts a Playwright browser server and names its WebSocket endpoint in
 * `$SWB_TEST_CHROMIUM_WS`; `launchChromium()` connects to it (≈ 0.02–0.1 s) instead of
 * launching a browser of its own (≈ 0.3 s, plus ≈ 0.1 s to close), measured on a 2-core
 * machine. Each connection's contexts and pages are its own and `browser.close()` closes them
 * and disconnects, so files stay as separate as with their own browser.
 */
import {
  chromium,
  type Browser,
  type BrowserServer,
  type Download,
  type LaunchOptions,
} from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];

/** Names the shared browser server's WebSocket endpoint for the test workers. */
export const CHROMIUM_WS_ENV = 'SWB_TEST_CHROMIUM_WS';

/** Starts the run's shared browser server (globalSetup); close it at teardown. */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * A browser for one test file: the run's shared Chromium when there is one and neither
 * `extraArgs` nor `options` ask for a browser of its own, else a new one. Close it in the
 * file's afterAll (for the shared one that closes this file's contexts and disconnects).
 */
export function launchChromium(
  extraArgs: string[] = [],
  options: Omit<LaunchOptions, 'executablePath' | 'args'> = {},
): Promise<Browser> {
  const shared = process.env[CHROMIUM_WS_ENV];
  if (shared && extraArgs.length === 0 && Object.keys(options).length === 0) {
    return chromium.connect(shared);
  }
  return chromium.launch({
    ...options,
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}

/**
 * A finished download's content as UTF-8 text. `download.path()` throws on a browser reached
 * through `connect` (the shared one), the stream works on both.
 */
export async function downloadText(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
