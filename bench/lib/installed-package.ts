/**
 * The npm package as an operator installs it (docs/packaging.md, docs/deployment.md): `npm pack`
 * (which runs `prepack` = `npm run build:broker`), then the tarball installed into a fresh
 * directory, so the broker runs from `node_modules/.bin/switchboard-broker` on plain Node.
 *
 * Install step, as in test/broker/package/npm-package.test.ts: the tarball is unpacked into
 * `<app>/node_modules/switchboard-mq`, its production dependencies are linked from the
 * repository's node_modules and the `bin` entries are linked into `node_modules/.bin` (the same
 * files `npm install` would put there; a real install compiles better-sqlite3, about a minute
 * here). `BENCH_FULL_INSTALL=1` runs `npm install --omit=dev <tarball>` instead.
 *
 * `app` can also host other bundles that import the same packages (the RSS scenario's bare
 * relay): bare imports from files in `app` resolve through `app/node_modules`.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface PackageJson {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
}

export interface InstalledPackage {
  /** Temp directory holding the tarball and `app/`; removed by `cleanup()`. */
  readonly dir: string;
  /** The directory the package is installed into (has `node_modules/`). */
  readonly app: string;
  /** Tarball size, bytes. */
  readonly tarballBytes: number;
  /** `full` (`npm install`) or `linked` (unpacked, production dependencies linked). */
  readonly install: 'full' | 'linked';
  /** `<app>/node_modules/.bin/<name>`. */
  bin(name: string): string;
  cleanup(): void;
}

/** Packs the repository and installs the tarball into a new temp directory. */
export async function packAndInstall(
  full = process.env.BENCH_FULL_INSTALL === '1',
): Promise<InstalledPackage> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const dir = mkdtempSync(join(tmpdir(), 'swb-bench-pkg-'));
  try {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    // prepack's own output comes first on stdout; the JSON report is last.
    const report = JSON.parse(stdout.slice(stdout.search(/^\[/m))) as [
      { filename: string; size: number },
    ];
    const tarball = join(dir, report[0].filename);
    const app = join(dir, 'app');
    const modules = join(app, 'node_modules');
    mkdirSync(join(modules, pkg.name), { recursive: true });
    writeFileSync(join(app, 'package.json'), '{"private":true}\n');
    if (full) {
      await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball], { cwd: app });
    } else {
      await run('tar', ['-xzf', tarball, '-C', join(modules, pkg.name), '--strip-components=1']);
      for (const dep of Object.keys(pkg.dependencies)) {
        const target = join(modules, dep);
        mkdirSync(dirname(target), { recursive: true });
        symlinkSync(join(ROOT, 'node_modules', dep), target);
      }
      mkdirSync(join(modules, '.bin'));
      for (const [name, file] of Object.entries(pkg.bin)) {
        const script = join(modules, pkg.name, file);
        chmodSync(script, 0o755);
        symlinkSync(relative(join(modules, '.bin'), script), join(modules, '.bin', name));
      }
    }
    return {
      dir,
      app,
      tarballBytes: report[0].size,
      install: full ? 'full' : 'linked',
      bin: (name) => join(modules, '.bin', name),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
