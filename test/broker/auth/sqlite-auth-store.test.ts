import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAuthConfig, type AuthConfig } from '../../../broker/auth/auth-schema';
import { SqliteAuthStore } from '../../../broker/auth/store/sqlite-auth-store';
import { captureLogs } from '../../support/log-capture';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const auth = (input: unknown): AuthConfig => parseAuthConfig(input).data!;

let tmp: TempDir;
let file: string;
const open: SqliteAuthStore[] = [];
const openStore = () => {
  const s = new SqliteAuthStore(file);
  open.push(s);
  return s;
};
beforeEach(async () => {
  tmp = await makeTempDir();
  file = join(tmp.path, 'auth.sqlite');
});
afterEach(async () => {
  for (const s of open.splice(0)) s.close();
  await tmp.remove();
});

describe('SQLite auth store (§14)', () => {
  it('creates the database owner-only (0600) in WAL mode', () => {
    const store = openStore();
    store.sync(auth({ realms: { a: {} } }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('keeps realms, tokens and management tokens row by row across reopen', () => {
    const config = auth({
      realms: { alpha: { required: true, manager_key: 'mk' }, beta: {} },
      tokens: [{ token: 'tok-a', realm: 'alpha', role: 'consumer', client_id: 'c1' }],
      management_tokens: [{ token: 'm-1', realm_prefix: 'team-' }],
    });
    expect(openStore().sync(config)).toBe(4);
    open.pop()!.close();
    const loaded = openStore().load();
    expect({ ...loaded.realms }).toEqual({
      alpha: { required: true, manager_key: 'mk' },
      beta: {},
    });
    expect(loaded.tokens).toEqual(config.tokens);
    expect(loaded.management_tokens).toEqual(config.management_tokens);
  });

  it('writes only what changed since the last sync, deletes what went away', () => {
    const store = openStore();
    const first = auth({ realms: { a: {}, b: {} }, tokens: [{ token: 't1' }, { token: 't2' }] });
    expect(store.sync(first)).toBe(4);
    expect(store.sync(first)).toBe(0);
    const second = auth({
      realms: { a: {}, b: { required: true } },
      tokens: [{ token: 't1' }],
    });
    // b updated, t2 deleted.
    expect(store.sync(second)).toBe(2);
    expect(store.load().tokens.map((t) => t.token)).toEqual(['t1']);
  });

  it('imports with the store winning: realms overlaid by name, tokens unioned by raw token', () => {
    const store = openStore();
    store.sync(
      auth({
        realms: { shared: { required: true } },
        tokens: [{ token: 'same', realm: 'shared', role: 'consumer' }],
      }),
    );
    const merged = store.importInto(
      auth({
        enabled: true,
        realms: { shared: { required: false }, fromFile: {} },
        tokens: [
          { token: 'same', realm: 'default', role: 'admin' },
          { token: 'only-file', realm: 'fromFile' },
        ],
      }),
    );
    expect(merged.enabled).toBe(true);
    expect({ ...merged.realms }).toEqual({ shared: { required: true }, fromFile: {} });
    expect(merged.tokens).toEqual([
      { token: 'same', realm: 'shared', role: 'consumer' },
      { token: 'only-file', realm: 'fromFile', role: 'both' },
    ]);
  });

  it('skips unreadable rows and logs them without the raw token', () => {
    openStore().sync(auth({ realms: { good: {} }, tokens: [{ token: 'good-token' }] }));
    open.pop()!.close();
    const db = new Database(file);
    db.prepare(`INSERT INTO realms VALUES ('bad-json', '{not json')`).run();
    db.prepare(`INSERT INTO realms VALUES ('__proto__', '{}')`).run();
    db.prepare(`INSERT INTO realms VALUES ('bad-shape', '{"required":"yes"}')`).run();
    db.prepare(
      `INSERT INTO tokens VALUES ('secret-raw-token', '{"token":"secret-raw-token","role":"root"}')`,
    ).run();
    db.close();
    const logs = captureLogs();
    const store = new SqliteAuthStore(file, logs.logger);
    open.push(store);
    const loaded = store.load();
    expect(Object.keys(loaded.realms)).toEqual(['good']);
    expect(loaded.tokens.map((t) => t.token)).toEqual(['good-token']);
    const skipped = logs.lines.filter((l) => l.msg === 'unreadable auth store row skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(4);
    expect(logs.text()).not.toContain('secret-raw-token');
  });

  it('rolls back a failed sync as a whole and retries it next time', () => {
    const store = openStore();
    store.sync(auth({ realms: { a: {} } }));
    const db = new Database(file);
    // A trigger makes the second row of the next sync fail.
    db.exec(`CREATE TRIGGER no_b BEFORE INSERT ON realms WHEN NEW.name = 'b'
             BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    expect(() => store.sync(auth({ realms: { a: { required: true }, b: {} } }))).toThrow(/refused/);
    expect({ ...store.load().realms }).toEqual({ a: {} });
    db.exec('DROP TRIGGER no_b');
    db.close();
    expect(store.sync(auth({ realms: { a: { required: true }, b: {} } }))).toBe(2);
  });

  it('backs up online with VACUUM INTO to a loadable 0600 copy', () => {
    const store = openStore();
    store.sync(auth({ realms: { kept: { required: true } } }));
    const dest = join(tmp.path, 'backup', 'auth-copy.sqlite');
    store.backup(dest);
    expect(statSync(dest).mode & 0o777).toBe(0o600);
    const copy = new SqliteAuthStore(dest);
    open.push(copy);
    expect({ ...copy.load().realms }).toEqual({ kept: { required: true } });
  });

  it('refuses a file that is not a database with SWB_ERR_STORAGE naming it', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, 'this is not sqlite, just text padding '.repeat(200));
    expect(() => new SqliteAuthStore(file)).toThrow(/Cannot open auth store .*auth\.sqlite/);
  });
});

describe('persistent proof nonces (§6.4 note b)', () => {
  it('rejects a nonce claimed before a restart until it expires, then prunes it', () => {
    const now = Date.now();
    const first = openStore();
    expect(first.nonces.claim('n-1', now + 600_000, now)).toBe(true);
    expect(first.nonces.claim('n-1', now + 600_000, now)).toBe(false);
    expect(first.nonces.claim('n-short', now + 1_000, now)).toBe(true);
    open.pop()!.close();

    const second = openStore();
    expect(second.nonces.claim('n-1', now + 600_000, now + 5_000)).toBe(false);
    // An expired claim no longer blocks (the window has passed anyway).
    expect(second.nonces.claim('n-short', now + 700_000, now + 2_000)).toBe(true);
    expect(second.nonces.claim('n-1', now + 1_300_000, now + 600_001)).toBe(true);
    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT nonce FROM nonces ORDER BY nonce').pluck().all();
    db.close();
    expect(rows).toEqual(['n-1', 'n-short']);
  });
});
