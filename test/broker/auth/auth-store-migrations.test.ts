import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AUTH_STORE_MIGRATIONS,
  AUTH_STORE_SCHEMA_VERSION,
} from '../../../broker/auth/store/auth-store-migrations';
import { migrate } from '../../../broker/storage/migrate';

const dir = mkdtempSync(join(tmpdir(), 'swb-auth-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => new Database(join(dir, `a-${n++}.sqlite`));
const up = (db: Database.Database, to: number) => migrate(db, to, AUTH_STORE_MIGRATIONS);
const columns = (db: Database.Database, table: string) =>
  db.prepare(`PRAGMA table_info(${table})`).all() as Array<{
    name: string;
    type: string;
    notnull: number;
    pk: number;
  }>;

describe('auth store migrations', () => {
  it('are numbered 1..N without gaps', () => {
    expect(AUTH_STORE_MIGRATIONS.map((m) => m.version)).toEqual(
      AUTH_STORE_MIGRATIONS.map((_, i) => i + 1),
    );
    expect(AUTH_STORE_SCHEMA_VERSION).toBe(AUTH_STORE_MIGRATIONS.length);
  });

  it('1: creates realms, tokens and management_tokens as the reference lays them out', () => {
    const db = fresh();
    expect(up(db, 1)).toBe(1);
    const shape = (t: string) => columns(db, t).map((c) => [c.name, c.type, c.notnull, c.pk]);
    expect(shape('realms')).toEqual([
      ['name', 'TEXT', 0, 1],
      ['config', 'TEXT', 1, 0],
    ]);
    expect(shape('tokens')).toEqual([
      ['token', 'TEXT', 0, 1],
      ['entry', 'TEXT', 1, 0],
    ]);
    expect(shape('management_tokens')).toEqual(shape('tokens'));
    db.close();
  });

  it('2: adds the nonces table and keeps version-1 rows', () => {
    const db = fresh();
    up(db, 1);
    db.prepare(`INSERT INTO realms VALUES ('alpha', '{"required":true}')`).run();
    expect(up(db, 2)).toBe(2);
    expect(columns(db, 'nonces').map((c) => c.name)).toEqual(['nonce', 'expires_at']);
    expect(db.prepare('SELECT config FROM realms').pluck().get()).toBe('{"required":true}');
    db.close();
  });

  it('3: adds the authorization_requests table and keeps version-2 rows', () => {
    const db = fresh();
    up(db, 2);
    db.prepare(`INSERT INTO nonces VALUES ('n-1', 1)`).run();
    expect(up(db, 3)).toBe(3);
    expect(columns(db, 'authorization_requests').map((c) => [c.name, c.notnull, c.pk])).toEqual([
      ['request_id', 0, 1],
      ['expires_at', 1, 0],
      ['record', 1, 0],
    ]);
    expect(db.prepare('SELECT nonce FROM nonces').pluck().get()).toBe('n-1');
    db.close();
  });

  it('refuses a file from a newer build', () => {
    const db = fresh();
    db.pragma(`user_version = ${AUTH_STORE_SCHEMA_VERSION + 1}`);
    expect(() => up(db, AUTH_STORE_SCHEMA_VERSION)).toThrow(/newer than this build/);
    db.close();
  });
});
