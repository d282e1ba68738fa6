/**
 * Packages that only some configurations need are loaded only by them (RSS, issue 23;
 * docs/deployment.md "Sizing"): a broker with MQTT off, no cluster and no Redis store never loads
 * aedes or ioredis, one that has verified no JWT never loads jose, and one without sealed sender
 * never loads libsignal. Checked on the real CLI
 * process (`broker/cli.ts`), with a preload that records every module it loads
 * (test/helpers/module-probe.mjs); the MQTT case shows the probe sees a lazily loaded package.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startBrokerProcess } from '../helpers/broker-process';
import { mintMaterial } from './extensions/sealed/sealed-clients';

const PROBE = fileURLToPath(new URL('../helpers/module-probe.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'swb-lazy-deps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the CLI with `args`, stops it, and returns the packages it loaded. */
async function packagesLoaded(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Set<string>> {
  const out = join(dir, `${name}.json`);
  const broker = await startBrokerProcess(
    ['--port', '0', '--data-dir', join(dir, name), '--storage', 'memory', ...args],
    60_000,
    { NODE_OPTIONS: `--import=${PROBE}`, MODULE_PROBE_OUT: out, ...env },
    // The source through tsx, as `npm run broker` runs it: the quick start stays covered.
    { source: true },
  );
  await broker.stop();
  expect(await broker.exited).toBe(0);
  const files = JSON.parse(readFileSync(out, 'utf8')) as string[];
  const names = new Set<string>();
  for (const file of files) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(decodeURIComponent(file));
    if (match) names.add(match[1]!);
  }
  return names;
}

describe('lazily loaded dependencies', () => {
  it('a broker without MQTT, cluster, Redis or sealed sender loads none of their packages', async () => {
    const loaded = await packagesLoaded('plain', []);
    expect(loaded.has('socket.io')).toBe(true);
    const optional = ['aedes', 'ioredis', 'jose', '@signalapp/libsignal-client'];
    expect([...loaded].filter((n) => optional.includes(n))).toEqual([]);
  }, 90_000);

  it('a broker with sealed sender configured loads libsignal', async () => {
    const { env } = mintMaterial();
    const loaded = await packagesLoaded('sealed', [], env);
    expect(loaded.has('@signalapp/libsignal-client')).toBe(true);
  }, 90_000);

  it('a broker with MQTT on loads aedes', async () => {
    const loaded = await packagesLoaded('mqtt', ['--mqtt-port', '0']);
    expect(loaded.has('aedes')).toBe(true);
    expect(loaded.has('ioredis')).toBe(false);
  }, 90_000);
});
