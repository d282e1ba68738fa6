/**
 * `--print-config`, `--check-config`, `_FILE` secrets, `--log-format pretty` and SIGUSR2 on the
 * real CLI process (docs/configuration.md): sources are named, secrets never printed nor
 * logged, bad configuration exits 2 with each error named.
 */
import { brokerCliCommand } from '../../helpers/broker-cli';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrokerProcessMessage } from '../../../shared/broker-process';
import { waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const SECRETS = {
  admin: 'admin-token-SECRET-a1b2c3d4e5f6',
  jwt: 'jwt-secret-SECRET-0123456789abcdefghijklmnopqrstuvwxyz',
  redisPassword: 'redis-pw-SECRET-9',
  realmKey: 'realm-key-SECRET-7',
  managerKey: 'manager-key-SECRET-8',
};

let tmp: TempDir;
const children: ChildProcess[] = [];
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    }
  }
  await tmp.remove();
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Forks the CLI with exactly `env` (plus PATH), capturing stdout and stderr. */
function run(args: string[], env: NodeJS.ProcessEnv): Run {
  const { modulePath, execArgv } = brokerCliCommand();
  const child = fork(modulePath, args, {
    execArgv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { PATH: process.env.PATH, TYO_MQ_ENV_FILE: join(tmp.path, '.env'), ...env },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

function secretsEnv(): NodeJS.ProcessEnv {
  const adminFile = join(tmp.path, 'admin_token');
  writeFileSync(adminFile, `${SECRETS.admin}\n`);
  const jwtFile = join(tmp.path, 'jwt_secret');
  writeFileSync(jwtFile, SECRETS.jwt);
  const settings = join(tmp.path, 'settings.json');
  writeFileSync(
    settings,
    JSON.stringify({
      storage_options: { url: `redis://user:${SECRETS.redisPassword}@127.0.0.1:6390` },
      auth: { realms: { alpha: { key: SECRETS.realmKey, manager_key: SECRETS.managerKey } } },
      limits: { max_queued_per_realm: 5 },
    }),
  );
  return {
    TYO_MQ_ADMIN_TOKEN_FILE: adminFile,
    TYO_MQ_AUTH__JWT_SECRET_FILE: jwtFile,
    TYO_MQ_AUTH_ENABLED: 'true',
    TYO_MQ_SETTINGS_FILE: settings,
    TYO_MQ_LIMITS__MAX_QUEUED_PER_REALM: '100',
  };
}

function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe('broker CLI configuration', () => {
  it('--print-config shows each value with its source and no secret', async () => {
    const env = secretsEnv();
    const r = run(['--print-config', '--storage', 'memory', '--data-dir', tmp.path], env);
    expect(await r.exited).toBe(0);
    const out = r.stdout();
    const line = (path: string) => out.split('\n').find((l) => l.startsWith(`${path} = `));
    expect(line('limits.max_queued_per_realm')).toMatch(
      /= 100 +# TYO_MQ_LIMITS__MAX_QUEUED_PER_REALM$/,
    );
    expect(line('storage')).toMatch(/= "memory" +# --storage$/);
    expect(line('http_api.enabled')).toMatch(/= true +# default \(switchboard-broker\)$/);
    expect(line('ping_interval')).toMatch(/= 5000 +# default$/);
    expect(line('auth.enabled')).toMatch(/# TYO_MQ_AUTH_ENABLED$/);
    expect(line('auth.jwt_secret')).toMatch(/"<configured>" +# TYO_MQ_AUTH__JWT_SECRET_FILE=/);
    expect(line('auth.realms.alpha.key_configured')).toMatch(/true +# settings file .*settings/);
    expect(line('storage_options.url')).toContain('redacted');
    expect(line('TYO_MQ_ADMIN_TOKEN')).toMatch(/"<redacted>" +# TYO_MQ_ADMIN_TOKEN_FILE=/);
    expectNoSecret(out + r.stderr());
    // Nothing was created: no env file with a generated token, no store.
    expect(existsSync(join(tmp.path, '.env'))).toBe(false);
    expect(existsSync(join(tmp.path, 'tyo-mq.sqlite'))).toBe(false);
  });

  it('--mqtt-port off turns off an MQTT listener the settings file enables', async () => {
    const settings = join(tmp.path, 'settings.json');
    writeFileSync(settings, JSON.stringify({ mqtt: { enabled: true, port: 0 } }));
    const env = { TYO_MQ_SETTINGS_FILE: settings };
    const line = (out: string, path: string) =>
      out.split('\n').find((l) => l.startsWith(`${path} = `));
    // The three runs are independent: started together, their start-ups overlap (issue 26).
    const on = run(['--print-config', '--storage', 'memory'], env);
    const off = run(['--print-config', '--storage', 'memory', '--mqtt-port', 'off'], env);
    const junk = run(['--check-config', '--mqtt-port', 'of'], env);
    expect(await on.exited).toBe(0);
    expect(line(on.stdout(), 'mqtt.enabled')).toMatch(/= true +# settings file/);
    expect(await off.exited).toBe(0);
    expect(line(off.stdout(), 'mqtt.enabled')).toMatch(/= false +# --mqtt-port$/);
    expect(await junk.exited).toBe(2);
    expect(junk.stderr()).toContain(
      'Invalid --mqtt-port of: use 0-65535 (0 = any free port) or off',
    );
  });

  it('--check-config exits 0 when valid and 2 naming every error', async () => {
    // The three runs are independent: started together, their start-ups overlap (issue 26).
    const ok = run(['--check-config', '--data-dir', tmp.path], secretsEnv());
    const bad = run(['--check-config'], {
      TYO_MQ_PING_INTERVAL: 'soon',
      TYO_MQ_LIMITS__MAX_QUEUED_PER_RELAM: '1',
      TYO_MQ_STORAGE_OPTIONS__SYNCHRONOUS: 'SOMETIMES',
      TYO_MQ_AUTH__JWT_SECRET: 'short',
    });
    const both = run(['--check-config'], {
      TYO_MQ_ADMIN_TOKEN: 'x',
      TYO_MQ_ADMIN_TOKEN_FILE: join(tmp.path, 'nope'),
    });
    expect(await ok.exited).toBe(0);
    expect(ok.stderr()).toContain('configuration is valid');
    expect(ok.stdout()).toBe('');

    expect(await bad.exited).toBe(2);
    const err = bad.stderr();
    expect(err).toContain('TYO_MQ_PING_INTERVAL: "soon" is not a number');
    expect(err).toContain('Unknown environment variable TYO_MQ_LIMITS__MAX_QUEUED_PER_RELAM');
    expect(err).toContain('storage_options.synchronous');
    expect(err).toContain('auth.jwt_secret: is too weak');
    expect(err).not.toContain('configuration is valid');

    expect(await both.exited).toBe(2);
    expect(both.stderr()).toContain('TYO_MQ_ADMIN_TOKEN and TYO_MQ_ADMIN_TOKEN_FILE are both set');
  });

  it('starts with secrets from _FILE variables, logs none of them, SIGUSR2 cycles the level', async () => {
    for (const format of ['json', 'pretty'] as const) {
      const env = { ...secretsEnv(), SWITCHBOARD_LOG_LEVEL: 'info' };
      const dataDir = join(tmp.path, `data-${format}`);
      const r = run(
        ['--port', '0', '--storage', 'memory', '--data-dir', dataDir, '--log-format', format],
        env,
      );
      await new Promise<void>((resolve, reject) => {
        r.child.on('message', (m: BrokerProcessMessage) => {
          if (m.type === 'broker-ready') resolve();
          if (m.type === 'broker-fatal') reject(new Error(m.message));
        });
        void r.exited.then((code) => reject(new Error(`exited ${code}: ${r.stderr()}`)));
      });
      // The admin token came from the file: none was generated into the env file.
      expect(existsSync(join(tmp.path, '.env'))).toBe(false);
      r.child.kill('SIGUSR2');
      await waitUntil(() => r.stdout().includes('log level changed'), 'first level change');
      r.child.kill('SIGUSR2');
      await waitUntil(
        () => r.stdout().split('log level changed').length === 3,
        'second level change',
      );
      const out = r.stdout();
      if (format === 'json') {
        const changes = out
          .split('\n')
          .filter((l) => l.includes('log level changed'))
          .map((l) => JSON.parse(l) as { from: string; to: string });
        expect(changes.map((c) => `${c.from}>${c.to}`)).toEqual(['info>debug', 'debug>trace']);
      } else {
        expect(out).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}log level changed from=info to=debug/m);
        expect(out).not.toMatch(/^\{/m);
      }
      expectNoSecret(out + r.stderr());
      r.child.kill('SIGTERM');
      expect(await r.exited).toBe(0);
      expectNoSecret(r.stdout() + r.stderr());
    }
  });
});
