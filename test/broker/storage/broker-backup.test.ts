/**
 * `backup_store` on a running broker (issue 23 items 1 and 4), real SQLite files, real sockets:
 *
 * - taken while a stock producer keeps publishing durable messages, the message-store copy is
 *   an intact database holding a consistent set (a prefix of what was published, the durable
 *   subscription, nothing half-written) and the auth-store copy holds the tokens; a new broker
 *   started on a data directory holding the two copies serves the queued messages and accepts
 *   the backed-up admin token;
 * - the command is refused unsigned and for anyone but a global admin, validates `dest_dir`
 *   (absolute, existing directory), and answers 501 for a memory store.
 */
import Database from 'better-sqlite3';
import { copyFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientEvent, type DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type Harness,
} from '../../helpers/broker-harness';
import { collect, waitUntil, waitUntilAsync } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { adminSettings, manager, send } from '../admin/management-client';

const JOB = exactConsumeEvent('fleet', 'job');
const DURABLE = { durable: true, ack: true } as const;
const MANAGER_KEY = 'm'.repeat(64);

const opened: Harness[] = [];
const dirs: TempDir[] = [];
afterEach(async () => {
  for (const h of opened.splice(0)) await h.close();
  for (const d of dirs.splice(0)) await d.remove();
});

async function tempDir(): Promise<string> {
  const d = await makeTempDir('swb-backup-');
  dirs.push(d);
  return d.path;
}

async function broker(settings: Record<string, unknown>, dataDir: string): Promise<Harness> {
  const h = await startBroker(settings, { dataDir, env: {} });
  opened.push(h);
  return h;
}

/** Opens a backup file read-only, as an outside process would, and runs `read` on it. */
function inspect<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const count = (db: Database.Database, table: string) =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** The `s` of every stored copy, in store order. */
const seqsOf = (db: Database.Database) =>
  (
    db.prepare('SELECT payload FROM messages ORDER BY rowid').all() as Array<{ payload: string }>
  ).map((r) => (JSON.parse(r.payload) as { message: { s: number } }).message.s);

describe('backup_store on a running broker', () => {
  it('copies a consistent set while a producer publishes; a broker restored from it serves it', async () => {
    const data = await tempDir();
    const dest = await tempDir();
    const h = await broker(adminSettings({ storage: 'sqlite', auth_store: 'auth.sqlite' }), data);
    // The durable consumer subscribes, then goes offline: everything published is stored.
    const c = await h.consumer('w');
    await subscribe(c, 'w', 'fleet', 'job', DURABLE);
    await h.disconnect(c);
    const p = await h.producer('fleet');
    let seq = 0;
    // A stock producer (no callback) that never stops while the backup runs.
    const pump = setInterval(() => {
      for (let i = 0; i < 20; i++) produce(p, 'fleet', 'job', { s: seq++, pad: 'x'.repeat(200) });
    }, 1);
    let reply;
    try {
      await waitUntilAsync(
        async () => (await h.broker.store.countQueued('default')) >= 1_000,
        '1,000 stored',
      );
      const m = await manager(h);
      reply = await m.run({ command: 'backup_store', dest_dir: dest });
      await waitUntil(() => seq >= 4_000 + 1_000, 'publishing goes on after the backup');
    } finally {
      clearInterval(pump);
    }
    expect(reply).toMatchObject({ ok: true, dest_dir: dest });
    expect(reply.elapsed_ms).toEqual(expect.any(Number));
    const files = reply.files as Array<{
      name: string;
      path: string;
      bytes: number;
      source: string;
    }>;
    expect(files.map((f) => f.name)).toEqual(['messages', 'auth']);
    expect(files.map((f) => f.source)).toEqual([
      join(data, 'tyo-mq.sqlite'),
      join(data, 'auth.sqlite'),
    ]);
    const stamp = /^(messages|auth)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.sqlite$/;
    expect(readdirSync(dest).sort()).toEqual(
      files.map((f) => f.path.slice(dest.length + 1)).sort(),
    );
    for (const f of files) {
      expect(f.path.slice(dest.length + 1)).toMatch(stamp);
      expect(statSync(f.path).size).toBe(f.bytes);
      expect(statSync(f.path).mode & 0o777).toBe(0o600);
    }

    const backup = inspect(files[0]!.path, (db) => ({
      integrity: db.pragma('integrity_check', { simple: true }),
      seqs: seqsOf(db),
      subscriptions: count(db, 'durable_subscriptions'),
      dlq: count(db, 'dlq'),
    }));
    expect(backup.integrity).toBe('ok');
    const k = backup.seqs.length;
    expect(k).toBeGreaterThanOrEqual(1_000);
    expect(k).toBeLessThan(seq);
    // A prefix of what was published, in order: no gap, no half-committed batch.
    expect(backup.seqs).toEqual(Array.from({ length: k }, (_, i) => i));
    expect([backup.subscriptions, backup.dlq]).toEqual([1, 0]);
    const authCopy = inspect(files[1]!.path, (db) => ({
      integrity: db.pragma('integrity_check', { simple: true }),
      tokens: count(db, 'tokens'),
    }));
    expect(authCopy).toEqual({ integrity: 'ok', tokens: 1 });

    // Restore (docs/backup.md): a new broker on a data directory holding the copies under the
    // live files' names, with no token in its settings: the admin token is the auth store's.
    const restored = await tempDir();
    copyFileSync(files[0]!.path, join(restored, 'tyo-mq.sqlite'));
    copyFileSync(files[1]!.path, join(restored, 'auth.sqlite'));
    const r = await broker(
      { storage: 'sqlite', auth_store: 'auth.sqlite', auth: { enabled: true } },
      restored,
    );
    const stats = await (await manager(r)).run({ command: 'stats' });
    expect(stats).toMatchObject({ ok: true });
    expect(stats.stats.realms.default.queued).toBe(k);
    const w = await r.consumer('w');
    const got = collect<DeliveryEnvelope>(w, JOB, k, 20_000);
    w.on(JOB, (env: DeliveryEnvelope) => w.emit(ClientEvent.ACK, { msgId: env.msgId }));
    await subscribe(w, 'w', 'fleet', 'job', DURABLE);
    const delivered = await got;
    expect(delivered.map((e) => (e.message as { s: number }).s)).toEqual(
      Array.from({ length: k }, (_, i) => i),
    );
  }, 60_000);

  it('is refused unsigned and for a realm manager key; validates dest_dir', async () => {
    const data = await tempDir();
    const h = await broker(
      adminSettings(
        { storage: 'sqlite' },
        {
          realms: { default: { required: false }, fleet: { manager_key: MANAGER_KEY } },
        },
      ),
      data,
    );
    const dest = await tempDir();
    const s = await h.connect();
    const unsigned = await send(s, { body: { command: 'backup_store', dest_dir: dest } });
    expect(unsigned).toMatchObject({ ok: false, code: 401, message: 'Missing manager proof' });
    const m = await manager(h);
    const asManager = await m.run(
      { command: 'backup_store', dest_dir: dest, realm: 'fleet' },
      MANAGER_KEY,
    );
    expect(asManager).toMatchObject({ ok: false, code: 401 });
    const notAdmin = await m.run({ command: 'backup_store', dest_dir: dest }, 'z'.repeat(64));
    expect(notAdmin).toMatchObject({ ok: false, code: 401 });
    expect(readdirSync(dest)).toEqual([]);

    const file = join(dest, 'a-file');
    writeFileSync(file, '');
    for (const [body, message] of [
      [{}, /dest_dir is required/],
      [{ dest_dir: 42 }, /dest_dir is required/],
      [{ dest_dir: 'backups' }, /must be an absolute path on the broker's host/],
      [{ dest_dir: join(dest, 'missing') }, /does not exist on the broker host/],
      [{ dest_dir: file }, /is not a directory/],
      [{ dest_dir: `${dest}\0x` }, /must not contain NUL/],
    ] as const) {
      const reply = await m.run({ command: 'backup_store', ...body });
      expect(reply).toMatchObject({ ok: false, code: 400 });
      expect(reply.message).toMatch(message);
    }
    expect(readdirSync(dest)).toEqual(['a-file']);
    // Without an auth store, only the message store is copied.
    const ok = await m.run({ command: 'backup_store', dest_dir: dest });
    expect(ok.files.map((f: { name: string }) => f.name)).toEqual(['messages']);
  });

  it('answers 501 for a memory store, writing nothing', async () => {
    const h = await broker(adminSettings({ storage: 'memory' }), await tempDir());
    const dest = await tempDir();
    const reply = await (await manager(h)).run({ command: 'backup_store', dest_dir: dest });
    expect(reply).toMatchObject({
      ok: false,
      code: 501,
      message: 'Online backup is not supported for the memory storage backend (SQLite only)',
    });
    await expect(h.broker.backup(dest)).rejects.toMatchObject({ code: 'SWB_ERR_NOT_SUPPORTED' });
    expect(readdirSync(dest)).toEqual([]);
  });
});
