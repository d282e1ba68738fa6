/**
 * Preloaded with `--import` (through NODE_OPTIONS) into a process under test: records every
 * module the process loads — ES modules through a resolve hook (module-probe-hooks.mjs), CommonJS
 * ones from the require cache — and writes their URLs and paths as a JSON array to
 * `$MODULE_PROBE_OUT` when the process exits. Used to check which packages a broker loads at
 * start-up (test/broker/lazy-dependencies.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loaded.add(url));
port1.unref();
register(new URL('./module-probe-hooks.mjs', import.meta.url), {
  data: { port: port2 },
  transferList: [port2],
});
process.on('exit', () => {
  const out = process.env.MODULE_PROBE_OUT;
  if (!out) return;
  const cjs = Object.keys(createRequire(import.meta.url).cache);
  writeFileSync(out, JSON.stringify([...loaded, ...cjs]));
});
