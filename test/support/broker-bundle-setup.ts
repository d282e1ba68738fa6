/**
 * vitest globalSetup (issue 26): builds the broker CLI bundle once per run into a temp dir
 * (scripts/build-broker.mjs, esbuild, well under a second) and names it in
 * `$SWB_TEST_BROKER_BUNDLE`, which the test workers inherit. A bundle starts in about 0.5 s
 * where `node --import tsx broker/cli.ts` takes 1.3–2 s (tsx transpiles ~300 files each
 * spawn), and some 30 files spawn the CLI. test/helpers/broker-cli.ts reads the variable.
 *
 * The bundle keeps npm packages external, so the temp dir gets a `node_modules` link to the
 * repository's. Removed at teardown.
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROKER_BUNDLE_ENV } from '../helpers/broker-cli';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'swb-broker-bundle-'));
  // @ts-expect-error: a plain .mjs build script without declarations
  const { buildBroker } = (await import('../../scripts/build-broker.mjs')) as {
    buildBroker(outDir: string): Promise<string>;
  };
  const out = await buildBroker(join(dir, 'bundle'));
  await symlink(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
  process.env[BROKER_BUNDLE_ENV] = join(out, 'switchboard-broker.mjs');
  return async () => {
    delete process.env[BROKER_BUNDLE_ENV];
    await rm(dir, { recursive: true, force: true });
  };
}
