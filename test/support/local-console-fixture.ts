/**
 * One test file's in-process local console (issue 26: the same set-up stood in many
 * test/electron files): a temp dir, `createLocalConsole` on `<dir>/data` with a broker on a free
 * port, started; stock socket.io clients the tests open; all of it closed in the `afterAll`.
 * Call `localConsoleFixture()` in a `describe`: it registers the hooks and returns an object
 * whose fields are read once the `beforeAll` ran.
 */
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll } from 'vitest';
import {
  createLocalConsole,
  type LocalConsole,
  type LocalConsoleOptions,
} from '../../electron/services/local-console';
import { connectSocket } from './connect-socket';
import { makeTempDir, type TempDir } from './temp-dir';

/** `createLocalConsole`'s options but the data directory (always `<dir>/data`). */
export type LocalConsoleFixtureOptions = Partial<Omit<LocalConsoleOptions, 'dataDir'>>;

const urlOf = (local: LocalConsole): string => `http://127.0.0.1:${local.supervisor.status().port}`;

export interface LocalConsoleFixture {
  readonly dir: TempDir;
  /** `<dir>/data`: the console's data directory. */
  readonly dataDir: string;
  readonly local: LocalConsole;
  /** The local broker as a socket.io URL (`http://127.0.0.1:<port>`), read at each use (a
   * restart may move a broker started on port 0). */
  readonly url: string;
  /** Clients `client()` opened; the `afterAll` closes them. */
  readonly sockets: Socket[];
  /** A stock socket.io client on the local broker, connected (WebSocket, no reconnection). */
  client(): Promise<Socket>;
}

/**
 * Registers the set-up and tear-down in the calling `describe` (see the module doc). Options
 * are passed to `createLocalConsole` (default `brokerPort: 0`). Errors: a failed start fails
 * the `beforeAll`; what was made by then is still closed.
 */
export function localConsoleFixture(options: LocalConsoleFixtureOptions = {}): LocalConsoleFixture {
  let dir: TempDir | undefined;
  let local: LocalConsole | undefined;
  const sockets: Socket[] = [];
  const need = <T>(value: T | undefined, name: string): T => {
    if (value === undefined)
      throw new Error(`local console fixture: ${name} read before beforeAll`);
    return value;
  };

  beforeAll(async () => {
    dir = await makeTempDir();
    local = createLocalConsole({ brokerPort: 0, ...options, dataDir: path.join(dir.path, 'data') });
    await local.startBroker();
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await local?.close();
    await dir?.remove();
  }, 30_000);

  return {
    get dir() {
      return need(dir, 'dir');
    },
    get dataDir() {
      return path.join(need(dir, 'dir').path, 'data');
    },
    get local() {
      return need(local, 'local');
    },
    get url() {
      return urlOf(need(local, 'local'));
    },
    sockets,
    client() {
      return connectSocket(urlOf(need(local, 'local')), sockets);
    },
  };
}
