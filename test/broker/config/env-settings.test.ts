import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEnvFile, parseEnvFile } from '../../../broker/files/env-file';
import {
  envFilePath,
  envSettingsOverrides,
  normalizeAuthStoreArg,
  parseAuthStoreValue,
  resolvePort,
  settingsFilePath,
} from '../../../broker/files/env-settings';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

describe('.env files (§5 format)', () => {
  it('reads KEY=value lines, skips comments and blanks, strips one pair of quotes', () => {
    const parsed = parseEnvFile(
      [
        '# a comment',
        '',
        'PLAIN=abc',
        'DOUBLE="with spaces"',
        "SINGLE='x=y'",
        'EMPTY=',
        '  SPACED  =  trimmed  ',
        'export EXPORTED=1',
        'MISMATCH="half',
        'ESCAPES="a\\nb"',
        'not a line',
        '=novalue',
      ].join('\r\n'),
    );
    expect({ ...parsed }).toEqual({
      PLAIN: 'abc',
      DOUBLE: 'with spaces',
      SINGLE: 'x=y',
      EMPTY: '',
      SPACED: 'trimmed',
      EXPORTED: '1',
      MISMATCH: '"half',
      ESCAPES: 'a\\nb',
    });
  });

  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.remove());

  it('loads into the environment without overriding variables already set', () => {
    const file = join(tmp.path, '.env');
    writeFileSync(file, 'TYO_MQ_ADMIN_TOKEN="from-file"\nOTHER=2\n');
    const env: NodeJS.ProcessEnv = { OTHER: 'already' };
    expect(loadEnvFile(file, env)).toEqual(['TYO_MQ_ADMIN_TOKEN']);
    expect(env).toEqual({ OTHER: 'already', TYO_MQ_ADMIN_TOKEN: 'from-file' });
  });

  it('treats a missing file as empty', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFile(join(tmp.path, 'none.env'), env)).toEqual([]);
    expect(env).toEqual({});
  });
});

describe('TYO_MQ_* variables and flags (§13)', () => {
  it('maps the auth, store and buffer variables onto settings keys', () => {
    expect(
      envSettingsOverrides({
        TYO_MQ_AUTH_ENABLED: 'true',
        TYO_MQ_AUTO_ADMIN_TOKEN: 'false',
        TYO_MQ_AUTH_STORE: '/var/lib/auth.sqlite',
        TYO_MQ_MAX_HTTP_BUFFER_SIZE: '1024',
      }),
    ).toEqual({
      auth: { enabled: true, auto_admin_token: false },
      auth_store: '/var/lib/auth.sqlite',
      max_http_buffer_size: 1024,
    });
  });

  it('ignores unset, non-true and invalid values', () => {
    expect(
      envSettingsOverrides({
        TYO_MQ_AUTH_ENABLED: '1',
        TYO_MQ_AUTO_ADMIN_TOKEN: 'no',
        TYO_MQ_MAX_HTTP_BUFFER_SIZE: '-5',
        TYO_MQ_AUTH_STORE: '',
      }),
    ).toEqual({});
  });

  it('lets --auth-store beat TYO_MQ_AUTH_STORE, and parses true/false/paths', () => {
    expect(envSettingsOverrides({ TYO_MQ_AUTH_STORE: 'true' }, false)).toEqual({
      auth_store: false,
    });
    expect(parseAuthStoreValue('true')).toBe(true);
    expect(parseAuthStoreValue('FALSE')).toBe(false);
    expect(parseAuthStoreValue('db/auth.sqlite')).toBe('db/auth.sqlite');
    expect(parseAuthStoreValue(undefined)).toBeUndefined();
  });

  it('accepts --auth-store with or without a file name', () => {
    expect(normalizeAuthStoreArg(['--auth-store'])).toEqual(['--auth-store=true']);
    expect(normalizeAuthStoreArg(['--auth-store', '--port', '1'])).toEqual([
      '--auth-store=true',
      '--port',
      '1',
    ]);
    expect(normalizeAuthStoreArg(['--auth-store', 'a.sqlite'])).toEqual([
      '--auth-store',
      'a.sqlite',
    ]);
  });

  it('takes the port from --port, then TYO_MQ_PORT, then 17352', () => {
    expect(resolvePort('5000', { TYO_MQ_PORT: '6000' })).toEqual({ port: 5000 });
    expect(resolvePort(undefined, { TYO_MQ_PORT: '6000' })).toEqual({ port: 6000 });
    expect(resolvePort(undefined, {})).toEqual({ port: 17352 });
    expect(resolvePort(undefined, { TYO_MQ_PORT: 'x' })).toEqual({ error: 'Invalid port: x' });
  });

  it('finds the env and settings files', () => {
    expect(envFilePath({})).toBe('.env');
    expect(envFilePath({ TYO_MQ_ENV_FILE: '/etc/mq.env' })).toBe('/etc/mq.env');
    expect(settingsFilePath('a.json', { TYO_MQ_SETTINGS_FILE: 'b.json' })).toBe('a.json');
    expect(settingsFilePath(undefined, { TYO_MQ_SETTINGS_FILE: 'b.json' })).toBe('b.json');
    expect(settingsFilePath(undefined, {})).toBeUndefined();
  });
});
