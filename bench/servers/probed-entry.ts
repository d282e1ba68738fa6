/**
 * Runs a server entry with the event-loop delay probe (`loop-delay-probe.ts`) installed first:
 * `node --import tsx bench/servers/probed-entry.ts <args>` with `BENCH_PROBED_ENTRY` = the
 * entry's absolute path (`broker/cli.ts`, `bench/servers/relay-server.ts`). The entry sees the
 * same `process.argv.slice(2)` as when started directly.
 *
 * Why not `--import loop-delay-probe.ts`: `execArgv` is inherited by worker threads, and the
 * broker's SQLite storage worker (a plain bundled `.cjs`, started while the main thread blocks
 * in `Atomics.wait`) cannot load a TypeScript preload — it never starts.
 */
import { pathToFileURL } from 'node:url';
import './loop-delay-probe';

const entry = process.env.BENCH_PROBED_ENTRY;
if (!entry) throw new Error('BENCH_PROBED_ENTRY is not set');
await import(pathToFileURL(entry).href);
