/** Temporary directories for tests; `remove()` deletes one (call it in afterEach/afterAll). */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TempDir {
  path: string;
  remove(): Promise<void>;
}

export async function makeTempDir(prefix = 'switchboard-test-'): Promise<TempDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { path: dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
