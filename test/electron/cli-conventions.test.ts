/**
 * Both command lines, `npm run broker` (broker/cli.ts) and `npm run console`
 * (electron/web/cli.ts), follow one convention (issue 7 item 10; issue 8 items 16, 17):
 * `--help` on stdout with the defaults and exit 0; `--log-level` / `SWITCHBOARD_LOG_LEVEL`
 * (with the older `SWB_LOG_LEVEL`); exit 2 for bad usage or configuration (an unusable address
 * included, never retried), 3 for a port in use. Real processes throughout.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConsoleFlags } from '../../electron/web/cli-flags';
import { brokerCliArgv } from '../helpers/broker-cli';
import { CONSOLE_BUNDLE_ENV } from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const BROKER = fileURLToPath(new URL('../../broker/cli.ts', import.meta.url));
const CONSOLE = fileURLToPath(new URL('../../electron/web/cli.ts', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI to its exit (killed after `timeoutMs`), without any log-level variable set. */
function run(entry: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 150_000) {
  const base = { ...process.env };
  delete base.SWITCHBOARD_LOG_LEVEL;
  delete base.SWB_LOG_LEVEL;
  // Both run from the test run's bundles when built (test/helpers/broker-cli.ts,
  // test/support/console-bundle-setup.ts), else from the source through tsx.
  const consoleBundle = process.env[CONSOLE_BUNDLE_ENV];
  const [node, argv] =
    entry === BROKER
      ? brokerCliArgv(args)
      : [
          process.execPath,
          consoleBundle ? [consoleBundle, ...args] : ['--import', 'tsx', entry, ...args],
        ];
  const child = spawn(node, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...base, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise<Run>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function takenPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Each case starts real Node processes: slow on a loaded machine. The cases run
// concurrently (issue 26): each waits mostly on its own processes' start-up and exit, and each
// has a data directory of its own.
vi.setConfig({ testTimeout: 180_000 });

let dir: TempDir;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(async () => {
  await dir.remove();
});

describe.concurrent.each([
  ['broker', BROKER, /^Usage: switchboard-broker \[options\]\n.*npm run broker -- \[options\]/],
  ['console', CONSOLE, /^Usage: npm run console -- \[options\]/],
])('%s CLI', (_name, entry, usage) => {
  it('prints --help with defaults and exit codes on stdout, exit 0', async () => {
    const result = await run(entry, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(usage);
    expect(result.stdout).toContain('--log-level <level>');
    expect(result.stdout).toContain('(default: $SWITCHBOARD_LOG_LEVEL, else info)');
    expect(result.stdout).toContain(
      'Exit codes: 0 stopped normally, 1 runtime failure, 2 bad usage or configuration, 3 port in use.',
    );
  });

  it('refuses an unknown flag or log level with exit 2 and a pointer to --help', async () => {
    const [unknown, flag, ...fromEnv] = await Promise.all([
      run(entry, ['--colour']),
      run(entry, ['--log-level', 'loud']),
      run(entry, [], { SWITCHBOARD_LOG_LEVEL: 'loud' }),
      run(entry, [], { SWB_LOG_LEVEL: 'loud' }),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/Unknown option '--colour'[\s\S]*--help' for the options/);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('Invalid --log-level');
    for (const [result, variable] of [
      [fromEnv[0], 'SWITCHBOARD_LOG_LEVEL'],
      [fromEnv[1], 'SWB_LOG_LEVEL'],
    ] as const) {
      expect(result?.code).toBe(2);
      expect(result?.stderr).toContain(`Invalid ${variable} loud`);
    }
  });
});

describe.concurrent('broker CLI failures', () => {
  it('exits 3 when its port is taken and 2 when its address is unusable', async () => {
    const blocker = await takenPort();
    try {
      const dataDir = path.join(dir.path, 'broker-taken');
      const taken = await run(BROKER, ['--port', String(blocker.port), '--data-dir', dataDir]);
      expect(taken.code).toBe(3);
      expect(taken.stderr).toContain(`Port ${blocker.port} is already in use`);
    } finally {
      await blocker.close();
    }
    const args = ['--host', '192.0.2.1', '--port', '0', '--storage', 'memory'];
    const unusable = await run(BROKER, [...args, '--data-dir', path.join(dir.path, 'broker-nic')]);
    expect(unusable.code).toBe(2);
    expect(unusable.stderr).toContain('192.0.2.1 is not an address of this machine');
  });
});

describe.concurrent('console CLI failures', () => {
  const common = (name: string) => ['--port', '0', '--data-dir', path.join(dir.path, name)];

  it('refuses a non-loopback --host (the token would cross the network in clear)', async () => {
    expect(() => parseConsoleFlags(['--host', '0.0.0.0'], {})).toThrow(
      /^Invalid --host: the console listens on loopback only/,
    );
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      expect(parseConsoleFlags(['--host', host], {}).host).toBe(host);
    }
    const result = await run(CONSOLE, ['--host', '0.0.0.0', ...common('console-host')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('ssh -L 17353:127.0.0.1:17353');
  });

  it('exits 2 at once, without retrying, when the broker address is unusable', async () => {
    const result = await run(
      CONSOLE,
      ['--broker-host', '192.0.2.1', '--broker-port', '0', ...common('console-nic')],
      { SWITCHBOARD_LOG_LEVEL: 'silent' },
      150_000,
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // (The first run may also print the UI build's progress: compare the last line.)
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      "Cannot start the local broker: Cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine (EADDRNOTAVAIL). Use --host 127.0.0.1, 0.0.0.0 or one of this machine's addresses.",
    );
  }, 180_000);

  it('exits 3 when the console port is taken', async () => {
    const dataDir = path.join(dir.path, 'console-taken');
    const blocker = await takenPort();
    try {
      const result = await run(
        CONSOLE,
        ['--port', String(blocker.port), '--broker-port', '0', '--data-dir', dataDir],
        { SWITCHBOARD_LOG_LEVEL: 'silent' },
        150_000,
      );
      expect(result.code).toBe(3);
      expect(result.stderr.trim().split('\n').at(-1)).toBe(
        `Console port ${blocker.port} is already in use. Pick another with --port <n> (0 = any free port).`,
      );
    } finally {
      await blocker.close();
    }
  }, 180_000);
});
