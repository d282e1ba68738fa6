#!/usr/bin/env node
/**
 * `npm run dist`: packages the desktop app with electron-builder (electron-builder.yml) for this
 * machine's platform — Linux: AppImage + deb, macOS: dmg, Windows: nsis — into release/.
 *
 * electron-builder needs things that are not in node_modules: the Electron binary for the target
 * (node_modules/electron/dist, a cached electron-v<version>-<platform>-<arch>.zip, or a download
 * from GitHub / $ELECTRON_MIRROR), Electron's headers or prebuilt binaries to rebuild
 * better-sqlite3 for Electron's ABI, and on Linux its packaging tools (fpm, AppImage runtime),
 * downloaded from GitHub. This script checks for all of them first and, when something is
 * missing, says what and how to provide it, builds nothing and exits 1.
 *
 * Usage: npm run dist [-- --check] [-- <electron-builder args, e.g. --linux deb>]
 *   --check   only report what this machine can package; exit 0 when it can, 1 when not.
 */
import { spawnSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(path.join(root, 'package.json'));
const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const builderArgs = args.filter((arg) => arg !== '--check');

const PLATFORM_FLAGS = { linux: '--linux', darwin: '--mac', win32: '--win' };
const PLATFORM_NAMES = { linux: 'linux', darwin: 'darwin', win32: 'win32' };

function electronVersion() {
  try {
    return JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

function findFile(dirs, name, depth = 3) {
  for (const dir of dirs) {
    if (!dir || !existsSync(dir)) continue;
    const stack = [{ dir, level: 0 }];
    while (stack.length > 0) {
      const { dir: current, level } = stack.pop();
      let entries = [];
      try {
        entries = readdirSync(current, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const full = path.join(current, entry.name);
        if (entry.isFile() && entry.name === name) return full;
        if (entry.isDirectory() && level < depth) stack.push({ dir: full, level: level + 1 });
      }
    }
  }
  return null;
}

async function reachable(url) {
  try {
    await Promise.race([
      lookup(new URL(url).hostname),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000)),
    ]);
    return true;
  } catch {
    return false;
  }
}

/** Everything electron-builder will need; returns the list of what is missing, each with a fix. */
async function missingRequirements() {
  const missing = [];
  let builderVersion = null;
  try {
    builderVersion = JSON.parse(
      readFileSync(require.resolve('electron-builder/package.json'), 'utf8'),
    ).version;
  } catch {
    missing.push(
      'electron-builder is not installed (a devDependency): run `npm install` in the repository.',
    );
  }
  const version = electronVersion();
  if (!version) {
    missing.push('the `electron` package is not installed: run `npm install`.');
    return { missing, builderVersion, electronDist: null };
  }
  const platform = PLATFORM_NAMES[process.platform];
  if (!platform) missing.push(`electron-builder cannot package on ${process.platform}.`);
  const arch = process.arch;
  const zip = `electron-v${version}-${platform}-${arch}.zip`;
  const home = os.homedir();
  const caches = [
    process.env.ELECTRON_BUILDER_CACHE,
    process.env.ELECTRON_CACHE,
    process.env.XDG_CACHE_HOME && path.join(process.env.XDG_CACHE_HOME, 'electron-builder'),
    process.env.XDG_CACHE_HOME && path.join(process.env.XDG_CACHE_HOME, 'electron'),
    path.join(home, '.cache', 'electron-builder'),
    path.join(home, '.cache', 'electron'),
    path.join(home, 'Library', 'Caches', 'electron-builder'),
    path.join(home, 'Library', 'Caches', 'electron'),
    process.env.LOCALAPPDATA && path.join(process.env.LOCALAPPDATA, 'electron-builder', 'Cache'),
    process.env.LOCALAPPDATA && path.join(process.env.LOCALAPPDATA, 'electron', 'Cache'),
  ];
  const localDist = path.join(root, 'node_modules', 'electron', 'dist');
  const electronDist =
    process.env.ELECTRON_OVERRIDE_DIST_PATH ?? (existsSync(localDist) ? localDist : null);
  const mirror = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/';
  const github = await reachable('https://github.com/');
  if (!electronDist && !findFile(caches, zip) && !(await reachable(mirror))) {
    missing.push(
      `the Electron ${version} binary for ${platform}-${arch}: not in node_modules/electron/dist ` +
        `(\`npx install-electron\`), no ${zip} in the Electron caches (~/.cache/electron, ` +
        `$ELECTRON_CACHE, $ELECTRON_BUILDER_CACHE), and ${new URL(mirror).hostname} cannot be ` +
        'reached to download it (set ELECTRON_MIRROR to a reachable mirror, or put the zip in a cache).',
    );
  }
  const headers = process.env.npm_config_disturl ?? 'https://artifacts.electronjs.org/headers/dist';
  const gypCache = [path.join(home, '.electron-gyp'), path.join(home, '.cache', 'electron-gyp')];
  const haveHeaders = gypCache.some((dir) => existsSync(path.join(dir, version)));
  if (!haveHeaders && !github && !(await reachable(headers))) {
    missing.push(
      `a way to rebuild better-sqlite3 for Electron ${version}: neither its prebuilt binaries ` +
        `(GitHub) nor Electron's headers (${new URL(headers).hostname}, or ~/.electron-gyp/${version}) ` +
        'are available.',
    );
  }
  if (process.platform === 'linux' && !github && !process.env.ELECTRON_BUILDER_BINARIES_MIRROR) {
    const cached = caches.some(
      (dir) => dir && (existsSync(path.join(dir, 'fpm')) || existsSync(path.join(dir, 'appimage'))),
    );
    if (!cached) {
      missing.push(
        "electron-builder's Linux packaging tools (fpm for deb, the AppImage runtime): they are " +
          'downloaded from github.com, which cannot be reached (set ELECTRON_BUILDER_BINARIES_MIRROR ' +
          'or USE_SYSTEM_FPM=true with fpm installed).',
      );
    }
  }
  return { missing, builderVersion, electronDist };
}

const { missing, builderVersion, electronDist } = await missingRequirements();
const target = PLATFORM_FLAGS[process.platform];
if (missing.length > 0) {
  console.error(
    [
      `npm run dist: this machine cannot package Switchboard for ${process.platform}-${process.arch}. Missing:`,
      ...missing.map((line) => `  - ${line}`),
      'Nothing was packaged. `npm run build` still builds the app into dist/; `npm run console`',
      'runs the same console in a browser. See docs/packaging.md.',
    ].join('\n'),
  );
  process.exit(1);
}
if (checkOnly) {
  console.log(
    `npm run dist: electron-builder ${builderVersion} can package for ${process.platform}-${process.arch} (${target}).`,
  );
  process.exit(0);
}

/**
 * electron-builder rebuilds better-sqlite3 for Electron's ABI in place, in node_modules: after a
 * package (or a failed attempt) Node itself could no longer load it, breaking `npm test` and
 * `npm run console`. Its Node build is kept aside and put back whatever happens.
 */
const nativeBuild = path.join(
  path.dirname(require.resolve('better-sqlite3/package.json')),
  'build',
);
const nativeBackup = `${nativeBuild}.node-abi-backup`;
function keepNodeBuild() {
  rmSync(nativeBackup, { recursive: true, force: true });
  if (existsSync(nativeBuild))
    cpSync(nativeBuild, nativeBackup, { recursive: true, verbatimSymlinks: true });
}
function restoreNodeBuild() {
  if (!existsSync(nativeBackup)) return;
  rmSync(nativeBuild, { recursive: true, force: true });
  renameSync(nativeBackup, nativeBuild);
}

const run = (command, commandArgs) => {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    restoreNodeBuild();
    console.error(`npm run dist: \`${command} ${commandArgs.join(' ')}\` failed (see above).`);
    process.exit(result.status ?? 1);
  }
};
run(process.execPath, [path.join(root, 'scripts', 'build-electron.mjs')]);
const builderCli = require.resolve('electron-builder/cli.js');
keepNodeBuild();
// Ctrl-C reaches electron-builder too (same process group); put the Node build back before leaving.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    restoreNodeBuild();
    process.exit(130);
  });
}
run(process.execPath, [
  builderCli,
  '--config',
  'electron-builder.yml',
  ...(electronDist ? [`--config.electronDist=${electronDist}`] : []),
  ...(builderArgs.length > 0 ? builderArgs : [target]),
  '--publish',
  'never',
]);
restoreNodeBuild();
console.log('npm run dist: packages written to release/');
