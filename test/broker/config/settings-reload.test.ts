import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, type Broker, type BrokerOptions } from '../../../broker/index';
import { SwitchboardError } from '../../../shared/error-catalogue';
import { delay, waitUntil } from '../../helpers/wait';
import { captureLogs, type CapturedLog } from '../../support/log-capture';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

/** The parts of a settings file these tests read. */
interface SettingsJson {
  http_api?: unknown;
  auth: { realms: Record<string, unknown>; tokens: unknown[]; [key: string]: unknown };
}

let tmp: TempDir;
let logs: CapturedLog;
let settingsPath: string;
const brokers: Broker[] = [];

function start(input: unknown = {}, options: BrokerOptions = {}): Broker {
  const broker = createBroker(input, {
    logger: logs.logger,
    env: {},
    dataDir: tmp.path,
    settingsFile: settingsPath,
    ...options,
  });
  brokers.push(broker);
  return broker;
}
const readJson = (p = settingsPath) => JSON.parse(readFileSync(p, 'utf8')) as SettingsJson;
const writeJson = async (value: unknown, p = settingsPath) => {
  await mkdir(dirname(p), { recursive: true });
  await writeFile(p, `${JSON.stringify(value, null, 2)}\n`);
};
const logged = (msg: string) => logs.lines.filter((l) => l.msg === msg);
const flushed = async (b: Broker) => {
  // A runtime change queues its file write; a reload waits for it, so use one as a barrier.
  await b.reloadSettings();
};

beforeEach(async () => {
  tmp = await makeTempDir();
  logs = captureLogs();
  settingsPath = join(tmp.path, 'conf', 'settings.json');
});
afterEach(async () => {
  for (const b of brokers.splice(0)) await b.close();
  await tmp.remove();
});

describe('settings file loading (§12.3)', () => {
  it('creates a missing file from the current settings plus auth.realms.default, mode 0600', async () => {
    const broker = start({ http_api: { enabled: true }, auth: { realms: { team: {} } } });
    await flushed(broker);
    const file = readJson();
    expect(file.http_api).toEqual({ enabled: true });
    expect(file.auth.realms).toEqual({ default: { required: false }, team: {} });
    expect(statSync(settingsPath).mode & 0o777).toBe(0o600);
    expect(broker.auth.realm('default')).toEqual({ required: false });
  });

  it('layers the file over the defaults and flags over the file', async () => {
    await writeJson({ storage: 'memory', http_api: { enabled: true, stats: false } });
    const broker = start(
      { http_api: { enabled: false, metrics: false } },
      { settingsOverrides: { http_api: { enabled: false } } },
    );
    expect(broker.settings.http_api).toMatchObject({
      enabled: false,
      metrics: false,
      stats: false,
    });
  });

  it('refuses to start on an invalid file, naming the key', async () => {
    await writeJson({ http_api: { enabled: 'yes' } });
    expect(() => start()).toThrow(/http_api\.enabled/);
  });
});

describe('reload (§12.3, issue 9: replace, not deep-merge)', () => {
  it('removes a realm and a top-level key deleted from the file', async () => {
    await writeJson({
      limits: { max_queued_per_realm: 5 },
      auth: { realms: { default: {}, gone: { required: true } }, tokens: [{ token: 'tk' }] },
    });
    const broker = start();
    expect(broker.auth.realm('gone')).toBeDefined();
    expect(broker.settings.limits?.max_queued_per_realm).toBe(5);

    await writeJson({ auth: { realms: { default: {} } } });
    const next = await broker.reloadSettings();
    expect(next.limits).toBeUndefined();
    expect(broker.settings).toBe(next);
    expect(broker.auth.realm('gone')).toBeUndefined();
    expect(broker.auth.config.tokens).toEqual([]);
  });

  it('surfaces a realm added on disk, through the watcher too', async () => {
    await writeJson({ auth: { realms: { default: {} } } });
    const broker = start();
    await writeJson({ auth: { realms: { default: {}, added: { required: true } } } });
    await waitUntil(() => broker.auth.realm('added') !== undefined, 'the watcher reloads');
    expect(broker.auth.realm('added')).toEqual({ required: true });
  });

  it('ignores an invalid file with a log line and keeps the old settings', async () => {
    await writeJson({ auth: { realms: { default: {}, kept: {} } } });
    const broker = start();
    const before = broker.settings;

    await writeFile(settingsPath, '{"auth": {"realms": ');
    await expect(broker.reloadSettings()).rejects.toThrow(/not valid JSON/);
    await writeJson({ auth: { realms: { kept: { required: 'no' } } } });
    await expect(broker.reloadSettings()).rejects.toThrow(/auth\.realms\.kept\.required/);
    await writeJson({ unknown_key: 1 });
    await expect(broker.reloadSettings()).rejects.toThrow(/unknown_key/);

    expect(broker.settings).toBe(before);
    expect(broker.auth.realm('kept')).toEqual({});
    // The watcher saw the broken file as well and logged instead of applying it.
    await waitUntil(() => logged('settings file ignored').length > 0, 'the watcher logs');
    expect(broker.auth.realm('kept')).toEqual({});
  });

  it('answers reloadSettings with a 400 error when no file is watched', async () => {
    const broker = start({}, { settingsFile: undefined });
    const err = await broker.reloadSettings().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwitchboardError);
    expect((err as SwitchboardError).code).toBe('SWB_ERR_VALIDATION');
    expect((err as SwitchboardError).status).toBe(400);
    expect((err as Error).message).toBe('No settings file is being watched');
  });

  it('logs restart-only keys as needing a restart', async () => {
    await writeJson({ storage: 'memory' });
    const broker = start();
    await writeJson({ storage: 'sqlite', max_http_buffer_size: 1000, http_api: { enabled: true } });
    await broker.reloadSettings();
    const warn = logged('settings changed that take effect only after a restart (needs restart)');
    expect(warn.at(-1)?.keys).toEqual(['storage', 'max_http_buffer_size']);
    // Hot keys apply at once.
    expect(broker.settings.http_api.enabled).toBe(true);
  });

  it('applies http_api changes to the next request of a listening broker', async () => {
    await writeJson({ http_api: { enabled: false } });
    const broker = start();
    const { port } = await broker.listen(0, '127.0.0.1');
    const health = () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status);
    expect(await health()).toBe(403);
    await writeJson({ http_api: { enabled: true } });
    await broker.reloadSettings();
    expect(await health()).toBe(200);
  });
});

describe('persisting runtime changes (§12.4)', () => {
  it('rewrites the whole file on an auth change without triggering a reload loop', async () => {
    await writeJson({ http_api: { enabled: true }, auth: { realms: { default: {} } } });
    const broker = start();
    broker.auth.update((d) => {
      d.realms.added = { required: true };
    });
    broker.auth.update((d) => {
      d.tokens.push({ token: 'approved', realm: 'added', role: 'consumer' });
    }, 'approval');
    await waitUntil(() => readJson().auth?.tokens?.length === 1, 'the file is rewritten');
    const file = readJson();
    expect(file.http_api).toEqual({ enabled: true });
    expect(file.auth.realms).toEqual({ default: {}, added: { required: true } });
    expect(file.auth.tokens).toEqual([{ token: 'approved', realm: 'added', role: 'consumer' }]);
    expect(readFileSync(settingsPath, 'utf8').endsWith('}\n')).toBe(true);
    expect(statSync(settingsPath).mode & 0o777).toBe(0o600);
    // Our own writes are not read back as edits.
    await delay(600);
    expect(logged('settings reloaded')).toEqual([]);
  });

  it('does not bake env overrides into the file', async () => {
    await writeJson({ auth: { realms: { default: {} } } });
    // Auth on without an admin token generates one into the env file: keep it in the temp
    // directory, never in the working directory (the repository, where it was once committed).
    const envFile = join(tmp.path, 'admin.env');
    const broker = start({}, { env: { TYO_MQ_AUTH_ENABLED: 'true', TYO_MQ_ENV_FILE: envFile } });
    expect(broker.auth.enabled).toBe(true);
    expect(readFileSync(envFile, 'utf8')).toMatch(/^TYO_MQ_ADMIN_TOKEN=/m);
    broker.auth.update((d) => {
      d.realms.x = {};
    });
    await flushed(broker);
    expect(readJson().auth).not.toHaveProperty('enabled');
    expect(readJson().auth.realms).toHaveProperty('x');
  });

  it('keeps changes runtime-only without a settings file', async () => {
    const broker = start({}, { settingsFile: undefined });
    broker.auth.update((d) => {
      d.realms.mem = {};
    });
    await delay(50);
    expect(existsSync(settingsPath)).toBe(false);
  });

  it('writes only what the file needs: no schema defaults, no rewrite when nothing changed', async () => {
    const text =
      '{"auth_store": "a.sqlite", "auth": {"jwt_secret": "file-jwt-secret-S-0123456789abcdefXYZ"}}';
    await mkdir(dirname(settingsPath), { recursive: true });
    await writeFile(settingsPath, text);
    const broker = start();
    await flushed(broker);
    // The store import changed nothing the file holds: the user's file is left as written.
    expect(readFileSync(settingsPath, 'utf8')).toBe(text);
    broker.auth.update((d) => {
      d.jwt_secret = 'file-jwt-secret-T-0123456789abcdefXYZ';
    });
    await flushed(broker);
    expect(readJson()).toEqual({
      auth_store: 'a.sqlite',
      auth: { jwt_secret: 'file-jwt-secret-T-0123456789abcdefXYZ' },
    });
  });

  it('reports a changed auth_store as needing a restart', async () => {
    await writeJson({ auth_store: 'a.sqlite' });
    const broker = start();
    await writeJson({ auth_store: 'b.sqlite' });
    await broker.reloadSettings();
    const warn = logged('settings changed that take effect only after a restart (needs restart)');
    expect(warn.at(-1)?.keys).toEqual(['auth_store']);
  });

  it('keeps a runtime change made while a reload is reading the file', async () => {
    await writeJson({ auth: { realms: { default: {} } } });
    const broker = start();
    const reloading = broker.reloadSettings();
    broker.auth.update((d) => {
      d.tokens.push({ token: 'mid-reload', realm: 'default', role: 'consumer' });
    }, 'approval');
    await reloading;
    expect(broker.auth.config.tokens.map((t) => t.token)).toEqual(['mid-reload']);
    expect(readJson().auth.tokens).toHaveLength(1);
  });
});
