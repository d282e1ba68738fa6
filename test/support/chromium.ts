/**
 * Debian's Chromium for the browser tests (`CHROMIUM_PATH` overrides `/usr/bin/chromium`),
 * headless with the flags every e2e file used: no sandbox (CI runs as root), no GPU, no
 * first-run or sync work.
 */
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];

/** Launches Chromium; `extraArgs` are added to the usual flags. Close it in the file's afterAll. */
export function launchChromium(
  extraArgs: string[] = [],
  options: Omit<LaunchOptions, 'executablePath' | 'args'> = {},
): Promise<Browser> {
  return chromium.launch({
    ...options,
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}
