/**
 * vitest globalSetup (issue 26): one Chromium for the whole run, which `launchChromium()`
 * connects to through `$SWB_TEST_CHROMIUM_WS` (see chromium.ts for the measured saving). The
 * test workers inherit the variable. Closed at teardown.
 */
import { CHROMIUM_WS_ENV, launchChromiumServer } from './chromium';

export default async function setup(): Promise<() => Promise<void>> {
  const server = await launchChromiumServer();
  process.env[CHROMIUM_WS_ENV] = server.wsEndpoint();
  return async () => {
    delete process.env[CHROMIUM_WS_ENV];
    await server.close();
  };
}
