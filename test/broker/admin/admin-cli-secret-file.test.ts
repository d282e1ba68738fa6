/**
 * `switchboard-admin` reads its secret from `<NAME>_FILE` as the broker does (issue 23's
 * operator check: a broker started with `TYO_MQ_ADMIN_TOKEN_FILE`, as the container, compose
 * file and systemd unit do, could not be managed with `switchboard-admin` in the same
 * environment — it exited 4, "no credential"). Real broker on port 0, in-process CLI runner.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdminExitCode, runAdminCli } from '../../../broker/admin-cli/main';
import { useBroker } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { ADMIN_TOKEN, adminSettings } from './management-client';

function runner(dir: string, vars: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  // No stray ./.env of the test's working directory may get in.
  const env = { TYO_MQ_ENV_FILE: join(dir, 'none.env'), ...vars };
  return {
    out,
    err,
    run: (...argv: string[]) =>
      runAdminCli(argv, { env, stdout: (t) => out.push(t), stderr: (t) => err.push(t) }),
  };
}

describe('switchboard-admin credentials from *_FILE', () => {
  const ctx = useBroker(adminSettings({ storage: 'memory' }));
  let tmp: TempDir | null = null;
  afterEach(async () => {
    await tmp?.remove();
    tmp = null;
  });

  it('signs with the admin token read from TYO_MQ_ADMIN_TOKEN_FILE (trailing newline stripped)', async () => {
    tmp = await makeTempDir();
    const file = join(tmp.path, 'admin_token');
    writeFileSync(file, `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    const r = runner(tmp.path, { TYO_MQ_ADMIN_TOKEN_FILE: file });
    expect(await r.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.OK);
    expect(r.out.join('\n')).toContain('connections:');
  });

  it('names the file as the source of a refused credential, never the secret', async () => {
    tmp = await makeTempDir();
    const file = join(tmp.path, 'admin_token');
    const wrong = 'c'.repeat(64);
    writeFileSync(file, wrong, { mode: 0o600 });
    const r = runner(tmp.path, { TYO_MQ_ADMIN_TOKEN_FILE: file });
    expect(await r.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.REFUSED);
    const said = r.err.join('\n');
    expect(said).toContain(`credential: TYO_MQ_ADMIN_TOKEN from TYO_MQ_ADMIN_TOKEN_FILE=${file}`);
    expect(said).not.toContain(wrong);

    const realm = runner(tmp.path, { TYO_MQ_REALM_MANAGER_KEY_FILE: file });
    expect(await realm.run('--url', ctx.h.url, 'next', '--realm', 'alpha')).toBe(
      AdminExitCode.REFUSED,
    );
    expect(realm.err.join('\n')).toContain(
      `TYO_MQ_REALM_MANAGER_KEY from TYO_MQ_REALM_MANAGER_KEY_FILE=${file}`,
    );
  });

  it('exits 2 with one clear line when the file cannot be used, naming no secret', async () => {
    tmp = await makeTempDir();
    const missing = join(tmp.path, 'nope');
    const r = runner(tmp.path, { TYO_MQ_ADMIN_TOKEN_FILE: missing });
    expect(await r.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.USAGE);
    expect(r.err.join('\n')).toBe(
      `cannot read the credential: TYO_MQ_ADMIN_TOKEN_FILE: cannot read ${missing} (ENOENT)`,
    );

    const file = join(tmp.path, 'admin_token');
    writeFileSync(file, ADMIN_TOKEN, { mode: 0o600 });
    const both = runner(tmp.path, { TYO_MQ_ADMIN_TOKEN_FILE: file, TYO_MQ_ADMIN_TOKEN: 'x' });
    expect(await both.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.USAGE);
    expect(both.err.join('\n')).toContain(
      'TYO_MQ_ADMIN_TOKEN and TYO_MQ_ADMIN_TOKEN_FILE are both set',
    );
    expect(both.err.join('\n')).not.toContain(ADMIN_TOKEN);

    const empty = join(tmp.path, 'empty');
    writeFileSync(empty, '\n', { mode: 0o600 });
    const blank = runner(tmp.path, { TYO_MQ_ADMIN_TOKEN_FILE: empty });
    expect(await blank.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.USAGE);
    expect(blank.err.join('\n')).toContain(`${empty} is empty`);
  });
});
