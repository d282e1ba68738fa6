/**
 * The TYO_MQ_* mapping derived from the settings schema (docs/configuration.md, "Environment
 * variables"): every setting has one variable, values are typed, `<NAME>_FILE` reads secrets
 * from files, typos are refused, and a real settings runtime applies the variables over the
 * settings file (flags still win).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  envMappings,
  readEnvLayer,
  resolveFileVariables,
} from '../../../broker/config/env-mapping';
import { createSettingsRuntime } from '../../../broker/config/settings-runtime';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(() => tmp.remove());

const quiet = pino({ level: 'silent' });

describe('TYO_MQ_* mapping', () => {
  it('derives one unique variable per setting, legacy names kept', () => {
    const names = envMappings().map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('TYO_MQ_LIMITS__MAX_QUEUED_PER_REALM');
    expect(names).toContain('TYO_MQ_STORAGE_OPTIONS__SYNCHRONOUS');
    expect(names).toContain('TYO_MQ_AUTH__JWT_SECRET');
    expect(names).toContain('TYO_MQ_CLUSTER__REDIS_URL');
    expect(names).toContain('TYO_MQ_MQTT__TLS__CERT');
    // The legacy spellings keep their own parsing (env-settings.ts).
    expect(names).not.toContain('TYO_MQ_MAX_HTTP_BUFFER_SIZE');
    expect(names).not.toContain('TYO_MQ_AUTH_STORE');
  });

  it('documents every variable in docs/configuration.md', () => {
    const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const missing = envMappings().filter((m) => !doc.includes(`\`${m.name}\``));
    expect(missing.map((m) => m.name)).toEqual([]);
  });

  it('parses values by type and reports bad ones and typos by name', () => {
    const layer = readEnvLayer({
      TYO_MQ_PING_INTERVAL: '7000',
      TYO_MQ_ALLOW_EIO3: 'off',
      TYO_MQ_CORS__ORIGIN: '["https://a.example"]',
      TYO_MQ_ACK_TIMEOUT: '2m',
      TYO_MQ_NODE_ID: '0042',
      TYO_MQ_PING_TIMEOUT: 'soon',
      TYO_MQ_LIMITS__MAX_QUEUED_PER_RELAM: '1',
      TYO_MQ_SOMETHING_ELSE: 'x',
    });
    const values = Object.fromEntries(layer.leaves.map((l) => [l.path.join('.'), l.value]));
    expect(values).toEqual({
      ping_interval: 7000,
      allow_eio3: false,
      'cors.origin': ['https://a.example'],
      ack_timeout: '2m',
      node_id: '0042',
    });
    expect(layer.errors).toEqual(['TYO_MQ_PING_TIMEOUT: "soon" is not a number']);
    expect(layer.unknown).toEqual(['TYO_MQ_LIMITS__MAX_QUEUED_PER_RELAM', 'TYO_MQ_SOMETHING_ELSE']);
  });

  it('reads <NAME>_FILE, refuses both set and unreadable files', () => {
    const secret = join(tmp.path, 'jwt');
    writeFileSync(secret, 'file-secret\n');
    const env: NodeJS.ProcessEnv = {
      TYO_MQ_AUTH__JWT_SECRET_FILE: secret,
      TYO_MQ_ADMIN_TOKEN_FILE: secret,
      // Names that end in _FILE themselves are not companions.
      TYO_MQ_ENV_FILE: join(tmp.path, 'none.env'),
    };
    const sources = resolveFileVariables(env);
    expect(env.TYO_MQ_AUTH__JWT_SECRET).toBe('file-secret');
    expect(env.TYO_MQ_ADMIN_TOKEN).toBe('file-secret');
    expect(env.TYO_MQ_ENV).toBeUndefined();
    expect(sources.get('TYO_MQ_ADMIN_TOKEN')?.via).toBe(`TYO_MQ_ADMIN_TOKEN_FILE=${secret}`);
    expect(() =>
      resolveFileVariables({ TYO_MQ_ADMIN_TOKEN: 'a', TYO_MQ_ADMIN_TOKEN_FILE: secret }),
    ).toThrow('TYO_MQ_ADMIN_TOKEN and TYO_MQ_ADMIN_TOKEN_FILE are both set');
    expect(() =>
      resolveFileVariables({ TYO_MQ_ADMIN_TOKEN_FILE: join(tmp.path, 'missing') }),
    ).toThrow(/TYO_MQ_ADMIN_TOKEN_FILE: cannot read .*missing \(ENOENT\)/);
  });

  it('applies variables over the settings file in a real runtime, flags over both', async () => {
    const file = join(tmp.path, 'settings.json');
    writeFileSync(
      file,
      JSON.stringify({
        limits: { max_queued_per_realm: 5, messages_per_second: 9 },
        storage_options: { synchronous: 'FULL', max_batch_rows: 100 },
      }),
    );
    const runtime = createSettingsRuntime({
      input: { storage: 'sqlite' },
      env: {
        TYO_MQ_LIMITS__MAX_QUEUED_PER_REALM: '100',
        TYO_MQ_STORAGE_OPTIONS__SYNCHRONOUS: 'NORMAL',
        TYO_MQ_STORAGE: 'memory',
        TYO_MQ_PING_INTERVAL: '7000',
      },
      logger: quiet,
      dataDir: tmp.path,
      settingsFile: file,
      overrides: { ping_interval: 8000 },
      watch: false,
    });
    try {
      const s = runtime.live.current;
      // Set leaf by leaf: the file's siblings stay.
      expect(s.limits).toMatchObject({ max_queued_per_realm: 100, messages_per_second: 9 });
      expect(s.storage_options).toMatchObject({ synchronous: 'NORMAL', max_batch_rows: 100 });
      expect(s.storage).toBe('memory');
      expect(s.ping_interval).toBe(8000);
      // Env values are this process's: the file is not rewritten with them.
      expect(JSON.parse(readFileSync(file, 'utf8')).limits.max_queued_per_realm).toBe(5);
    } finally {
      await runtime.close();
    }
  });

  it('refuses a settings-path typo and a wrongly typed value at start', () => {
    const start = (env: NodeJS.ProcessEnv) =>
      createSettingsRuntime({ input: {}, env, logger: quiet, dataDir: tmp.path, watch: false });
    expect(() => start({ TYO_MQ_LIMITS__MAX_QUEUED_PER_RELAM: '1' })).toThrow(
      /Unknown environment variable TYO_MQ_LIMITS__MAX_QUEUED_PER_RELAM/,
    );
    expect(() => start({ TYO_MQ_STORAGE_OPTIONS__SYNCHRONOUS: 'SOMETIMES' })).toThrow(
      /storage_options\.synchronous/,
    );
    expect(() => start({ TYO_MQ_ALLOW_EIO3: 'maybe' })).toThrow(
      'TYO_MQ_ALLOW_EIO3: "maybe" is not true or false',
    );
  });
});
