import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../broker/storage/migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../../broker/storage/migrations/index';
import { SqliteStore } from '../../../broker/storage/sqlite-store';

const dir = mkdtempSync(join(tmpdir(), 'swb-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => new Database(join(dir, `m-${n++}.sqlite`));
const indexes = (db: Database.Database, table: string) =>
  (db.prepare(`PRAGMA index_list(${table})`).all() as Array<{ name: string }>).map((r) => r.name);

describe('SQLite migrations', () => {
  it('are numbered 1..N without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(LATEST_SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('1: creates messages and dlq with the reference columns and indexes', () => {
    const db = fresh();
    expect(migrate(db, 1)).toBe(1);
    const cols = (t: string) =>
      (db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name);
    expect(cols('messages')).toEqual([
      'id',
      'realm',
      'event',
      'consumer',
      'payload',
      'producer',
      'created_at',
      'expires_at',
    ]);
    expect(cols('dlq')).toEqual([...cols('messages'), 'reason', 'dead_lettered_at']);
    expect(indexes(db, 'messages')).toContain('idx_messages_queue');
    expect(indexes(db, 'dlq')).toContain('idx_dlq_realm');
    db.close();
  });

  it('2: adds the expiry index and keeps existing rows', () => {
    const db = fresh();
    migrate(db, 1);
    db.prepare(
      `INSERT INTO messages (id, realm, event, consumer, payload, producer, created_at, expires_at)
       VALUES ('msg-1', 'default', 'k', 'c', '{"event":"e","message":1,"from":"p"}', 'p', '2026-01-01T00:00:00.000Z', NULL)`,
    ).run();
    expect(migrate(db, 2)).toBe(2);
    expect(indexes(db, 'messages')).toContain('idx_messages_expires');
    expect(db.prepare('SELECT id FROM messages').all()).toEqual([{ id: 'msg-1' }]);
    db.close();
  });

  it('3: adds durable_subscriptions keyed by (realm, key, consumer)', () => {
    const db = fresh();
    migrate(db, 2);
    expect(migrate(db, 3)).toBe(3);
    const insert = db.prepare(
      `INSERT INTO durable_subscriptions (realm, key, consumer, record, updated_at) VALUES ('default', 'k', 'c', '{}', 'now')`,
    );
    insert.run();
    expect(() => insert.run()).toThrow(/UNIQUE/);
    db.close();
  });

  it('4: adds the attempt count to messages and dlq, 0 for existing rows', () => {
    const db = fresh();
    migrate(db, 3);
    db.prepare(
      `INSERT INTO messages (id, realm, event, consumer, payload, producer, created_at, expires_at)
       VALUES ('msg-1', 'default', 'k', 'c', '{"event":"e","message":1,"from":"p"}', 'p', '2026-01-01T00:00:00.000Z', NULL)`,
    ).run();
    expect(migrate(db, 4)).toBe(4);
    expect(db.prepare('SELECT id, attempts FROM messages').all()).toEqual([
      { id: 'msg-1', attempts: 0 },
    ]);
    const dlqCols = (db.prepare('PRAGMA table_info(dlq)').all() as Array<{ name: string }>).map(
      (c) => c.name,
    );
    expect(dlqCols).toContain('attempts');
    db.close();
  });

  it('5: adds the MQTT state tables (retained, subscriptions, outgoing in seq order, incoming, wills)', () => {
    const db = fresh();
    migrate(db, 4);
    expect(migrate(db, 5)).toBe(5);
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mqtt_%'")
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    expect(tables.sort()).toEqual([
      'mqtt_incoming',
      'mqtt_outgoing',
      'mqtt_retained',
      'mqtt_subscriptions',
      'mqtt_wills',
    ]);
    const sub = db.prepare(
      "INSERT INTO mqtt_subscriptions (client_id, topic, options) VALUES ('default/c', 'default/t', '{}')",
    );
    sub.run();
    expect(() => sub.run()).toThrow(/UNIQUE/);
    db.close();
  });

  it('6: adds identity_state keyed by (realm, identity, kind), keeping existing rows', () => {
    const db = fresh();
    migrate(db, 5);
    db.prepare("INSERT INTO mqtt_retained (topic, packet) VALUES ('default/t', '{}')").run();
    expect(migrate(db, 6)).toBe(6);
    expect(db.prepare('SELECT COUNT(*) AS n FROM mqtt_retained').get()).toEqual({ n: 1 });
    const put = db.prepare(
      "INSERT INTO identity_state (realm, identity, kind, value) VALUES ('default', 'alice', 'keys', '[]')",
    );
    put.run();
    expect(() => put.run()).toThrow(/UNIQUE/);
    db.prepare(
      "INSERT INTO identity_state (realm, identity, kind, value) VALUES ('default', 'alice', 'pin', '\"x\"')",
    ).run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM identity_state').get()).toEqual({ n: 2 });
    db.close();
  });

  it('is idempotent and a store opens a file migrated by an older build', async () => {
    const file = join(dir, 'old.sqlite');
    const db = new Database(file);
    migrate(db, 1);
    db.close();
    const store = new SqliteStore({ filename: file });
    await store.enqueue('default', 'k', {
      consumer: 'c',
      payload: { event: 'e', message: 1, from: 'p' },
      producer: 'p',
    });
    await store.close();
    const again = new Database(file);
    expect(migrate(again)).toBe(LATEST_SCHEMA_VERSION);
    again.close();
  });

  it('refuses a file from a newer schema instead of touching it', () => {
    const file = join(dir, 'newer.sqlite');
    const db = new Database(file);
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new SqliteStore({ filename: file })).toThrow(
      /newer\.sqlite.*newer than this build/,
    );
  });
});
