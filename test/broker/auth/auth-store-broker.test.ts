/**
 * The auth-store behaviours of `spec/protocol-admin.md` §19, against real brokers restarted on
 * the same SQLite file and settings file.
 */
import Database from 'better-sqlite3';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAuthStore } from '../../../broker/auth/store/sqlite-auth-store';
import { NONCE_TTL_MS } from '../../../broker/auth/nonce-store';
import { createSettingsRuntime } from '../../../broker/config/settings-runtime';
import { createBroker, type Broker, type BrokerOptions } from '../../../broker/index';
import { captureLogs, type CapturedLog } from '../../support/log-capture';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

/** The parts of a settings file these tests read. */
interface SettingsJson {
  http_api?: unknown;
  auth: { realms: Record<string, unknown>; tokens: unknown[]; [key: string]: unknown };
}

let tmp: TempDir;
let logs: CapturedLog;
let dbFile: string;
let settingsPath: string;
const brokers: Broker[] = [];

function start(input: unknown = {}, options: BrokerOptions = {}): Broker {
  const broker = createBroker(input, {
    logger: logs.logger,
    env: {},
    dataDir: tmp.path,
    ...options,
  });
  brokers.push(broker);
  return broker;
}
async function restart(broker: Broker, input: unknown = {}, options: BrokerOptions = {}) {
  await broker.close();
  brokers.splice(brokers.indexOf(broker), 1);
  return start(input, options);
}
/** What the store file holds, read through a second connection. */
function stored() {
  const store = new SqliteAuthStore(dbFile);
  try {
    return store.load();
  } finally {
    store.close();
  }
}
const readJson = () => JSON.parse(readFileSync(settingsPath, 'utf8')) as SettingsJson;
const writeJson = async (value: unknown) => {
  await mkdir(dirname(settingsPath), { recursive: true });
  await writeFile(settingsPath, `${JSON.stringify(value, null, 2)}\n`);
};

beforeEach(async () => {
  tmp = await makeTempDir();
  logs = captureLogs();
  dbFile = join(tmp.path, 'auth.sqlite');
  settingsPath = join(tmp.path, 'conf', 'settings.json');
});
afterEach(async () => {
  for (const b of brokers.splice(0)) await b.close();
  await tmp.remove();
});

describe('SQLite auth store in the broker (§14, §19 auth-store)', () => {
  it('imports realms and tokens from options; they and runtime realms survive a restart', async () => {
    const options = {
      auth_store: dbFile,
      auth: {
        realms: { fromOptions: { required: true } },
        tokens: [{ token: 'opt-token', realm: 'fromOptions', role: 'consumer' }],
      },
    };
    const first = start(options);
    first.auth.update((d) => {
      d.realms.addedAtRuntime = { require_acceptance: true };
    });
    // Restart without the options' realms: everything comes from the store.
    const second = await restart(first, { auth_store: dbFile });
    expect(second.auth.realm('fromOptions')).toEqual({ required: true });
    expect(second.auth.realm('addedAtRuntime')).toEqual({ require_acceptance: true });
    expect(second.auth.config.tokens).toEqual([
      { token: 'opt-token', realm: 'fromOptions', role: 'consumer' },
    ]);
  });

  it('keeps removed realms removed after a restart, even ones that came from the file', async () => {
    await writeJson({ auth_store: dbFile, auth: { realms: { viaFile: {}, other: {} } } });
    const first = start({}, { settingsFile: settingsPath });
    first.auth.update((d) => {
      d.realms.runtime = {};
    });
    first.auth.update((d) => {
      delete d.realms.viaFile;
      delete d.realms.runtime;
    });
    const second = await restart(first, {}, { settingsFile: settingsPath });
    expect(second.auth.realm('viaFile')).toBeUndefined();
    expect(second.auth.realm('runtime')).toBeUndefined();
    expect(second.auth.realm('other')).toEqual({});
    // And a reload of the file does not bring them back either.
    await second.reloadSettings();
    expect(second.auth.realm('viaFile')).toBeUndefined();
  });

  it('leaves realms and tokens out of the settings file while the store holds them', async () => {
    await writeJson({
      http_api: { enabled: true },
      auth_store: true,
      auth: {
        jwt_secret: 'kept-in-file-0123456789abcdefghijXYZ',
        realms: { alpha: { manager_key: 'mk' } },
        tokens: [{ token: 'tk', realm: 'alpha' }],
        management_tokens: [{ token: 'mt', realm_prefix: 'team-' }],
      },
    });
    const broker = start({}, { settingsFile: settingsPath });
    // Default file name, next to the settings file, owner-only.
    dbFile = join(dirname(settingsPath), 'tyo-mq.auth.sqlite');
    expect(statSync(dbFile).mode & 0o777).toBe(0o600);
    await broker.reloadSettings(); // waits for the queued rewrite
    const file = readJson();
    expect(file.auth).not.toHaveProperty('realms');
    expect(file.auth).not.toHaveProperty('tokens');
    expect(file.auth).not.toHaveProperty('management_tokens');
    expect(file.auth.jwt_secret).toBe('kept-in-file-0123456789abcdefghijXYZ');
    expect(file.http_api).toEqual({ enabled: true });
    const held = stored();
    expect({ ...held.realms }).toMatchObject({ alpha: { manager_key: 'mk' } });
    expect(held.tokens.map((t) => t.token)).toEqual(['tk']);
    expect(held.management_tokens.map((t) => t.token)).toEqual(['mt']);
  });

  it('imports entries hand-added to the file on reload; the store wins for known names', async () => {
    await writeJson({ auth_store: dbFile, auth: { realms: { alpha: { required: true } } } });
    const broker = start({}, { settingsFile: settingsPath });
    await broker.reloadSettings();
    await writeJson({
      auth_store: dbFile,
      auth: {
        realms: { alpha: { required: false }, handAdded: {} },
        tokens: [{ token: 'hand-token', realm: 'handAdded' }],
      },
    });
    await broker.reloadSettings();
    expect(broker.auth.realm('alpha')).toEqual({ required: true });
    expect(broker.auth.realm('handAdded')).toEqual({});
    expect(Object.keys(stored().realms).sort()).toEqual(['alpha', 'handAdded']);
    expect(stored().tokens.map((t) => t.token)).toEqual(['hand-token']);
  });

  it('makes a sweep disposal durable across restarts', async () => {
    const first = start({
      auth_store: dbFile,
      auth: { realms: { temp: { ephemeral: true, expires_at: Date.now() - 1 } } },
    });
    first.auth.update((d) => {
      d.tokens.push({ token: 'temp-token', realm: 'temp', role: 'both' });
    }, 'approval');
    // What a realm sweep commits (§9.4): the realm and its tokens go.
    first.auth.update((d) => {
      delete d.realms.temp;
      d.tokens = d.tokens.filter((t) => t.realm !== 'temp');
    }, 'sweep');
    const second = await restart(first, { auth_store: dbFile });
    expect(second.auth.realm('temp')).toBeUndefined();
    expect(second.auth.config.tokens).toEqual([]);
  });

  it('backs up to a loadable copy holding the realm; false without a store', async () => {
    const broker = start({ auth_store: dbFile, auth: { realms: { saved: { required: true } } } });
    const dest = join(tmp.path, 'backups', 'auth.bak.sqlite');
    expect(await broker.backupAuthStore(dest)).toBe(true);
    const copy = new SqliteAuthStore(dest);
    expect(copy.load().realms.saved).toEqual({ required: true });
    copy.close();
    const plain = start({});
    expect(await plain.backupAuthStore(join(tmp.path, 'none.sqlite'))).toBe(false);
    expect(existsSync(join(tmp.path, 'none.sqlite'))).toBe(false);
  });

  it('activates a store configured only in the settings file and sends it writes', async () => {
    await writeJson({ auth_store: { enabled: true, filename: dbFile } });
    const broker = start({}, { settingsFile: settingsPath });
    broker.auth.update((d) => {
      d.realms.written = {};
    });
    expect(stored().realms.written).toEqual({});
  });

  it('activates a store that first appears in the file on reload', async () => {
    await writeJson({ auth: { realms: { early: {} } } });
    const broker = start({}, { settingsFile: settingsPath });
    expect(existsSync(dbFile)).toBe(false);
    await writeJson({ auth_store: dbFile, auth: { realms: { early: {} } } });
    await broker.reloadSettings();
    expect(stored().realms.early).toEqual({});
    broker.auth.update((d) => {
      d.realms.later = {};
    });
    expect(stored().realms.later).toEqual({});
  });

  it('keeps realms going to the settings file without auth_store', async () => {
    await writeJson({ auth: { realms: { default: {} } } });
    const broker = start({}, { settingsFile: settingsPath });
    broker.auth.update((d) => {
      d.realms.inFile = { required: true };
    });
    await broker.reloadSettings();
    expect(readJson().auth.realms.inFile).toEqual({ required: true });
    expect(existsSync(join(dirname(settingsPath), 'tyo-mq.auth.sqlite'))).toBe(false);
  });

  it('falls back to the settings file when the store cannot open, and logs it', async () => {
    await mkdir(dbFile); // a directory where the database file should be
    await writeJson({ auth_store: dbFile, auth: { realms: { default: {} } } });
    const broker = start({}, { settingsFile: settingsPath });
    broker.auth.update((d) => {
      d.realms.fallback = {};
    });
    await broker.reloadSettings();
    expect(readJson().auth.realms.fallback).toEqual({});
    expect(
      logs.lines.some((l) => l.msg === 'auth store unavailable; persisting to the settings file'),
    ).toBe(true);
  });

  it('keeps secrets out of the logs while loading, importing and writing', async () => {
    await writeJson({
      auth_store: dbFile,
      auth: {
        jwt_secret: 'jwt-secret-value-0123456789abcdefXYZ',
        realms: { a: { manager_key: 'manager-key-value', key: 'psk-value' } },
        tokens: [{ token: 'token-value', realm: 'a' }],
      },
    });
    const broker = start({}, { settingsFile: settingsPath });
    broker.auth.update((d) => {
      d.tokens.push({ token: 'approved-value', realm: 'a', role: 'consumer' });
    }, 'approval');
    // A broken file must not be quoted back (V8's JSON errors quote the text around the error).
    await writeFile(
      settingsPath,
      '{"auth": {"jwt_secret": "jwt-secret-value-0123456789abcdefXYZ" oops}}',
    );
    await broker.reloadSettings().catch(() => undefined);
    const text = logs.text();
    for (const secret of [
      'jwt-secret-value-0123456789abcdefXYZ',
      'manager-key-value',
      'psk-value',
      'token-value',
      'approved-value',
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('proof nonces survive a restart (§6.4 note b)', () => {
  it('uses the store for ctx.nonces when active, so a replayed nonce fails after restart', async () => {
    const runtime = () =>
      createSettingsRuntime({
        input: { auth_store: dbFile },
        env: {},
        logger: logs.logger,
        dataDir: tmp.path,
      });
    const first = runtime();
    const expires = Date.now() + NONCE_TTL_MS;
    expect(first.nonces.claim('captured', expires)).toBe(true);
    await first.close();
    const second = runtime();
    expect(second.nonces.claim('captured', expires)).toBe(false);
    expect(second.nonces.claim('fresh', expires)).toBe(true);
    await second.close();
    const db = new Database(dbFile, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM nonces').pluck().get()).toBe(2);
    db.close();
  });

  it('keeps nonces in memory without a store', async () => {
    const make = () =>
      createSettingsRuntime({ input: {}, env: {}, logger: logs.logger, dataDir: tmp.path });
    const a = make();
    expect(a.nonces.claim('n', Date.now() + 1000)).toBe(true);
    expect(a.nonces.claim('n', Date.now() + 1000)).toBe(false);
    await a.close();
  });
});
