import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import { runStoreConformance } from './store-conformance';

const dir = mkdtempSync(join(tmpdir(), 'swb-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
let current = '';

for (const synchronous of ['FULL', 'NORMAL'] as const) {
  runStoreConformance({
    name: `sqlite (${synchronous})`,
    create: () => {
      current = join(dir, `store-${n++}.sqlite`);
      return new SqliteStore({ filename: current, synchronous });
    },
    reopen: () => new SqliteStore({ filename: current, synchronous }),
  });
}

describe('SqliteStore faults', () => {
  it('refuses a corrupt file, naming it, and never starts empty', () => {
    const file = join(dir, 'corrupt.sqlite');
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    expect(() => new SqliteStore({ filename: file })).toThrow(/corrupt\.sqlite/);
  });

  it('refuses an unreadable path, naming it', () => {
    const file = join(dir, 'missing-dir', 'x', 'store.sqlite');
    expect(() => new SqliteStore({ filename: file })).toThrow(/store\.sqlite/);
  });

  it('refuses a second store on a file another one holds, and opens once it is released', async () => {
    const file = join(dir, 'locked.sqlite');
    const first = new SqliteStore({ filename: file });
    expect(() => new SqliteStore({ filename: file })).toThrow(
      /locked\.sqlite: it is in use by another broker process/,
    );
    await first.close();
    const second = new SqliteStore({ filename: file });
    await second.close();
  });

  it('commits a burst of writes in few transactions (group commit)', async () => {
    const store = new SqliteStore({ filename: join(dir, 'burst.sqlite'), maxBatchRows: 256 });
    const writes = Array.from({ length: 1000 }, (_, i) =>
      store.enqueue('default', 'k', {
        consumer: 'c',
        payload: { event: 'e', message: i, from: 'p' },
        producer: 'p',
      }),
    );
    const ids = await Promise.all(writes);
    expect(new Set(ids).size).toBe(1000);
    expect(await store.countQueued('default')).toBe(1000);
    await store.close();
  });

  it('rejects writes after close with a clear error, losing nothing committed', async () => {
    const file = join(dir, 'closed.sqlite');
    const store = new SqliteStore({ filename: file });
    await store.enqueue('default', 'k', {
      consumer: 'c',
      payload: { event: 'e', message: 1, from: 'p' },
      producer: 'p',
    });
    await store.close();
    await expect(
      store.enqueue('default', 'k', {
        consumer: 'c',
        payload: { event: 'e', message: 2, from: 'p' },
        producer: 'p',
      }),
    ).rejects.toThrow(/closed/);
    const again = new SqliteStore({ filename: file });
    expect(await again.countQueued('default')).toBe(1);
    await again.close();
  });
});
