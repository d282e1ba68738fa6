/**
 * vitest globalSetup (issue 26): bundles the console CLI (`electron/web/cli.ts`, what
 * `npm run console` runs through tsx) once per run with esbuild and names it in
 * `$SWB_TEST_CONSOLE_BUNDLE`, which the test workers inherit; `startConsole` runs it with plain
 * Node. Measured on a 2-core machine: `npm run console` spends 1.4–1.9 s before it starts the
 * broker (npm about 0.6 s, tsx loading the console's modules about 1.3 s); the bundle about
 * 0.3 s. Some 40 console starts per run.
 *
 * The bundle is written two folders below the repository (`dist/test-console-<pid>/`), so that
 * the paths the console derives from its own module URL (the repository root with
 * `renderer/dist`, the default broker entry) are the same as from `electron/web/`; npm packages
 * stay external and resolve from the repository's `node_modules`. Removed at teardown.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNodeBundles } from '../../scripts/node-bundle.mjs';
import { CONSOLE_BUNDLE_ENV } from './console-process';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(): Promise<() => Promise<void>> {
  const dir = join(ROOT, 'dist', `test-console-${process.pid}`);
  await buildNodeBundles({
    // The SQLite worker beside the bundle, where broker/storage/sqlite-worker-client.ts looks
    // for it first (as in the app's build).
    entryPoints: {
      console: 'electron/web/cli.ts',
      'sqlite-worker': 'broker/storage/sqlite-worker.ts',
    },
    outdir: dir,
  });
  process.env[CONSOLE_BUNDLE_ENV] = join(dir, 'console.mjs');
  return async () => {
    delete process.env[CONSOLE_BUNDLE_ENV];
    await rm(dir, { recursive: true, force: true });
  };
}
