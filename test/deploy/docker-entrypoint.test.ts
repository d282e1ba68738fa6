/**
 * deploy/docker-entrypoint.sh, run with `sh` against a stand-in `switchboard-broker` (and
 * `switchboard-admin`) first on PATH, which records each call — its arguments, and whether it
 * is the entrypoint's own process (`exec`: then `docker stop`'s SIGTERM reaches the broker) —
 * and exits with `FAKE_CHECK_STATUS` when asked `--check-config`.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './deploy-files';

const SCRIPT = join(ROOT, 'deploy/docker-entrypoint.sh');
const dir = mkdtempSync(join(tmpdir(), 'swb-entrypoint-'));
const bin = join(dir, 'bin');
mkdirSync(bin);
// One JSON line per call: {cmd, pid, args}. `$$` is the stand-in's pid.
const FAKE = `#!/bin/sh
printf '{"cmd":"%s","pid":%s,"args":"%s"}\\n' "$(basename "$0")" "$$" "$*" >> "$FAKE_LOG"
case " $* " in *" --check-config "*) exit "\${FAKE_CHECK_STATUS:-0}" ;; esac
exit 0
`;
for (const name of ['switchboard-broker', 'switchboard-admin']) {
  writeFileSync(join(bin, name), FAKE);
  chmodSync(join(bin, name), 0o755);
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Call {
  cmd: string;
  pid: number;
  args: string;
}

let runs = 0;
/** Runs the entrypoint with `args`; its exit code, its pid and the stand-ins' calls. */
function entrypoint(args: string[], env: Record<string, string> = {}) {
  const log = join(dir, `calls-${runs++}.jsonl`);
  writeFileSync(log, '');
  const child = spawn('sh', [SCRIPT, ...args], {
    env: { PATH: `${bin}:${process.env.PATH}`, FAKE_LOG: log, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; pid: number; calls: Call[]; stderr: string }>(
    (resolve) =>
      child.once('exit', (code) => {
        const calls = readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Call);
        resolve({ code, pid: child.pid!, calls, stderr });
      }),
  );
}

describe('deploy/docker-entrypoint.sh', () => {
  it('checks the configuration, then execs the broker bound to 0.0.0.0 with /data', async () => {
    const { code, pid, calls } = await entrypoint([]);
    expect(code).toBe(0);
    const args = '--host 0.0.0.0 --data-dir /data';
    expect(calls).toEqual([
      { cmd: 'switchboard-broker', pid: expect.any(Number), args: `--check-config ${args}` },
      { cmd: 'switchboard-broker', pid, args },
    ]);
    // The check ran as a child; the broker replaced the entrypoint's own process.
    expect(calls[0]!.pid).not.toBe(pid);
  });

  it('keeps the options given, adding only the --host / --data-dir they lack', async () => {
    const given = await entrypoint(['--host=127.0.0.1', '--log-format', 'pretty']);
    expect(given.calls.map((c) => c.args)).toEqual([
      '--check-config --data-dir /data --host=127.0.0.1 --log-format pretty',
      '--data-dir /data --host=127.0.0.1 --log-format pretty',
    ]);
    const both = await entrypoint(['--data-dir', '/srv/data', '--host', '::']);
    expect(both.calls.at(-1)!.args).toBe('--data-dir /srv/data --host ::');
  });

  it('does not start the broker when the configuration is invalid, and exits with its code', async () => {
    const { code, calls } = await entrypoint(['--auth'], { FAKE_CHECK_STATUS: '2' });
    expect(code).toBe(2);
    expect(calls.map((c) => c.args)).toEqual([
      '--check-config --host 0.0.0.0 --data-dir /data --auth',
    ]);
  });

  it('runs --version, --help, --print-config and --check-config at once', async () => {
    for (const flag of ['--version', '--help', '--print-config', '--check-config']) {
      const { code, pid, calls } = await entrypoint([flag]);
      expect(code).toBe(0);
      expect(calls).toEqual([
        { cmd: 'switchboard-broker', pid, args: `--host 0.0.0.0 --data-dir /data ${flag}` },
      ]);
    }
  });

  it('runs any other command as given', async () => {
    const { code, pid, calls } = await entrypoint(['switchboard-admin', 'stats', '--json']);
    expect(code).toBe(0);
    expect(calls).toEqual([{ cmd: 'switchboard-admin', pid, args: 'stats --json' }]);
  });
});
