/**
 * deploy/compose.yaml (docs/deployment.md, "Docker Compose"), parsed with js-yaml; never
 * started (no container runtime here). Checked: one Redis and three broker nodes of one
 * cluster, each with its own node id, data volume and host port, started once Redis is healthy,
 * with the image's own `/ready` health check, given longer to stop than the drain takes;
 * secrets only as files (compose `secrets:` read through `*_FILE`); every variable one the
 * broker reads; and each node's environment accepted by the broker's `--check-config`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Protocol } from '../../shared/protocol-events';
import {
  checkConfig,
  instructions,
  knownEnvNames,
  parseDockerfile,
  readRepoFile,
} from './deploy-files';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  secrets?: string[];
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
}

const compose = load(readRepoFile('deploy/compose.yaml')) as ComposeFile;
const brokers = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
const redis = compose.services.redis!;
const { stages } = parseDockerfile(readRepoFile('deploy/Dockerfile'));
const dir = mkdtempSync(join(tmpdir(), 'swb-compose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seconds = (text: string | undefined) => Number(/^(\d+)s$/.exec(text ?? '')?.[1]);

describe('deploy/compose.yaml', () => {
  it('runs three broker nodes built from deploy/Dockerfile, and one Redis', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'broker-a',
      'broker-b',
      'broker-c',
      'redis',
    ]);
    expect(brokers).toHaveLength(3);
    for (const [, broker] of brokers) {
      expect(broker.build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
      expect(broker.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
    }
    expect(redis.image).toMatch(/^redis:/);
  });

  it('clusters the nodes, each with its own id, data volume and host port', () => {
    const ids = new Set<string>();
    const volumes = new Set<string>();
    const hostPorts = new Set<string>();
    for (const [, broker] of brokers) {
      const env = broker.environment!;
      expect(env.TYO_MQ_CLUSTER__ENABLED).toBe('true');
      expect(env.TYO_MQ_CLUSTER__REDIS_URL_FILE).toMatch(/^\/run\/secrets\//);
      ids.add(env.TYO_MQ_CLUSTER__NODE_ID!);
      const data = broker.volumes!.find((v) => v.endsWith(':/data'))!;
      volumes.add(data.split(':')[0]!);
      expect(compose.volumes).toHaveProperty(data.split(':')[0]!);
      for (const port of broker.ports!) {
        const [host, container] = port.split(':');
        expect(Number(container)).toBe(Number(env.TYO_MQ_PORT ?? Protocol.DEFAULT_PORT));
        hostPorts.add(host!);
      }
    }
    expect(ids.size).toBe(3);
    expect(volumes.size).toBe(3);
    expect(hostPorts.size).toBe(3);
  });

  it("checks health with the image's /ready probe; Redis with an authenticated PING", () => {
    const final = stages[stages.length - 1]!;
    const check = /\bCMD\s+(\[.*\])\s*$/.exec(instructions(final, 'HEALTHCHECK')[0] ?? '')?.[1];
    const imageProbe = JSON.parse(check ?? '[]') as string[];
    for (const [, broker] of brokers) {
      expect(broker.healthcheck!.test).toEqual(['CMD', ...imageProbe]);
      expect(broker.healthcheck!.test.join(' ')).toContain('/ready');
    }
    expect(redis.healthcheck!.test.join(' ')).toMatch(/redis-cli .*-a .*redis_password.* ping/);
  });

  it('gives each node longer to stop than the drain may take', async () => {
    const { SettingsSchema } = await import('../../broker/config/settings-schema');
    const settings = SettingsSchema.parse({}) as { shutdown?: { timeout_ms?: number } };
    const drainMs = settings.shutdown?.timeout_ms ?? 5_000;
    for (const [, broker] of brokers) {
      expect(seconds(broker.stop_grace_period) * 1000).toBeGreaterThanOrEqual(drainMs + 5_000);
    }
  });

  it('passes secrets as files only, through variables the broker knows', () => {
    const known = knownEnvNames();
    const declared = new Set(Object.keys(compose.secrets));
    for (const [, broker] of brokers) {
      for (const [name, value] of Object.entries(broker.environment!)) {
        expect(known, name).toContain(name);
        expect(name, `${name} holds a secret`).not.toMatch(/TOKEN$|SECRET$|PASSWORD$|KEY$|_URL$/);
        if (name.endsWith('_FILE')) {
          const secret = /^\/run\/secrets\/(\w+)$/.exec(value)?.[1];
          expect(broker.secrets, name).toContain(secret);
        }
      }
      for (const secret of broker.secrets!) expect(declared).toContain(secret);
    }
    // Redis takes its password from its secret, never from the file itself.
    expect(redis.secrets).toEqual(['redis_password']);
    expect(redis.command!.join(' ')).toContain('requirepass $$(cat /run/secrets/redis_password)');
    for (const { file } of Object.values(compose.secrets)) expect(file).toMatch(/^\.\/secrets\//);
  });

  it('gives every node an environment the broker accepts (--check-config)', async () => {
    const secrets = join(dir, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'admin_token'), `${'b'.repeat(64)}\n`);
    writeFileSync(join(secrets, 'redis_url'), 'redis://:pw@redis:6379/0\n');
    for (const [name, broker] of brokers) {
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(broker.environment!)) {
        env[key] = value.replace(/^\/run\/secrets\//, `${secrets}/`);
      }
      // What the image's entrypoint adds.
      const result = await checkConfig(env, ['--host', '0.0.0.0', '--data-dir', join(dir, name)]);
      expect(result.stderr, name).toBe('configuration is valid\n');
      expect(result.code, name).toBe(0);
    }
  }, 60_000);
});
