/**
 * The npm package (docs/packaging.md, "The broker as an npm package"): `npm pack` builds the
 * compiled broker (`prepack` → scripts/build-broker.mjs), the tarball holds only the bundles,
 * and the installed `switchboard-broker` runs with plain Node (no tsx, no TypeScript, no dev
 * dependency): `--version`, `/health` and a socket.io round trip.
 *
 * Install step: the tarball is unpacked into a temp `node_modules/switchboard-mq`, and only the
 * package's production dependencies are linked from the repo's node_modules (a real
 * `npm install` compiles better-sqlite3, about a minute here; `SWITCHBOARD_FULL_INSTALL=1`
 * runs that instead, from the registry with `--prefer-offline`).
 */
import { execFile, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, pingBarrier } from '../../../bench/lib/clients';
import { freePort } from '../../helpers/redis-server';
import { waitUntilAsync } from '../../helpers/wait';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const fullInstall = process.env.SWITCHBOARD_FULL_INSTALL === '1';

let dir = '';
let installed = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swb-pkg-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: ROOT,
  });
  // prepack's own output comes first on stdout; the JSON report is last.
  const report = stdout.slice(stdout.search(/^\[/m));
  const tarball = join(dir, (JSON.parse(report) as [{ filename: string }])[0].filename);
  const app = join(dir, 'app');
  mkdirSync(join(app, 'node_modules', 'switchboard-mq'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{"private":true}\n');
  installed = join(app, 'node_modules', 'switchboard-mq');
  if (fullInstall) {
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: app,
    });
    return;
  }
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const dep of Object.keys(pkg.dependencies)) {
    const target = join(app, 'node_modules', dep);
    mkdirSync(join(target, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), target);
  }
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm package', () => {
  it('holds only the compiled bundles, package.json, the README and the docs it links', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
    });
    const files = (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files
      .map((f) => f.path)
      .sort();
    // The README's `docs/…` links work in node_modules/switchboard-mq too.
    const docs = readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`);
    expect(docs).toContain('docs/deployment.md');
    expect(files).toEqual(
      [
        'README.md',
        'dist/broker/sqlite-worker.mjs',
        'dist/broker/switchboard-admin.mjs',
        'dist/broker/switchboard-broker.mjs',
        ...docs,
        'package.json',
      ].sort(),
    );
    expect(pkg.dependencies).not.toHaveProperty('tsx');
  });

  it('prints the version and the build commit', async () => {
    for (const name of ['switchboard-broker', 'switchboard-admin']) {
      const { stdout } = await run(process.execPath, [
        join(installed, pkg.bin[name]!),
        '--version',
      ]);
      expect(stdout.trim()).toMatch(
        new RegExp(
          `^${name} ${pkg.version.replace(/\./g, '\\.')} \\(commit [0-9a-f]{40}(-dirty)?\\)$`,
        ),
      );
    }
  });

  it('runs the installed broker: /health and a socket.io round trip', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        join(installed, pkg.bin['switchboard-broker']!),
        '--port',
        String(port),
        '--data-dir',
        join(dir, 'data'),
      ],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
        // No NODE_OPTIONS from vitest: the bundle must run on plain Node.
        env: { PATH: process.env.PATH, TYO_MQ_ENV_FILE: join(dir, 'none.env') },
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitUntilAsync(
        async () => (await fetch(`${url}/health`).catch(() => null))?.ok === true,
        'the installed broker answers /health',
        20_000,
      );
      const health = (await (await fetch(`${url}/health`)).json()) as { version: string };
      expect(health.version).toBe(pkg.version);
      const socket = await connectClient(url);
      await pingBarrier(socket, 5_000);
      socket.close();
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
