/**
 * Pre-built server entries for `forkServer` (`server-process.ts`): bundles
 * `bench/servers/{relay,broker,aedes}-server.ts` and the SQLite storage worker with esbuild,
 * once per orchestrator process, into a temp directory, so that each server child starts on
 * plain `node` (~0.2 s) instead of loading the TypeScript sources through tsx (1.5–2 s each,
 * more on a busy machine; quick mode starts about 25 servers).
 *
 * Used in quick mode (`BENCH_QUICK=1`, `BENCH_SMOKE=1`: the smoke test) by default; `BENCH_SERVER_ENTRY=bundle`
 * or `=tsx` forces either way. Every server of a run starts the same way, so the ratios a
 * run reports compare like with like; the full bench keeps tsx by default so that its
 * figures stay comparable with the committed baseline.
 *
 * Layout of the directory (removed when the orchestrator exits):
 *   `<kind>-server.mjs`  one ESM bundle per server kind;
 *   `sqlite-worker.mjs`  the storage worker, found next to the bundle that opens a store
 *                        (broker/storage/sqlite-worker-client.ts `workerEntry`);
 *   `node_modules`       a symlink to the repository's, so that npm packages (external, as in
 *                        scripts/build-broker.mjs) resolve from the bundles.
 * Build time: ~0.5–1 s for all four on a 2-core machine.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNodeBundles } from '../../scripts/node-bundle.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The server kinds a bundle is built for (`ForkableKind` of `server-process.ts`). */
const KINDS = ['relay', 'broker', 'aedes'] as const;

let built: Promise<string> | undefined;

/**
 * Whether servers start from bundles: `BENCH_SERVER_ENTRY` (`bundle` | `tsx`) when set, else
 * in quick mode only (see the module comment).
 */
export function useServerBundles(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.BENCH_SERVER_ENTRY === 'bundle') return true;
  if (env.BENCH_SERVER_ENTRY === 'tsx') return false;
  return env.BENCH_QUICK === '1' || env.BENCH_SMOKE === '1';
}

/**
 * The path of the bundled entry of `kind`, building every bundle on the first call (later
 * calls share that build). Rejects with esbuild's error when the sources do not build.
 */
export async function bundledServerEntry(kind: (typeof KINDS)[number]): Promise<string> {
  built ??= buildServerBundles();
  return join(await built, `${kind}-server.mjs`);
}

async function buildServerBundles(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'swb-bench-servers-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await buildNodeBundles({
    entryPoints: {
      ...Object.fromEntries(KINDS.map((k) => [`${k}-server`, `bench/servers/${k}-server.ts`])),
      'sqlite-worker': 'broker/storage/sqlite-worker.ts',
    },
    outdir: dir,
  });
  return dir;
}
