/**
 * `npm run broker -- --auth` (issue 22 item 17): authentication on without a settings file or
 * variable; the generated admin token lands in the env file, where `switchboard-admin` finds it;
 * the flag forces `auth.enabled` without writing it into the settings file; `--help` says how
 * to turn authentication on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdminCli } from '../../../broker/admin-cli/main';
import { BROKER_USAGE, parseBrokerFlags } from '../../../broker/cli-flags';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let tmp: TempDir;
let proc: BrokerProcess | null = null;

beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(async () => {
  await proc?.stop();
  proc = null;
  await tmp.remove();
});

describe('npm run broker --auth', () => {
  it('parses --auth and documents how to turn authentication on', () => {
    expect(parseBrokerFlags(['--auth'], {}).auth).toBe(true);
    expect(parseBrokerFlags([], {}).auth).toBe(false);
    expect(BROKER_USAGE).toMatch(/--auth\s+turn authentication on/);
    expect(BROKER_USAGE).toContain('Authentication is off by default');
    expect(BROKER_USAGE).toContain('TYO_MQ_ADMIN_TOKEN');
  });

  it('runs with auth on, the generated admin token in the env file, the settings file untouched', async () => {
    const envFile = join(tmp.path, 'broker.env');
    const settings = join(tmp.path, 'settings.json');
    proc = await startBrokerProcess(
      ['--auth', '--port', '0', '--data-dir', tmp.path, '--settings', settings],
      20_000,
      { TYO_MQ_ENV_FILE: envFile },
    );
    const stats = await fetch(`${proc.url}/api/stats`);
    expect(stats.status).toBe(401);
    expect(readFileSync(envFile, 'utf8')).toMatch(/^TYO_MQ_ADMIN_TOKEN="[0-9a-f]{64}"$/m);
    // The settings file is seeded before the broker listens.
    expect(existsSync(settings)).toBe(true);
    const file = JSON.parse(readFileSync(settings, 'utf8')) as { auth?: { enabled?: unknown } };
    expect(file.auth?.enabled).toBeUndefined();
    // The operator's next step: switchboard-admin with that env file.
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(['--url', proc.url, '--env-file', envFile, 'stats'], {
      env: {},
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
    });
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out.at(-1)).toMatch(/connections: \d+/);
  }, 30_000);
});
