#!/usr/bin/env node
/**
 * `npm start`: builds and launches the desktop app, if the Electron binary is installed.
 *
 * The binary is located the way the `electron` package does it (node_modules/electron/path.txt,
 * under node_modules/electron/dist or $ELECTRON_OVERRIDE_DIST_PATH) but WITHOUT requiring that
 * package: requiring it starts a download when the binary is missing. Exit 1 with a clear message
 * when there is no binary; `npm run console` runs the same console in a browser instead.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const electronDir = path.join(root, 'node_modules', 'electron');

function electronBinary() {
  const pathFile = path.join(electronDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) return path.join(override, relative || 'electron');
  return relative ? path.join(electronDir, 'dist', relative) : null;
}

const binary = electronBinary();
if (!binary || !existsSync(binary)) {
  console.error(
    [
      `The Electron binary is not installed${binary ? ` (looked for ${binary})` : ''}.`,
      'Install it with `npx install-electron` (needs access to the Electron download site), or set',
      'ELECTRON_OVERRIDE_DIST_PATH to a directory containing it.',
      'Alternatively run the same console in your browser: `npm run console`.',
    ].join('\n'),
  );
  process.exit(1);
}

const { buildElectron } = await import('./build-electron.mjs');
await buildElectron();
// Extra arguments reach the app (`npm start -- --allow-plaintext-secrets`, docs/console.md).
const child = spawn(binary, [root, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: process.env,
});
const forward = (signal) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
