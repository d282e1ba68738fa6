/**
 * The SQLite store's worker thread (issue 7, ARCHITECTURE §1): ordering between writes and
 * reads, a failed commit, a dead worker, close(), and loading the worker from a bundle the way
 * `scripts/build-electron.mjs` builds it (no tsx).
 */
import { execFile } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import { buildNodeBundles } from '../../../scripts/node-bundle.mjs';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const copy = (message: unknown) => ({
  consumer: 'c',
  payload: { event: 'job', message, from: 'p' },
  producer: 'p',
});

let dir: TempDir;
let n = 0;
beforeAll(async () => {
  dir = await makeTempDir('swb-sqlite-worker-');
});
afterAll(() => dir.remove());
const file = () => join(dir.path, `w-${n++}.sqlite`);

describe('SqliteStore on a worker thread', () => {
  it('a read sees every write issued before it, committed or not', async () => {
    const store = new SqliteStore({ filename: file(), synchronous: 'FULL' });
    const writes = Array.from({ length: 300 }, (_, i) => store.enqueue('default', 'k', copy(i)));
    const queued = await store.dequeue('default', 'k', 'c');
    expect(queued.map((e) => e.message.message)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    await store.ack((await writes[0])!);
    expect(await store.countQueued('default')).toBe(299);
    await store.close();
  });

  it('a failed commit rejects every write of its batch with SWB_ERR_STORAGE and stores none', async () => {
    const store = new SqliteStore({ filename: file() });
    const good = store.enqueue('default', 'k', copy('good'));
    // realm is NOT NULL in the schema: this row makes the whole transaction fail.
    const bad = store.enqueue(null as unknown as string, 'k', copy('bad'));
    await expect(good).rejects.toMatchObject({ code: 'SWB_ERR_STORAGE' });
    await expect(bad).rejects.toMatchObject({ code: 'SWB_ERR_STORAGE' });
    expect(await store.countQueued('default')).toBe(0);
    await store.enqueue('default', 'k', copy('after'));
    expect(await store.countQueued('default')).toBe(1);
    await store.close();
  });

  it('a dead worker rejects pending and later operations with SWB_ERR_STORAGE, no crash', async () => {
    const store = new SqliteStore({ filename: file() });
    await store.enqueue('default', 'k', copy(1));
    const pending = store.enqueue('default', 'k', copy(2));
    // The worker is private; killing it stands for a crash of the storage thread.
    const worker = (store as unknown as { worker: { worker: Worker } }).worker.worker;
    await worker.terminate();
    await expect(pending).rejects.toMatchObject({ code: 'SWB_ERR_STORAGE' });
    await expect(store.countQueued('default')).rejects.toMatchObject({ code: 'SWB_ERR_STORAGE' });
    await expect(store.ack('x')).rejects.toMatchObject({ code: 'SWB_ERR_STORAGE' });
    await store.close();
  });

  it('close() commits queued writes, then releases the file', async () => {
    const name = file();
    const store = new SqliteStore({ filename: name });
    const writes = [store.enqueue('default', 'k', copy(1)), store.enqueue('default', 'k', copy(2))];
    await store.close();
    await Promise.all(writes);
    const again = new SqliteStore({ filename: name });
    expect(await again.countQueued('default')).toBe(2);
    await again.close();
  });

  it('loads from a bundle built like scripts/build-electron.mjs, without tsx', async () => {
    const out = join(dir.path, 'bundle');
    const entry = join(dir.path, 'store-smoke.ts');
    writeFileSync(
      entry,
      `import { SqliteStore } from ${JSON.stringify(join(ROOT, 'broker/storage/sqlite-store.ts'))};
       const store = new SqliteStore({ filename: process.argv[2] });
       await store.enqueue('default', 'k', { consumer: 'c', payload: { event: 'e', message: 1, from: 'p' }, producer: 'p' });
       console.log(await store.countQueued('default'));
       await store.close();`,
    );
    // The same bundle setup as the app's and the npm package's builds.
    await buildNodeBundles({
      entryPoints: {
        'store-smoke': entry,
        'sqlite-worker': join(ROOT, 'broker/storage/sqlite-worker.ts'),
      },
      outdir: out,
    });
    // npm packages stay external, as in dist/: resolve them from the project's node_modules.
    symlinkSync(join(ROOT, 'node_modules'), join(dir.path, 'node_modules'), 'dir');
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(out, 'store-smoke.mjs'), join(dir.path, 'bundled.sqlite')],
        { timeout: 30_000 },
        (err, text, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(text),
      );
    });
    expect(stdout.trim()).toBe('1');
  }, 60_000);
});
