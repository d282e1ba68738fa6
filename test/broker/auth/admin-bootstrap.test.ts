/**
 * Admin token bootstrap and the `.env` file (`spec/protocol-admin.md` §5, §19
 * "phase1-auth-realms" bootstrap items): generated token appended with mode 0600, loaded env
 * file, `auto_admin_token: false`, the token authenticating as `{realm:"*", role:"admin"}`.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseEnvFile } from '../../../broker/files/env-file';
import { authenticate, startAuthBroker } from '../../helpers/auth-clients';
import type { Harness } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let dir: TempDir;
let h: Harness | undefined;
beforeEach(async () => {
  dir = await makeTempDir('switchboard-bootstrap-');
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await dir.remove();
});

describe('the .env format used by the bootstrap', () => {
  it('reads KEY=value lines, skips comments and blanks, strips one pair of quotes', () => {
    expect(
      parseEnvFile(
        '# c\n\nA=1\nB="two words"\nC=\'x\'\n  D = spaced  \nE="unterminated\nbad line\n',
      ),
    ).toEqual({ A: '1', B: 'two words', C: 'x', D: 'spaced', E: '"unterminated' });
  });
});

describe('bootstrap (§5)', () => {
  it('writes TYO_MQ_ADMIN_TOKEN= to the configured env file (0600); the token is admin of *', async () => {
    const envFile = path.join(dir.path, 'nested', 'broker.env');
    const env: NodeJS.ProcessEnv = {};
    h = await startAuthBroker({ env_file: envFile, auto_admin_token: true }, {}, { env });
    const text = readFileSync(envFile, 'utf8');
    const m = /^TYO_MQ_ADMIN_TOKEN="([0-9a-f]{64})"\n$/.exec(text);
    expect(m).not.toBeNull();
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(env.TYO_MQ_ADMIN_TOKEN).toBe(m![1]);
    const s = await h.connect();
    expect(await authenticate(s, { token: m![1] })).toEqual({
      event: 'AUTH_OK',
      realm: '*',
      role: 'admin',
    });
  });

  it('appends after existing content without a trailing newline and tightens its mode', async () => {
    const envFile = path.join(dir.path, '.env');
    writeFileSync(envFile, 'OTHER=1', { mode: 0o644 });
    h = await startAuthBroker(
      { env_file: envFile, admin_token_env: 'MY_ADMIN', auto_admin_token: true },
      {},
      { env: {} },
    );
    expect(readFileSync(envFile, 'utf8')).toMatch(/^OTHER=1\nMY_ADMIN="[0-9a-f]{64}"\n$/);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
  });

  it('uses a token already in the env file and writes nothing', async () => {
    const envFile = path.join(dir.path, '.env');
    writeFileSync(envFile, "# admin\nTYO_MQ_ADMIN_TOKEN='from-the-file'\n");
    h = await startAuthBroker({ env_file: envFile, auto_admin_token: true }, {}, { env: {} });
    expect(readFileSync(envFile, 'utf8')).toBe("# admin\nTYO_MQ_ADMIN_TOKEN='from-the-file'\n");
    const s = await h.connect();
    expect(await authenticate(s, { token: 'from-the-file' })).toMatchObject({ realm: '*' });
  });

  it('with auto_admin_token:false and TYO_MQ_ADMIN_TOKEN set, uses it and creates no file', async () => {
    const envFile = path.join(dir.path, '.env');
    h = await startAuthBroker(
      { env_file: envFile, auto_admin_token: false },
      {},
      { env: { TYO_MQ_ADMIN_TOKEN: 'env-admin-token' } },
    );
    expect(existsSync(envFile)).toBe(false);
    const s = await h.connect();
    expect(await authenticate(s, { token: 'env-admin-token' })).toEqual({
      event: 'AUTH_OK',
      realm: '*',
      role: 'admin',
    });
  });

  it('does nothing while auth is disabled or an admin token is configured', async () => {
    const envFile = path.join(dir.path, '.env');
    h = await startAuthBroker(
      { enabled: false, env_file: envFile, auto_admin_token: true },
      {},
      {},
    );
    await h.close();
    h = await startAuthBroker(
      {
        env_file: envFile,
        auto_admin_token: true,
        tokens: [{ token: 'configured', realm: '*', role: 'admin' }],
      },
      {},
      { env: {} },
    );
    expect(existsSync(envFile)).toBe(false);
  });

  it('logs the file and variable but never the generated token', async () => {
    const envFile = path.join(dir.path, '.env');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    h = await startAuthBroker(
      { env_file: envFile, auto_admin_token: true },
      {},
      { env: {}, logger },
    );
    const token = /"([0-9a-f]{64})"/.exec(readFileSync(envFile, 'utf8'))![1]!;
    const log = lines.join('');
    expect(log).toContain(envFile);
    expect(log).toContain('TYO_MQ_ADMIN_TOKEN');
    expect(log).not.toContain(token);
  });
});
