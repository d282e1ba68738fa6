/**
 * Online backup of the SQLite message store (issue 23 item 1), on real files: a backup taken
 * while writes keep coming is a consistent snapshot — exactly the writes issued before it, an
 * intact database, mode 0600 — and a destination that exists or whose directory does not is
 * refused with a clear error, leaving the store working.
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import { backupStores } from '../../../broker/storage/store-backup';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const copy = (message: unknown) => ({
  consumer: 'c',
  payload: { event: 'job', message, from: 'p' },
  producer: 'p',
});

let dir: TempDir;
let n = 0;
beforeAll(async () => {
  dir = await makeTempDir('swb-sqlite-backup-');
});
afterAll(() => dir.remove());
const file = (name = `s-${n++}.sqlite`) => join(dir.path, name);

function rowsOf(path: string) {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const payloads = db.prepare('SELECT payload FROM messages ORDER BY rowid').all() as Array<{
      payload: string;
    }>;
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      messages: payloads.map((r) => (JSON.parse(r.payload) as { message: unknown }).message),
      dlq: (db.prepare('SELECT count(*) AS n FROM dlq').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

describe('SqliteStore.backup', () => {
  it('copies every write issued before it while writes keep coming, as a prefix; intact, 0600', async () => {
    const store = new SqliteStore({ filename: file() });
    try {
      const dead = await store.enqueue('default', 'k', copy('dead'));
      await store.deadLetter(dead, 'test');
      let issued = 0;
      let stop = false;
      const writes: Array<Promise<string>> = [];
      // A producer that never pauses: a burst of writes on every turn of the event loop.
      const pump = (async () => {
        while (!stop) {
          for (let i = 0; i < 50; i++) writes.push(store.enqueue('default', 'k', copy(issued++)));
          await new Promise((r) => setImmediate(r));
        }
      })();
      while (issued < 2_000) await new Promise((r) => setImmediate(r));
      const before = issued;
      const dest = file('backup-under-load.sqlite');
      const result = store.backup(dest);
      while (issued < before + 2_000) await new Promise((r) => setImmediate(r));
      const { bytes, source } = await result;
      stop = true;
      await pump;
      await Promise.all(writes);

      expect(source).toBe(store.filename);
      expect(bytes).toBe(statSync(dest).size);
      expect(statSync(dest).mode & 0o777).toBe(0o600);
      // A standalone file: nothing in a -wal beside it.
      expect(existsSync(`${dest}-wal`)).toBe(false);
      const copied = rowsOf(dest);
      expect([copied.integrity, copied.dlq]).toEqual(['ok', 1]);
      // Every write issued before the call; maybe some issued after, but never a gap: a
      // snapshot of the store at one commit.
      const k = copied.messages.length;
      expect(k).toBeGreaterThanOrEqual(before);
      expect(copied.messages).toEqual(Array.from({ length: k }, (_, i) => i));
      expect(await store.countQueued('default')).toBe(issued);
    } finally {
      await store.close();
    }
  });

  it('does not hold the store up: a write issued during a backup commits before it ends', async () => {
    const store = new SqliteStore({ filename: file(), synchronous: 'NORMAL' });
    try {
      // Tens of megabytes, so that copying takes far longer than one commit.
      const big = 'x'.repeat(2_000);
      for (let i = 0; i < 20_000; i += 1_000) {
        await Promise.all(
          Array.from({ length: 1_000 }, (_, k) => store.enqueue('r', 'k', copy(`${i + k}${big}`))),
        );
      }
      const order: string[] = [];
      const backup = store.backup(file('slow.sqlite')).then(() => order.push('backup'));
      // Issued while the backup runs: the copy of ~45 MB outlasts one commit by far.
      const write = store.enqueue('r', 'k', copy('during')).then(() => order.push('write'));
      await Promise.all([backup, write]);
      expect(order).toEqual(['write', 'backup']);
      expect(rowsOf(file('slow.sqlite')).integrity).toBe('ok');
    } finally {
      await store.close();
    }
  }, 60_000);

  it('refuses a destination that exists, keeping it, and one in a missing directory', async () => {
    const store = new SqliteStore({ filename: file() });
    try {
      await store.enqueue('default', 'k', copy(1));
      const taken = file('taken.sqlite');
      writeFileSync(taken, 'mine');
      await expect(store.backup(taken)).rejects.toMatchObject({
        code: 'SWB_ERR_CONFLICT',
        message: expect.stringMatching(/taken\.sqlite failed: the file already exists/),
      });
      expect(readFileSync(taken, 'utf8')).toBe('mine');
      const nowhere = join(dir.path, 'no-such-dir', 'b.sqlite');
      await expect(store.backup(nowhere)).rejects.toMatchObject({
        code: 'SWB_ERR_VALIDATION',
        message: expect.stringMatching(/b\.sqlite failed: its directory does not exist/),
      });
      expect(existsSync(join(dir.path, 'no-such-dir'))).toBe(false);
      // The store carries on, and a good destination works.
      await store.enqueue('default', 'k', copy(2));
      const good = file('good.sqlite');
      await store.backup(good);
      expect(rowsOf(good)).toMatchObject({ integrity: 'ok', messages: [1, 2] });
    } finally {
      await store.close();
    }
  });

  it('removes the partial copy when the copy fails (a full disk), and the store carries on', async (ctx) => {
    // A 1 MiB tmpfs as the destination (root only, like the free-space reserve test).
    const small = join(dir.path, 'small-fs');
    mkdirSync(small);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small], { stdio: 'pipe' });
    } catch {
      console.warn('skipped: cannot mount a tmpfs for the full-disk backup test (needs root)');
      ctx.skip();
      return;
    }
    const store = new SqliteStore({ filename: file() });
    try {
      const big = 'x'.repeat(4_000);
      await Promise.all(
        Array.from({ length: 800 }, (_, i) => store.enqueue('r', 'k', copy(`${i}${big}`))),
      );
      await expect(store.backup(join(small, 'full.sqlite'))).rejects.toMatchObject({
        code: 'SWB_ERR_STORAGE',
        message: expect.stringMatching(/full\.sqlite failed: .*full/),
      });
      expect(readdirSync(small)).toEqual([]);
      // A failed backup is not a failed write: the store's own writes go on.
      await store.enqueue('r', 'k', copy('after'));
      expect(await store.countQueued('r')).toBe(801);
      expect(store.storageStatus().write_failures).toBe(0);
    } finally {
      await store.close();
      execFileSync('umount', ['-l', small], { stdio: 'pipe' });
    }
  }, 30_000);

  it('rejects a backup of a closed store', async () => {
    const store = new SqliteStore({ filename: file() });
    await store.close();
    await expect(store.backup(file('closed.sqlite'))).rejects.toThrow(/closed/);
  });
});

describe('backupStores (broker.backup)', () => {
  const at = new Date('2026-01-31T12:00:00.000Z');

  it('names the files after the time, never overwrites, and leaves no half set behind', async () => {
    const store = new SqliteStore({ filename: file() });
    const out = join(dir.path, 'sets');
    mkdirSync(out);
    try {
      await store.enqueue('default', 'k', copy(1));
      const noAuth = { authStoreFile: () => null, backupAuthStore: async () => null };
      const first = await backupStores(store, noAuth, out, () => at);
      expect(first.files).toEqual([
        {
          name: 'messages',
          path: join(out, 'messages-2026-01-31T12-00-00-000Z.sqlite'),
          bytes: expect.any(Number),
          source: store.filename,
        },
      ]);
      // The same instant again: refused, and the first set is untouched.
      await expect(backupStores(store, noAuth, out, () => at)).rejects.toMatchObject({
        code: 'SWB_ERR_CONFLICT',
      });
      expect(rowsOf(first.files[0]!.path).messages).toEqual([1]);
      // The auth copy fails after the message copy was written: that one is removed too.
      const failingAuth = {
        authStoreFile: () => '/srv/auth.sqlite',
        backupAuthStore: async () => {
          throw new Error('auth copy failed');
        },
      };
      const later = new Date(at.getTime() + 1_000);
      await expect(backupStores(store, failingAuth, out, () => later)).rejects.toThrow(
        'auth copy failed',
      );
      expect(readdirSync(out)).toEqual(['messages-2026-01-31T12-00-00-000Z.sqlite']);
    } finally {
      await store.close();
    }
  });
});
