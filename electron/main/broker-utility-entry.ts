/**
 * Entry of the broker utility process in the desktop app (bundled to `dist/electron/broker-host.mjs`).
 *
 * `broker/cli.ts` reports `broker-ready` / `broker-fatal` with `process.send`, which only exists
 * in a `child_process.fork` child. A utility process talks through `process.parentPort`, so this
 * shim provides `process.send` on top of it, then loads the bundled CLI (`broker-cli.mjs`).
 */
const parentPort = process.parentPort;
if (parentPort && typeof process.send !== 'function') {
  const send = (message: unknown): boolean => {
    parentPort.postMessage(message);
    return true;
  };
  process.send = send as NonNullable<typeof process.send>;
}

export {};

// A runtime path, not a static import: the CLI is bundled separately by scripts/build-electron.mjs.
await import(new URL('./broker-cli.mjs', import.meta.url).href);
