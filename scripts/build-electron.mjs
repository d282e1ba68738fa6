#!/usr/bin/env node
/**
 * Builds the desktop app into dist/:
 *   dist/electron/main.js        Electron main process (ESM; npm packages stay external)
 *   dist/electron/preload.cjs    sandboxed preload (CommonJS, one self-contained file)
 *   dist/electron/broker-host.mjs  utility-process entry bridging parentPort → process.send
 *   dist/electron/broker-cli.mjs   the broker CLI (broker/cli.ts)
 *   dist/electron/sqlite-worker.mjs  the SQLite storage worker, found next to the bundle that
 *                                  opens a store (broker/storage/sqlite-worker-client.ts)
 *   dist/renderer/               the renderer (Vite)
 * Usage: node scripts/build-electron.mjs   (npm run build:electron)
 */
import { build as esbuild } from 'esbuild';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { REQUIRE_SHIM, buildNodeBundles } from './node-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'dist');
const electronOut = path.join(out, 'electron');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: root,
};

export async function buildElectron() {
  await rm(out, { recursive: true, force: true });
  await Promise.all([
    esbuild({
      ...common,
      entryPoints: { main: 'electron/main/main.ts' },
      outdir: electronOut,
      format: 'esm',
      outExtension: { '.js': '.js' },
      packages: 'external',
      external: ['electron'],
      banner: { js: REQUIRE_SHIM },
    }),
    esbuild({
      ...common,
      entryPoints: { preload: 'electron/preload/preload.ts' },
      outdir: electronOut,
      format: 'cjs',
      outExtension: { '.js': '.cjs' },
      // Sandboxed preloads can require only 'electron' (and a few polyfilled modules): bundle all
      // else. Minified because the contract module brings zod along (parsed on every page load).
      external: ['electron'],
      minify: true,
    }),
    buildNodeBundles({
      entryPoints: {
        'broker-host': 'electron/main/broker-utility-entry.ts',
        'broker-cli': 'broker/cli.ts',
        'sqlite-worker': 'broker/storage/sqlite-worker.ts',
      },
      outdir: electronOut,
      sourcemap: true,
    }),
  ]);
  const { build: viteBuild } = await import('vite');
  await viteBuild({
    configFile: path.join(root, 'vite.renderer.config.ts'),
    logLevel: 'warn',
    build: { outDir: path.join(out, 'renderer'), emptyOutDir: true },
  });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildElectron().then(
    (dir) => console.log(`Built the desktop app into ${path.relative(process.cwd(), dir) || '.'}`),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
