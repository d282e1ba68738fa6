/**
 * `switchboard-admin` as an operator meets it (issue 22 items 4, 17, 21): refusals name the
 * credential's source and the broker URL; `--console-data-dir` signs with the console's own
 * token without printing it; `dlq list` pages with a total, a "more" hint and `--cursor`, and
 * shows events, not subscription keys; `--json` times are ISO strings; replaying a missing id
 * exits 1; `--help` says what `request` does; client-chosen names are printed inert.
 * Real broker on port 0, in-process CLI runner.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isoTimes } from '../../../broker/admin-cli/format';
import { AdminExitCode, runAdminCli } from '../../../broker/admin-cli/main';
import { FileSecretStore, LOCAL_ADMIN_TOKEN_SECRET } from '../../../electron/services/secret-store';
import { useBroker } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { ADMIN_TOKEN, adminSettings } from './management-client';

function runner(vars: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const env = { TYO_MQ_ENV_FILE: join(tmpdir(), 'switchboard-admin-cli-none.env'), ...vars };
  return {
    out,
    err,
    all: () => [...out, ...err].join('\n'),
    run: (...argv: string[]) =>
      runAdminCli(argv, { env, stdout: (t) => out.push(t), stderr: (t) => err.push(t) }),
  };
}

describe('switchboard-admin for operators', () => {
  const ctx = useBroker(adminSettings({ storage: 'memory' }));
  let tmp: TempDir | null = null;
  afterEach(async () => {
    await tmp?.remove();
    tmp = null;
  });

  async function deadLetters(n: number, realm = 'default'): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = await ctx.h.broker.store.enqueue(realm, 'fleet-job', {
        consumer: 'worker',
        payload: { event: 'job', message: i, from: 'fleet' },
        producer: 'fleet',
      });
      await ctx.h.broker.store.deadLetter(id, 'max_attempts');
      ids.push(id);
    }
    return ids;
  }

  it('names the credential source and the URL when a call is refused, never the secret', async () => {
    tmp = await makeTempDir();
    const envFile = join(tmp.path, 'stray.env');
    const wrong = 'b'.repeat(64);
    writeFileSync(envFile, `TYO_MQ_ADMIN_TOKEN="${wrong}"\n`);
    const r = runner({ TYO_MQ_ENV_FILE: envFile });
    expect(await r.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.REFUSED);
    const said = r.err.join('\n');
    expect(said).toContain('refused: 401 Invalid manager proof');
    expect(said).toContain(`credential: TYO_MQ_ADMIN_TOKEN from env file ${envFile}`);
    expect(said).toContain(`broker: ${ctx.h.url}`);
    expect(said).not.toContain(wrong);

    const fromEnv = runner({ TYO_MQ_ADMIN_TOKEN: wrong });
    expect(await fromEnv.run('--url', ctx.h.url, '--json', 'stats')).toBe(AdminExitCode.REFUSED);
    expect(JSON.parse(fromEnv.err.at(-1)!)).toMatchObject({
      code: 401,
      credential_source: 'TYO_MQ_ADMIN_TOKEN from the environment',
      broker_url: ctx.h.url,
    });
    // Where it looked, when it found nothing.
    const none = runner({});
    expect(await none.run('--url', ctx.h.url, 'stats')).toBe(AdminExitCode.NO_CREDENTIAL);
    expect(none.err.join('\n')).toContain('--console-data-dir');
  });

  it("signs with the console's local admin token from --console-data-dir", async () => {
    tmp = await makeTempDir();
    const consoleDir = join(tmp.path, 'console-data');
    new FileSecretStore(consoleDir).set(LOCAL_ADMIN_TOKEN_SECRET, ADMIN_TOKEN);
    // A stray .env with another token is not used once the console's store is named.
    const stray = join(tmp.path, '.env');
    writeFileSync(stray, `TYO_MQ_ADMIN_TOKEN="${'c'.repeat(64)}"\n`);
    const r = runner({ TYO_MQ_ENV_FILE: stray });
    expect(await r.run('--url', ctx.h.url, '--console-data-dir', consoleDir, 'realm', 'list')).toBe(
      0,
    );
    expect(r.out.at(-1)).toMatch(/^realm\s+auth/);
    expect(r.all()).not.toContain(ADMIN_TOKEN);
    // --console: the default directory, $SWITCHBOARD_DATA_DIR.
    const byDefault = runner({ SWITCHBOARD_DATA_DIR: consoleDir });
    expect(await byDefault.run('--url', ctx.h.url, '--console', 'stats')).toBe(0);

    // A wrong token there: the refusal names that store.
    new FileSecretStore(consoleDir).set(LOCAL_ADMIN_TOKEN_SECRET, 'd'.repeat(64));
    const refused = runner({});
    expect(await refused.run('--url', ctx.h.url, '--console-data-dir', consoleDir, 'stats')).toBe(
      AdminExitCode.REFUSED,
    );
    expect(refused.err.join('\n')).toContain(
      `credential: the local broker's admin token from the console's secret store ${join(consoleDir, 'console-secrets.json')}`,
    );

    // Not a console directory; the desktop app's keychain store; two credentials named.
    const empty = runner({});
    expect(
      await empty.run('--url', ctx.h.url, '--console-data-dir', join(tmp.path, 'nope'), 'stats'),
    ).toBe(AdminExitCode.NO_CREDENTIAL);
    expect(empty.err.join('\n')).toContain('console-secrets.json not found');
    const desktop = join(tmp.path, 'userData');
    new FileSecretStore(desktop).set('x', 'y'); // creates the directory
    writeFileSync(join(desktop, 'console-secrets.safe.json'), '{"version":1,"secrets":{}}');
    const app = runner({});
    expect(
      await app.run(
        '--url',
        ctx.h.url,
        '--console-data-dir',
        join(desktop, 'broker-data'),
        'stats',
      ),
    ).toBe(AdminExitCode.NO_CREDENTIAL);
    expect(app.err.join('\n')).toContain('OS keychain');
    expect(
      await runner({}).run('--console', '--env-file', stray, '--url', ctx.h.url, 'stats'),
    ).toBe(AdminExitCode.USAGE);
  });

  it('pages dlq list with a total, a more hint and --cursor; shows the event', async () => {
    const ids = await deadLetters(5);
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(await r.run('--url', ctx.h.url, 'dlq', 'list', '--limit', '2')).toBe(0);
    const first = r.out.at(-1)!;
    const lines = first.split('\n');
    expect(lines[0]).toMatch(/^id\s+realm\s+event\s+producer\s+consumer\s+reason/);
    expect(lines[1]).toMatch(new RegExp(`^${ids[0]}\\s+default\\s+job\\s+fleet\\s+worker\\s`));
    expect(first).not.toContain('fleet-job');
    expect(lines.at(-1)).toBe(
      `2 shown of 5 dead letters; more: switchboard-admin dlq list --limit 2 --cursor ${ids[1]}`,
    );
    expect(
      await r.run('--url', ctx.h.url, 'dlq', 'list', '--limit', '2', '--cursor', ids[3]!),
    ).toBe(0);
    const last = r.out.at(-1)!.split('\n');
    expect(last[1]).toMatch(new RegExp(`^${ids[4]}\\s`));
    expect(last.at(-1)).toBe(`1 shown of 5 dead letters (after ${ids[3]})`);
    expect(await r.run('--url', ctx.h.url, 'dlq', 'list', '--limit', 'x')).toBe(
      AdminExitCode.USAGE,
    );
  });

  it('prints every time as an ISO string with --json', async () => {
    await deadLetters(1);
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    const base = ['--url', ctx.h.url, '--json'];
    expect(await r.run(...base, 'realm', 'add', 'org:tmp', '--ttl', '2h')).toBe(0);
    const realm = JSON.parse(r.out.at(-1)!).settings.realms['org:tmp'];
    expect(realm.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await r.run(...base, 'dlq', 'list')).toBe(0);
    const [entry] = JSON.parse(r.out.at(-1)!).entries;
    const iso = /^\d{4}-\d\d-\d\dT/;
    expect(entry.created_at).toMatch(iso);
    expect(entry.dead_lettered_at).toMatch(iso);
    expect(entry.expires_at === null || iso.test(entry.expires_at)).toBe(true);
    expect(entry.message.message).toBe(0);
    // A refusal's server_time too; a client's own message is left as it was sent.
    expect(
      isoTimes({
        server_time: 0,
        entries: [{ message: { from: 'p', message: { sent_at: 5 } }, expires_at: null }],
      }),
    ).toEqual({
      server_time: '1970-01-01T00:00:00.000Z',
      entries: [{ message: { from: 'p', message: { sent_at: 5 } }, expires_at: null }],
    });
  });

  it('exits 1 when dlq replay or discard names an id the DLQ does not hold', async () => {
    const [id] = await deadLetters(1);
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(await r.run('--url', ctx.h.url, 'dlq', 'replay', 'no-such-id')).toBe(
      AdminExitCode.REFUSED,
    );
    expect(r.out.at(-1)).toBe('replayed 0 of 1; not found: no-such-id');
    expect(r.err.at(-1)).toBe('refused: 404 1 of 1 id(s) not in the DLQ');
    expect(await r.run('--url', ctx.h.url, 'dlq', 'replay', id!, 'gone')).toBe(
      AdminExitCode.REFUSED,
    );
    expect(r.out.at(-1)).toBe('replayed 1 of 2; not found: gone');
    expect(await r.run('--url', ctx.h.url, 'dlq', 'discard', 'gone')).toBe(AdminExitCode.REFUSED);
  });

  it('says in --help what request does', async () => {
    const r = runner({});
    expect(await r.run('--help')).toBe(0);
    const help = r.out.join('\n');
    expect(help).toMatch(/request --realm[^\n]*\n\s+Asks the broker for access as a new client/);
    expect(help).toContain('--console-data-dir <dir>');
    expect(help).toContain('--cursor');
  });

  it('shows control and bidi characters of client-chosen names escaped', async () => {
    const evil = 'agent\u001b[2J\u001b]0;pwned\u0007\u202etxt.exe\u009b31m';
    const requester = runner({});
    expect(
      await requester.run(
        '--url',
        ctx.h.url,
        'request',
        '--realm',
        'default',
        '--client-id',
        'evil-1',
        '--client-name',
        evil,
      ),
    ).toBe(0);
    const r = runner({ TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(await r.run('--url', ctx.h.url, 'next')).toBe(0);
    const human = r.out.at(-1)!;
    expect(human).toContain('agent\\u001b[2J\\u001b]0;pwned\\u0007\\u202etxt.exe\\u009b31m');
    // eslint-disable-next-line no-control-regex -- no raw control character may be left
    expect(human).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    // --json stays valid JSON with the same value.
    expect(await r.run('--url', ctx.h.url, '--json', 'next')).toBe(0);
    const json = r.out.at(-1)!;
    expect(json).not.toMatch(/[\u007f-\u009f\u202e]/);
    expect(JSON.parse(json).request.client_name).toBe(evil);
  });
});
