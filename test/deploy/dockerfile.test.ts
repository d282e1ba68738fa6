/**
 * deploy/Dockerfile and .dockerignore (docs/deployment.md, "Container"), read as text: no
 * container runtime is needed and no image is built. Checked: a multi-stage build whose final
 * stage is slim Node 20 with no package install, compiler or sources, an unprivileged user, the
 * data volume, the ports, SIGTERM, a health check on `/ready` (run for real against a stub
 * server), that what the final stage runs is in the npm tarball, and that the build context
 * holds every source the bundles are built from and none of the checkout's secrets or data.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Protocol } from '../../shared/protocol-events';
import {
  inBuildContext,
  instructions,
  knownEnvNames,
  parseDockerfile,
  readRepoFile,
  ROOT,
  type Stage,
} from './deploy-files';

const run = promisify(execFile);
const { stages } = parseDockerfile(readRepoFile('deploy/Dockerfile'));
const final = stages[stages.length - 1]!;
const dockerignore = readRepoFile('.dockerignore');
const pkg = JSON.parse(readRepoFile('package.json')) as {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const APP = '/opt/switchboard';

/** The bundles `npm run build:broker` writes: `<name>` → its entry source. */
function bundleEntries(): Record<string, string> {
  const block = /entryPoints:\s*\{([^}]*)\}/.exec(readRepoFile('scripts/build-broker.mjs'))?.[1];
  const entries: Record<string, string> = {};
  for (const [, name, source] of block?.matchAll(/'([^']+)':\s*'([^']+)'/g) ?? []) {
    entries[name!] = source!;
  }
  return entries;
}

/** The health check's exec-form command. */
function healthcheckCommand(stage: Stage): string[] {
  const [check] = instructions(stage, 'HEALTHCHECK');
  const json = /\bCMD\s+(\[.*\])\s*$/.exec(check ?? '')?.[1];
  return JSON.parse(json ?? '[]') as string[];
}

describe('deploy/Dockerfile', () => {
  it('builds in stages; the final one is slim Node 20 and installs nothing', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(final.image).toMatch(/^node:20[\w.-]*-slim$/);
    const build = stages.find((s) => instructions(s, 'RUN').some((r) => /npm pack/.test(r)));
    expect(build, 'a stage runs npm pack').toBeDefined();
    expect(instructions(build!, 'RUN').some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    // The stage that installs the production dependencies runs on the final stage's Debian.
    const release = (image: string) => /-(bookworm|bullseye|trixie)/.exec(image)?.[1];
    for (const stage of stages) expect(release(stage.image)).toBe(release(final.image));
    for (const command of instructions(final, 'RUN')) {
      expect(command).not.toMatch(/\bnpm\s+(ci|install|i|rebuild)\b|\bnode-gyp\b|\byarn\b/);
      expect(command).not.toMatch(/\b(apt-get|apt|apk)\b|\b(gcc|g\+\+|make|python3?)\b/);
      expect(command).not.toMatch(/build-essential/);
    }
  });

  it('copies into the final stage only the installed package and the entrypoint', () => {
    for (const copy of instructions(final, 'COPY')) {
      const from = /--from=(\S+)/.exec(copy)?.[1];
      const paths = copy.replace(/--\S+/g, '').trim().split(/\s+/);
      if (from) {
        expect(stages.some((s) => s.name === from)).toBe(true);
        expect(paths).toEqual([APP, APP]);
      } else {
        // From the build context: deployment files only, never sources.
        for (const source of paths.slice(0, -1)) expect(source).toMatch(/^deploy\//);
      }
    }
  });

  it('runs as an unprivileged user, keeps data in a volume and stops with SIGTERM', () => {
    const users = instructions(final, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1]!.split(':')[0]!;
    expect(['root', '0']).not.toContain(user);
    expect(instructions(final, 'VOLUME')).toEqual(['["/data"]']);
    expect(instructions(final, 'WORKDIR').pop()).toBe('/data');
    const ports = instructions(final, 'EXPOSE').join(' ').split(/\s+/).map(Number);
    expect(ports).toEqual(expect.arrayContaining([Protocol.DEFAULT_PORT, 1883]));
    expect(instructions(final, 'STOPSIGNAL')).toEqual(['SIGTERM']);
    expect(instructions(final, 'ENTRYPOINT')).toHaveLength(1);
  });

  it('sets only variables the broker knows', () => {
    const known = knownEnvNames();
    for (const env of instructions(final, 'ENV')) {
      for (const [, name] of env.matchAll(/(\w+)=/g)) {
        if (name!.startsWith('TYO_MQ_')) expect(known, name).toContain(name);
      }
    }
  });

  it('links the package bin entries, and they are in the npm tarball', async () => {
    // What the tarball holds, as npm computes it from `files`, with stand-ins for the bundles.
    const stage = mkdtempSync(join(tmpdir(), 'swb-docker-pack-'));
    try {
      mkdirSync(join(stage, 'dist', 'broker'), { recursive: true });
      writeFileSync(join(stage, 'package.json'), readRepoFile('package.json'));
      writeFileSync(join(stage, 'README.md'), readRepoFile('README.md'));
      for (const name of Object.keys(bundleEntries())) {
        writeFileSync(join(stage, 'dist', 'broker', `${name}.mjs`), '');
      }
      const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: stage,
      });
      const packed = new Set(
        (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path),
      );
      const text = stages
        .flatMap((s) => s.instructions)
        .map((i) => i.args)
        .join('\n');
      const used = [...text.matchAll(/\/opt\/switchboard\/([\w./-]+)/g)].map((m) => m[1]!);
      const relativeUses = [...text.matchAll(/\b(dist\/[\w./-]+)/g)].map((m) => m[1]!);
      const files = new Set([...used, ...relativeUses]);
      expect(files.size).toBeGreaterThan(0);
      for (const file of files) expect(packed, file).toContain(file);
      for (const bin of Object.values(pkg.bin)) expect(files).toContain(bin);
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  });

  describe('health check', () => {
    let server: Server;
    let status = 200;
    const paths: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        paths.push(req.url ?? '');
        res.writeHead(status).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const probe = (port: number) => {
      const [command, ...args] = healthcheckCommand(final);
      expect(command).toBe('node');
      return run(process.execPath, args, { env: { TYO_MQ_PORT: String(port) } }).then(
        () => 0,
        (err: { code?: number }) => err.code ?? -1,
      );
    };

    it('asks /ready on TYO_MQ_PORT: healthy on 200, unhealthy on 503 or no answer', async () => {
      const port = (server.address() as AddressInfo).port;
      status = 200;
      expect(await probe(port)).toBe(0);
      status = 503;
      expect(await probe(port)).toBe(1);
      expect(paths).toEqual(['/ready', '/ready']);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      expect(await probe(closedPort)).toBe(1);
    });
  });
});

describe('.dockerignore', () => {
  it('sends every source of the bundles and what npm pack needs', async () => {
    const result = await build({
      entryPoints: Object.values(bundleEntries()).map((e) => join(ROOT, e)),
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      write: false,
      metafile: true,
      outdir: join(tmpdir(), 'unused'),
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs).map((p) => relative(ROOT, join(ROOT, p)));
    expect(inputs.length).toBeGreaterThan(50);
    const needed = [
      ...inputs,
      'package.json',
      'package-lock.json',
      'README.md',
      'docs/deployment.md',
      'scripts/build-broker.mjs',
      'tsconfig.json',
      'deploy/docker-entrypoint.sh',
    ];
    for (const path of needed) expect(inBuildContext(dockerignore, path), path).toBe(true);
  });

  it('keeps secrets, data, dependencies and everything else of the checkout out', () => {
    for (const path of [
      '.env',
      'broker/.env',
      'admin.env',
      '.data/tyo-mq.sqlite',
      'broker/.data/x',
      'node_modules/zod/package.json',
      'broker/node_modules/x',
      'dist/broker/switchboard-broker.mjs',
      '.git/config',
      'test/deploy/dockerfile.test.ts',
      'electron/main/main.ts',
      'deploy/secrets/admin_token',
      'release/x.AppImage',
    ]) {
      expect(inBuildContext(dockerignore, path), path).toBe(false);
    }
  });
});
