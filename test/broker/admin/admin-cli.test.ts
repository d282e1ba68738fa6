/**
 * `switchboard-admin` against a real broker (in-process CLI runner, real sockets): secrets only
 * from the environment or an env file, exit codes, JSON output, bulk DLQ replay with progress.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdminExitCode, runAdminCli } from '../../../broker/admin-cli/main';
import { useBroker } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { ADMIN_TOKEN, adminSettings } from './management-client';

function runner(vars: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  // Never the working directory's `.env`: the test names every credential it gives.
  const env = { TYO_MQ_ENV_FILE: join(tmpdir(), 'switchboard-admin-cli-none.env'), ...vars };
  return {
    out,
    err,
    run: (...argv: string[]) =>
      runAdminCli(argv, { env, stdout: (t) => out.push(t), stderr: (t) => err.push(t) }),
  };
}

describe('switchboard-admin', () => {
  const ctx = useBroker(adminSettings());
  let tmp: TempDir | null = null;
  afterEach(async () => {
    await tmp?.remove();
    tmp = null;
  });

  it('refuses secrets on the command line and runs without a credential only for request', async () => {
    const r = runner({});
    expect(await r.run('--url', ctx.h.url, '--token', ADMIN_TOKEN, 'stats')).toBe(
      AdminExitCode.USAGE,
    );
    expect(r.err.join('\n')).toContain('never read from the command line');
    expect(r.err.join('\n')).not.toContain(ADMIN_TOKEN);
    expect(await r.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.NO_CREDENTIAL);
    expect(await r.run('--url', ctx.h.url, 'frobnicate')).toBe(AdminExitCode.NO_CREDENTIAL);
    const withToken = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(await withToken.run('--url', ctx.h.url, 'frobnicate')).toBe(AdminExitCode.USAGE);
    // The error line, then one pointer to --help: not the whole help burying it.
    expect(withToken.err).toEqual([
      'unknown command: frobnicate\nswitchboard-admin --help lists the commands and options',
    ]);
  });

  it('manages realms with the admin token from an env file; JSON and table output', async () => {
    tmp = await makeTempDir();
    const envFile = join(tmp.path, 'admin.env');
    writeFileSync(envFile, `# admin\nTYO_MQ_ADMIN_TOKEN="${ADMIN_TOKEN}"\n`);
    const r = runner({});
    const base = ['--url', ctx.h.url, '--env-file', envFile];
    expect(await r.run(...base, 'realm', 'add', 'org:acme', '--ttl', '2h')).toBe(0);
    // An unset acceptance follows the realm's auth: the table says which (as the console does).
    // The consumers column says who may read it (issue 20): a token, nothing less.
    expect(r.out.at(-1)).toMatch(
      /org:acme\s+required\s+token\s+no\s+no\s+required \(default\)\s+ephemeral/,
    );
    expect(await r.run(...base, 'realm', 'tokenless', 'org:acme', 'on')).toBe(0);
    expect(r.out.at(-1)).toMatch(/org:acme\s+required\s+token-less allowed\s/);
    expect(await r.run(...base, 'realm', 'tokenless', 'org:acme', 'off')).toBe(0);
    expect(r.out.at(-1)).toMatch(/org:acme\s+required\s+token\s/);
    expect(await r.run(...base, 'realm', 'tokenless', 'org:acme')).toBe(AdminExitCode.USAGE);
    expect(await r.run(...base, '--json', 'realm', 'list')).toBe(0);
    const listed = JSON.parse(r.out.at(-1)!);
    expect(listed.settings.realms['org:acme'].ephemeral).toBe(true);
    expect(await r.run(...base, 'realm', 'manager-key', 'org:acme')).toBe(0);
    expect(r.out.at(-1)).toMatch(/manager-key of org:acme set: [0-9a-f]{64}/);
    expect(await r.run(...base, 'realm', 'lifetime', 'org:acme', '--permanent')).toBe(0);
    expect(await r.run(...base, 'realm', 'remove', 'org:acme')).toBe(AdminExitCode.USAGE);
    expect(await r.run(...base, 'realm', 'remove', 'org:acme', '--yes')).toBe(0);
    expect(await r.run(...base, 'realm', 'remove', 'org:acme', '--yes')).toBe(
      AdminExitCode.REFUSED,
    );
    expect(r.err.at(-1)).toBe('refused: 404 realm not found');
  });

  it('replays the whole DLQ in batches with a progress line', async () => {
    const store = ctx.h.broker.store;
    for (let i = 0; i < 1_200; i++) {
      const id = await store.enqueue('default', 'p-job', {
        consumer: 'w',
        payload: { event: 'job', message: i, from: 'p' },
        producer: 'p',
      });
      await store.deadLetter(id, 'test');
    }
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(await r.run('--url', ctx.h.url, 'dlq', 'replay', '--all')).toBe(0);
    expect(r.err).toEqual(['replayed 500/1200', 'replayed 1000/1200', 'replayed 1200/1200']);
    expect(r.out.at(-1)).toBe('replayed 1200 of 1200');
    expect(await store.listDlq(null)).toEqual([]);
    expect(await store.countQueued('default')).toBe(1_200);
    expect(await r.run('--url', ctx.h.url, '--json', 'stats')).toBe(0);
    expect(JSON.parse(r.out.at(-1)!).stats.realms.default.queued).toBe(1_200);
  });

  it('replays a handful of ids with one summary line and no progress line', async () => {
    const store = ctx.h.broker.store;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await store.enqueue('default', 'p-job', {
        consumer: 'w',
        payload: { event: 'job', message: i, from: 'p' },
        producer: 'p',
      });
      await store.deadLetter(id, 'test');
      ids.push(id);
    }
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(await r.run('--url', ctx.h.url, 'dlq', 'replay', ...ids)).toBe(0);
    expect(r.err).toEqual([]);
    expect(r.out).toEqual(['replayed 3 of 3']);
  });

  it('request → next → approve, then revoke by realm + client id', async () => {
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    const url = ['--url', ctx.h.url, '--json'];
    expect(
      await runner({}).run(
        ...url,
        'request',
        '--realm',
        'default',
        '--role',
        'consumer',
        '--client-id',
        'agent-1',
      ),
    ).toBe(0);
    expect(await r.run(...url, 'next')).toBe(0);
    const pending = JSON.parse(r.out.at(-1)!).request;
    expect(pending).toMatchObject({ realm: 'default', client_id: 'agent-1', status: 'pending' });
    expect(JSON.stringify(pending)).not.toContain('client_token"');
    expect(await r.run(...url, 'approve', pending.request_id, '--role', 'consumer')).toBe(0);
    expect(JSON.parse(r.out.at(-1)!).request.status).toBe('approved');
    expect(await r.run(...url, 'revoke', '--realm', 'default', '--client-id', 'agent-1')).toBe(0);
    expect(JSON.parse(r.out.at(-1)!).revoked).toHaveLength(1);
    expect(await r.run(...url, 'approve', pending.request_id)).toBe(AdminExitCode.REFUSED);
  });

  it('approve without --role grants the role the client requested, not both', async () => {
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    const url = ['--url', ctx.h.url, '--json'];
    const requester = runner({});
    expect(await requester.run(...url, 'request', '--realm', 'default', '--role', 'producer')).toBe(
      0,
    );
    const { request_id: id } = JSON.parse(requester.out.at(-1)!);
    expect(await r.run(...url, 'approve', id)).toBe(0);
    expect(JSON.parse(r.out.at(-1)!).request).toMatchObject({
      status: 'approved',
      role: 'producer',
    });
  });

  it('the bin runs the CLI exactly once', () => {
    const bin = new URL('../../../bin/switchboard-admin.mjs', import.meta.url);
    const out = execFileSync(process.execPath, [bin.pathname, '--help'], { encoding: 'utf8' });
    expect(out.match(/^Usage:/gm)).toHaveLength(1);
  });

  it('exits 3 when the broker is unreachable', async () => {
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(await r.run('--url', 'http://127.0.0.1:1', '--timeout', '2000', 'stats')).toBe(
      AdminExitCode.UNREACHABLE,
    );
  });
});
