/**
 * `npm run console` as a real process for end-to-end tests: start it, read its one stdout line
 * (`Console: <url>/#token=<secret>`), call its ConsoleApi over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { BROKER_ENTRY_ENV } from '../../electron/services/broker-launcher';
import { FileSecretStore, LOCAL_ADMIN_TOKEN_SECRET } from '../../electron/services/secret-store';
import { ConsoleChannel } from '../../shared/console-api';
import { needsConfirmation } from '../../shared/console-api-confirm';
import { BROKER_BUNDLE_ENV } from '../helpers/broker-cli';

const REPO = path.resolve(import.meta.dirname, '..', '..');

/**
 * The variable naming the console CLI bundled once per run (test/support/console-bundle-setup.ts,
 * an absolute `.mjs` path). Unset (a single file run outside the config's globalSetup):
 * `npm run console`.
 */
export const CONSOLE_BUNDLE_ENV = 'SWB_TEST_CONSOLE_BUNDLE';

export interface RunningConsole {
  child: ChildProcess;
  url: string;
  origin: string;
  token: string;
  stdout: string[];
  stderr: string[];
  /** `code <n>` or the signal name npm re-raised. */
  exited: Promise<string>;
}

/**
 * Spawns the console in its own process group (so the whole npm → tsx → node chain can be
 * signalled): the run's bundle of `electron/web/cli.ts` with plain Node when built
 * (`$SWB_TEST_CONSOLE_BUNDLE`, about 1.5 s less per start), else, or with `npm: true`,
 * `npm run console` itself. `mqttPort` is the local broker's MQTT port (default 0 = any free
 * port; tests that connect MQTT clients pass one from `freePort()`). `logLevel` default `warn`.
 */
export function startConsole(
  dataDir: string,
  options: {
    mqttPort?: number;
    logLevel?: string;
    env?: Record<string, string>;
    npm?: boolean;
  } = {},
): Promise<RunningConsole> {
  const bundle = options.npm ? undefined : process.env[CONSOLE_BUNDLE_ENV];
  const [command, prefix] = bundle
    ? [process.execPath, [bundle]]
    : ['npm', ['run', '--silent', 'console', '--']];
  const child = spawn(
    command,
    [
      ...prefix,
      '--port',
      '0',
      '--broker-port',
      '0',
      '--broker-mqtt-port',
      String(options.mqttPort ?? 0),
      '--data-dir',
      dataDir,
    ],
    {
      cwd: REPO,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SWITCHBOARD_LOG_LEVEL: options.logLevel ?? 'warn',
        // The local broker from the test run's bundle when built (about 1 s less per start).
        ...(process.env[BROKER_BUNDLE_ENV]
          ? { [BROKER_ENTRY_ENV]: process.env[BROKER_BUNDLE_ENV] }
          : {}),
        ...options.env,
      },
    },
  );
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)),
  );
  child.stderr?.setEncoding('utf8').on('data', (text: string) => stderr.push(text));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no Console line; stderr:\n${stderr.join('')}`)),
      90_000,
    );
    let buffered = '';
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      buffered += text;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        stdout.push(line);
        const match = /^Console: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/.exec(line);
        if (match?.[1] && match[2]) {
          clearTimeout(timer);
          resolve({
            child,
            url: line.slice('Console: '.length),
            origin: match[1],
            token: match[2],
            stdout,
            stderr,
            exited,
          });
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`console exited (${code}); stderr:\n${stderr.join('')}`));
    });
  });
}

export async function callApi<T>(app: RunningConsole, method: string, input: unknown): Promise<T> {
  const response = await fetch(`${app.origin}${ConsoleChannel.CALL_PREFIX}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const result = (await response.json()) as { ok: boolean; value: T };
  if (!result.ok) throw new Error(`${method} failed: ${JSON.stringify(result)}`);
  return result.value;
}

/**
 * A dangerous call (approve, revoke, remove realm, discard dead letters) the way the console's
 * UI makes it: `confirmCall` for exactly this call first, then the call with its confirmation
 * (`shared/console-api-confirm.ts`). Other methods are called as they are.
 */
export async function callConfirmed<T>(
  app: RunningConsole,
  method: string,
  input: Record<string, unknown>,
): Promise<T> {
  if (!needsConfirmation(method, input)) return callApi<T>(app, method, input);
  const { confirmation } = await callApi<{ confirmation: string }>(app, 'confirmCall', {
    method,
    input,
  });
  return callApi<T>(app, method, { ...input, confirmation });
}

/** The local broker's admin token the console generated in `dataDir` (tests only). */
export function localAdminToken(dataDir: string): string {
  const token = new FileSecretStore(dataDir).get(LOCAL_ADMIN_TOKEN_SECRET);
  if (!token) throw new Error(`no admin token in ${dataDir}`);
  return token;
}

/**
 * Stops a console started by `startConsole` (its whole process group: npm → tsx → node, and the
 * broker it supervises) and waits for it to exit. `signal` SIGKILL for a console whose clean
 * stop is not the point. Safe with null or an already stopped console.
 */
export async function stopConsole(
  app: RunningConsole | null,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const pid = app?.child.pid;
  if (!app || !pid) return;
  try {
    process.kill(-pid, signal);
  } catch (error) {
    // ESRCH: the group is gone already.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    return;
  }
  await app.exited;
}

/** A TCP port that was free a moment ago on 127.0.0.1 (bound on port 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
