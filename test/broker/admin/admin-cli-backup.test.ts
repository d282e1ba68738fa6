/**
 * `switchboard-admin backup <dest_dir>` end to end (issue 23 item 1): the CLI as a real child
 * process (bin/switchboard-admin.mjs) against a real broker process with a SQLite message store
 * and an auth store. It prints the files written on the broker's host; a relative path is a
 * usage error (exit 2); a directory the broker does not have, or a wrong token, is refused by
 * the broker (exit 1).
 */
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { ADMIN_TOKEN } from './management-client';

const BIN = fileURLToPath(new URL('../../../bin/switchboard-admin.mjs', import.meta.url));

let broker: BrokerProcess;
let data: TempDir;
let dest: TempDir;

beforeAll(async () => {
  data = await makeTempDir('swb-cli-backup-data-');
  dest = await makeTempDir('swb-cli-backup-dest-');
  broker = await startBrokerProcess(
    ['--port', '0', '--data-dir', data.path, '--auth', '--auth-store', '--storage', 'sqlite'],
    30_000,
    { TYO_MQ_ADMIN_TOKEN: ADMIN_TOKEN },
  );
}, 40_000);

afterAll(async () => {
  await broker?.stop();
  await data?.remove();
  await dest?.remove();
});

/** Runs the CLI with `token` as TYO_MQ_ADMIN_TOKEN; resolves with its exit code and output. */
function cli(args: string[], token = ADMIN_TOKEN) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TYO_MQ_ADMIN_TOKEN: token,
    TYO_MQ_ENV_FILE: join(dest.path, 'none.env'),
  };
  delete env.TYO_MQ_REALM_MANAGER_KEY;
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, '--url', broker.url, ...args],
      { env, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('switchboard-admin backup', () => {
  it('backs the broker stores up into a directory on its host and prints the files', async () => {
    const human = await cli(['backup', dest.path]);
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/store\s+file\s+bytes/);
    expect(human.stdout).toMatch(/messages\s+\S+messages-\S+\.sqlite\s+\d+/);
    expect(human.stdout).toMatch(/auth\s+\S+auth-\S+\.sqlite\s+\d+/);
    expect(human.stdout).toMatch(/backup took \d+ ms \(files on the broker's host\)/);

    const json = await cli(['--json', 'backup', dest.path]);
    expect(json.code).toBe(0);
    const reply = JSON.parse(json.stdout) as {
      ok: boolean;
      files: Array<{ name: string; path: string; source: string }>;
    };
    expect(reply.ok).toBe(true);
    expect(reply.files.map((f) => [f.name, f.source])).toEqual([
      ['messages', join(data.path, 'tyo-mq.sqlite')],
      ['auth', join(data.path, 'tyo-mq.auth.sqlite')],
    ]);
    for (const f of reply.files) {
      const db = new Database(f.path, { readonly: true, fileMustExist: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    }
    // Two runs, four files (names carry the time of each).
    expect(readdirSync(dest.path).filter((n) => n.endsWith('.sqlite'))).toHaveLength(4);
  }, 60_000);

  it('refuses a relative path (exit 2), a missing directory and a wrong token (exit 1)', async () => {
    const relative = await cli(['backup', 'backups']);
    expect(relative.code).toBe(2);
    expect(relative.stderr).toContain('is not an absolute path');
    const missing = await cli(['backup', join(dest.path, 'missing')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/refused: 400 dest_dir does not exist on the broker host/);
    const wrong = await cli(['backup', dest.path], 'b'.repeat(64));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('refused: 401 Invalid manager proof');
    expect(wrong.stderr).not.toContain('b'.repeat(64));
  }, 60_000);
});
