/**
 * The headless broker warns at start when runtime auth changes would be lost at the next
 * restart (issue 23's operator check): authentication on, configured by variables only — no
 * settings file, no auth store — as the container and compose examples run it; and its
 * `broker listening` line says whether auth is on and which store holds durable copies. Real
 * CLI child processes; the lines are looked for in their JSON logs.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process';
import { waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const WARNING = 'kept in memory only and lost when the broker stops';
const ADMIN = 'd'.repeat(64);

let tmp: TempDir;
let proc: BrokerProcess | null = null;
const others: BrokerProcess[] = [];

beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(async () => {
  await Promise.all([proc?.stop(), ...others.splice(0).map((p) => p.stop())]);
  proc = null;
  await tmp.remove();
});

/**
 * Starts the CLI with `env` (data in `tmp`, or in its sub-directory `dir`) and waits until its
 * start-up log lines are in.
 */
async function start(args: string[], env: NodeJS.ProcessEnv, dir = ''): Promise<BrokerProcess> {
  const p = await startBrokerProcess(
    ['--port', '0', '--data-dir', join(tmp.path, dir), ...args],
    20_000,
    {
      TYO_MQ_ENV_FILE: join(tmp.path, 'none.env'),
      TYO_MQ_ADMIN_TOKEN: ADMIN,
      SWB_LOG_LEVEL: 'info',
      ...env,
    },
    { captureStdout: true },
  );
  await waitUntil(() => p.stdout().includes('broker listening'), 'the start-up log lines are in');
  return p;
}

describe('warning when runtime auth changes are not persisted', () => {
  it('warns with auth on, no settings file and no auth store, and names the fix', async () => {
    proc = await start([], { TYO_MQ_AUTH__ENABLED: 'true' });
    const line = proc
      .stdout()
      .split('\n')
      .find((l) => l.includes(WARNING));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 40 });
    expect(line).toContain('TYO_MQ_AUTH_STORE=true');
    expect(proc.stdout()).not.toContain(ADMIN);
    const listening = proc
      .stdout()
      .split('\n')
      .find((l) => l.includes('"broker listening"'));
    expect(JSON.parse(listening!)).toMatchObject({ auth: true, storage: 'sqlite' });
  }, 30_000);

  it('stays quiet with an auth store, with a settings file, or with auth off', async () => {
    // Three brokers side by side (issue 26: their start-ups overlap), each on its own data.
    const started = await Promise.allSettled([
      start([], { TYO_MQ_AUTH__ENABLED: 'true', TYO_MQ_AUTH_STORE: 'true' }, 'store'),
      start(
        ['--settings', join(tmp.path, 'settings.json')],
        { TYO_MQ_AUTH__ENABLED: 'true' },
        'file',
      ),
      start([], {}, 'off'),
    ]);
    for (const result of started) if (result.status === 'fulfilled') others.push(result.value);
    for (const result of started) {
      if (result.status === 'rejected') throw result.reason;
      expect(result.value.stdout()).not.toContain(WARNING);
    }
  }, 60_000);
});
