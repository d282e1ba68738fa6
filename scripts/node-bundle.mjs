/**
 * The one esbuild setup for plain-Node ESM bundles of the TypeScript sources: the npm package's
 * broker (build-broker.mjs), the desktop app's broker host (build-electron.mjs), the bench's
 * servers (bench/servers/server-bundle.ts) and the tests' console (test/support/
 * console-bundle-setup.ts). Node 20, `.mjs` outputs, npm packages external (they resolve from
 * a `node_modules` beside or above the output), the package version embedded because
 * broker/version.ts cannot find package.json from inside a bundle, and a `require` for the
 * CommonJS code that ESM bundles may contain.
 */
import { build as esbuild } from 'esbuild';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Gives an ESM bundle the `require` its CommonJS parts call. */
export const REQUIRE_SHIM =
  "import { createRequire as __swbCreateRequire } from 'node:module'; const require = __swbCreateRequire(import.meta.url);";

/** The repository's package.json `version`. */
export async function packageVersion() {
  return JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).version;
}

/**
 * Builds `entryPoints` (output name → source path from the repository root) into `outdir` as
 * `<name>.mjs`. `define` adds to the embedded `SWITCHBOARD_VERSION`; `banner` goes before the
 * require shim (a shebang); `sourcemap` default false. Rejects with esbuild's error.
 */
export async function buildNodeBundles({
  entryPoints,
  outdir,
  define = {},
  banner = '',
  sourcemap = false,
}) {
  await esbuild({
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    absWorkingDir: root,
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    packages: 'external',
    sourcemap,
    define: {
      'process.env.SWITCHBOARD_VERSION': JSON.stringify(await packageVersion()),
      ...define,
    },
    banner: { js: `${banner}${REQUIRE_SHIM}` },
  });
}
