#!/usr/bin/env node
/**
 * Builds the headless broker and the admin CLI into dist/broker/ for the npm package
 * (`npm run build:broker`; `npm pack` runs it as `prepack`, docs/packaging.md):
 *   dist/broker/switchboard-broker.mjs  the broker CLI (broker/cli.ts)
 *   dist/broker/switchboard-admin.mjs   switchboard-admin (broker/admin-cli/main.ts)
 *   dist/broker/sqlite-worker.mjs       the SQLite storage worker, found next to the bundle
 *                                       that opens a store (broker/storage/sqlite-worker-client.ts)
 * Plain ESM for Node 20: no tsx and no TypeScript at run time; npm packages stay external (the
 * package's production dependencies). The version and the build commit are embedded
 * (`--version`): the commit is `git rev-parse HEAD` (with `-dirty` when the tree has changes),
 * else `$SWITCHBOARD_BUILD_COMMIT`, else `unknown`. No source maps (the package ships none).
 * Usage: node scripts/build-broker.mjs
 */
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { buildNodeBundles } from './node-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'dist', 'broker');

function git(args) {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

/** The commit the bundle is built from (see the module comment). */
export function buildCommit() {
  if (process.env.SWITCHBOARD_BUILD_COMMIT) return process.env.SWITCHBOARD_BUILD_COMMIT;
  try {
    const head = git(['rev-parse', 'HEAD']);
    // Only tracked files count: an untracked node_modules symlink or .env is no change.
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    return dirty ? `${head}-dirty` : head;
  } catch {
    return 'unknown';
  }
}

/** Builds the bundles into `outDir` (default dist/broker/, emptied first); resolves with it. */
export async function buildBroker(outDir = out) {
  await rm(outDir, { recursive: true, force: true });
  await buildNodeBundles({
    entryPoints: {
      'switchboard-broker': 'broker/cli.ts',
      'switchboard-admin': 'broker/admin-cli/admin-bin.ts',
      'sqlite-worker': 'broker/storage/sqlite-worker.ts',
    },
    outdir: outDir,
    define: { 'process.env.SWITCHBOARD_BUILD_COMMIT': JSON.stringify(buildCommit()) },
    banner: '#!/usr/bin/env node\n',
  });
  return outDir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildBroker().then(
    (dir) => console.log(`Built the broker into ${path.relative(process.cwd(), dir) || '.'}`),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
