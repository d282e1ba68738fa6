/**
 * The launcher's side of §12.3 and §13: the env file is loaded first, the settings file is
 * created and watched, `--auth-store` without a value picks the default file, SIGHUP reloads.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAuthStore } from '../../../broker/auth/store/sqlite-auth-store';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process';
import { delay } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let tmp: TempDir;
let proc: BrokerProcess | null = null;
const savedEnv = { ...process.env };

beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(async () => {
  await proc?.stop();
  proc = null;
  // The forked CLI inherits process.env; this test file's worker is its own process.
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await tmp.remove();
});

describe('broker CLI settings and auth store', () => {
  it('loads TYO_MQ_ENV_FILE first and honours the TYO_MQ_* it sets', async () => {
    const settings = join(tmp.path, 'settings.json');
    const store = join(tmp.path, 'store', 'auth.sqlite');
    const envFile = join(tmp.path, 'mq.env');
    writeFileSync(
      envFile,
      `# deployment\nTYO_MQ_SETTINGS_FILE="${settings}"\nTYO_MQ_AUTH_STORE='${store}'\n`,
    );
    process.env.TYO_MQ_ENV_FILE = envFile;
    proc = await startBrokerProcess(['--port', '0', '--data-dir', tmp.path]);
    // The settings file was created, seeded, before the broker listened; with the store active
    // its realms live in SQLite.
    expect(existsSync(settings)).toBe(true);
    expect(statSync(settings).mode & 0o777).toBe(0o600);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    const held = new SqliteAuthStore(store);
    try {
      expect(held.load().realms.default).toEqual({ required: false });
    } finally {
      held.close();
    }
    const file = JSON.parse(readFileSync(settings, 'utf8')) as { auth: object };
    expect(file.auth).not.toHaveProperty('realms');
  }, 30_000);

  it('takes --auth-store without a file name; a SIGHUP (or the watcher) reloads without stopping it', async () => {
    const settings = join(tmp.path, 'conf', 'settings.json');
    proc = await startBrokerProcess([
      '--settings',
      settings,
      '--auth-store',
      '--port',
      '0',
      '--data-dir',
      tmp.path,
    ]);
    expect(existsSync(join(tmp.path, 'conf', 'tyo-mq.auth.sqlite'))).toBe(true);
    const health = () => fetch(`${proc!.url}/health`).then((r) => r.status);
    expect(await health()).toBe(200);
    // The seed is written before the broker listens: an edit made as soon as it answers
    // cannot be overwritten by a seed write still in flight.
    expect(existsSync(settings)).toBe(true);
    writeFileSync(settings, JSON.stringify({ http_api: { enabled: false } }));
    proc.child.kill('SIGHUP');
    let status = await health();
    for (let i = 0; i < 50 && status !== 403; i++) {
      await delay(100);
      status = await health();
    }
    expect(status).toBe(403);
    // SIGHUP did not stop the broker.
    expect(proc.child.exitCode).toBeNull();
  }, 30_000);
});
