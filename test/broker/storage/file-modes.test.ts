/**
 * Files readable by other local users (issue 20 defect 5): a real `npm run broker` under
 * umask 022 keeps its data directory 0700 and every file in it — the message store and its
 * `-wal`/`-shm`, the auth store, the settings file, the env file with the admin token — 0600.
 * A data directory and store files left 0755/0644 by an older version are restricted, and the
 * broker says so in its log. (The console and the desktop app run this same CLI on their data
 * directory, `--data-dir <dataDir>` / `<userData>/broker-data`.)
 */
import { brokerCliArgv } from '../../helpers/broker-cli';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrokerProcessMessage } from '../../../shared/broker-process';
import { waitUntil } from '../../helpers/wait';

interface Running {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts the broker CLI through `sh` with `umask 022` on `dataDir`; resolves when ready. */
async function startUnderUmask(dataDir: string): Promise<Running> {
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      'umask 022 && exec "$0" "$@"',
      ...brokerCliArgv().flat(),
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--settings',
      join(dataDir, 'settings.json'),
      '--auth-store',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        SWB_LOG_LEVEL: 'warn',
        TYO_MQ_AUTH_ENABLED: 'true',
        TYO_MQ_ENV_FILE: join(dataDir, 'broker.env'),
      },
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker not ready: ${output}`)), 20_000);
    child.on('message', (m: BrokerProcessMessage) => {
      if (m.type === 'broker-ready') {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`broker exited: ${output}`));
    });
  });
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every entry of `dir` (recursively) with its mode, e.g. `{"tyo-mq.sqlite": "600"}`. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, entry);
    if (existsSync(path)) out[entry] = mode(path); // a temp file may just have been renamed
  }
  return out;
}

let root: string;
let running: Running | null = null;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'swb-modes-'));
  chmodSync(root, 0o755); // as a home directory or /var/lib would be
});
afterEach(async () => {
  await running?.stop();
  running = null;
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('data directory and store file modes', () => {
  it('a new data directory is 0700 and every file the broker writes in it 0600, under umask 022', async () => {
    const dataDir = join(root, '.data');
    running = await startUnderUmask(dataDir);
    // The settings file is rewritten (without the realms the auth store took) just after start.
    const settings = join(dataDir, 'settings.json');
    await waitUntil(() => existsSync(settings), 'the settings file is written');
    expect(mode(dataDir)).toBe('700');
    const files = modes(dataDir);
    // The files this run must have made (the -wal of each store exists while it is open).
    for (const name of [
      'tyo-mq.sqlite',
      'tyo-mq.sqlite-wal',
      'tyo-mq.auth.sqlite',
      'tyo-mq.auth.sqlite-wal',
      'settings.json',
      'broker.env',
    ]) {
      expect(files, name).toHaveProperty(name);
    }
    expect(Object.entries(files).filter(([, m]) => m !== '600')).toEqual([]);
  });

  it('restricts a data directory and store files an older version left 0755/0644, and logs it', async () => {
    const dataDir = join(root, '.data');
    running = await startUnderUmask(dataDir);
    await running.stop();
    chmodSync(dataDir, 0o755);
    for (const name of ['tyo-mq.sqlite', 'tyo-mq.sqlite-wal', 'tyo-mq.auth.sqlite']) {
      try {
        chmodSync(join(dataDir, name), 0o644);
      } catch {
        // A -wal a clean shutdown removed: nothing to loosen.
      }
    }
    running = await startUnderUmask(dataDir);
    expect(mode(dataDir)).toBe('700');
    expect(Object.entries(modes(dataDir)).filter(([, m]) => m !== '600')).toEqual([]);
    // The log lines travel on stdout, which may trail the IPC ready message: wait for them.
    const expected = [
      'data directory was accessible to other users; restricted to 0700',
      'message store file was readable by other users; restricted to 0600',
      'auth store file was readable by other users; restricted to 0600',
    ];
    const current = running;
    await waitUntil(
      () => expected.every((line) => current.output().includes(line)),
      'the three restrictions are logged',
    ).catch(() => undefined);
    const log = running.output();
    for (const line of expected) expect(log).toContain(line);
  });
});
