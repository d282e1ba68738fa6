/**
 * One e2e file's whole set-up and tear-down (issue 26: the same twenty lines stood in fourteen
 * files): a temp dir, `npm run console` on it, the local broker's URL, one Chromium with its
 * page on the Overview, the socket.io clients and the admin ManagerClient the tests open. Call
 * `consoleFixture()` in a `describe`: it registers the `beforeAll` that starts all of it and the
 * `afterAll` that closes all of it (clients, manager, browser, console, dir), also after a failed
 * start, and returns an object whose fields are read once the `beforeAll` ran.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll } from 'vitest';
import { ManagerClient } from '../../electron/services/manager-client';
import { connectSocket } from './connect-socket';
import { localBrokerUrl, openConsolePage, type ConsolePageOptions } from './console-page';
import {
  freePort,
  localAdminToken,
  startConsole,
  stopConsole,
  type RunningConsole,
} from './console-process';
import { makeTempDir, type TempDir } from './temp-dir';

export interface ConsoleFixtureOptions {
  /** `startConsole`'s options (MQTT port, log level, environment). */
  console?: Parameters<typeof startConsole>[1];
  /** `openConsolePage`'s options (viewport, console errors, context). */
  page?: ConsolePageOptions;
  /** Give the local broker's MQTT listener a free port (read it as `mqttPort`); default off. */
  mqtt?: boolean;
  /** Runs on the data directory (which exists) before the console starts: files to seed. */
  beforeStart?: (dataDir: string) => void | Promise<void>;
}

/** What the `beforeAll` made; each field throws when read before it ran. */
export interface ConsoleFixture {
  readonly dir: TempDir;
  /** `<dir>/data`: the console's data directory. */
  readonly dataDir: string;
  readonly app: RunningConsole;
  /** The local broker as a socket.io URL (`http://127.0.0.1:<port>`). */
  readonly brokerUrl: string;
  /** The local broker's MQTT port (with option `mqtt`). */
  readonly mqttPort: number;
  readonly browser: Browser;
  readonly page: Page;
  /** The page's uncaught errors (and console errors unless `page.consoleErrors` is false). */
  readonly pageErrors: string[];
  /** Clients the tests opened; `connect()` adds to it, the `afterAll` closes them all. */
  readonly sockets: Socket[];
  /** A ManagerClient signing as the local admin, made on first call. */
  manager(): ManagerClient;
  /** A connected stock socket.io client on the local broker (`connectSocket`). */
  connect(): Promise<Socket>;
}

interface State {
  dir?: TempDir;
  app?: RunningConsole;
  brokerUrl?: string;
  mqttPort?: number;
  browser?: Browser;
  page?: Page;
  manager?: ManagerClient;
}

/** Timeouts of the hooks, ms: a console start on a loaded 2-core machine can take a minute. */
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * Registers the file's set-up and tear-down in the calling `describe` (see the module doc).
 * `prefix` names the temp dir (`switchboard-e2e-<view>-`). Errors: whatever a start step throws
 * fails the `beforeAll`; what was started by then is still closed.
 */
export function consoleFixture(
  prefix: string,
  options: ConsoleFixtureOptions = {},
): ConsoleFixture {
  const state: State = {};
  const pageErrors: string[] = [];
  const sockets: Socket[] = [];
  const need = <K extends keyof State>(key: K): NonNullable<State[K]> => {
    const value = state[key];
    if (value === undefined) throw new Error(`console fixture: ${key} read before beforeAll ran`);
    return value as NonNullable<State[K]>;
  };
  const dataDir = (): string => path.join(need('dir').path, 'data');

  beforeAll(async () => {
    state.dir = await makeTempDir(prefix);
    if (options.beforeStart) {
      mkdirSync(dataDir(), { recursive: true });
      await options.beforeStart(dataDir());
    }
    if (options.mqtt) state.mqttPort = await freePort();
    state.app = await startConsole(dataDir(), {
      ...options.console,
      ...(state.mqttPort === undefined ? {} : { mqttPort: state.mqttPort }),
    });
    state.brokerUrl = await localBrokerUrl(state.app);
    ({ browser: state.browser, page: state.page } = await openConsolePage(
      state.app,
      pageErrors,
      options.page,
    ));
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    state.manager?.close();
    await state.browser?.close();
    await stopConsole(state.app ?? null);
    await state.dir?.remove();
  }, STOP_TIMEOUT_MS);

  return {
    get dir() {
      return need('dir');
    },
    get dataDir() {
      return dataDir();
    },
    get app() {
      return need('app');
    },
    get brokerUrl() {
      return need('brokerUrl');
    },
    get mqttPort() {
      return need('mqttPort');
    },
    get browser() {
      return need('browser');
    },
    get page() {
      return need('page');
    },
    pageErrors,
    sockets,
    manager() {
      state.manager ??= new ManagerClient({
        url: need('brokerUrl'),
        secret: localAdminToken(dataDir()),
      });
      return state.manager;
    },
    connect() {
      return connectSocket(need('brokerUrl'), sockets);
    },
  };
}
