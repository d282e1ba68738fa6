/**
 * Remote connection profiles: persisted atomically as secret-free JSON (mode 0600), secrets in
 * the SecretStore, validation with clear messages; and the base-path URL rules and the clear-text
 * bearer refusal (broker-endpoint.ts).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiUrl,
  assertBearerAllowed,
  bearerWouldBeClearText,
  parseBrokerUrl,
} from '../../electron/services/broker-endpoint';
import {
  CONNECTIONS_FILE_NAME,
  ConnectionProfileStore,
  profileSecretName,
} from '../../electron/services/connection-profiles';
import { ConnectionWatch, eventConnectionId } from '../../electron/services/connection-watch';
import { FileSecretStore } from '../../electron/services/secret-store';
import { ConnectionProfileFieldsSchema } from '../../shared/console-api-connections';
import { SwitchboardError } from '../../shared/error-catalogue';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const SECRET = 'remote-admin-token-9f1e2d3c4b5a';
const fields = (over: Record<string, unknown> = {}) =>
  ConnectionProfileFieldsSchema.parse({
    name: 'Production',
    url: 'https://mq.example.com/broker-a/',
    credential: { kind: 'admin' },
    ...over,
  });

const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof SwitchboardError ? error.code : 'not a SwitchboardError';
  }
};

describe('ConnectionProfileStore', () => {
  let dir: TempDir;
  let secrets: FileSecretStore;
  beforeEach(async () => {
    dir = await makeTempDir();
    secrets = new FileSecretStore(dir.path);
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('persists profiles atomically, mode 0600, without the secret', () => {
    const store = new ConnectionProfileStore(dir.path, secrets);
    const added = store.add(
      fields({ tls: { caFile: '/etc/ca.pem', rejectUnauthorized: true } }),
      SECRET,
    );
    const file = path.join(dir.path, CONNECTIONS_FILE_NAME);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toEqual({
      version: 1,
      profiles: [
        {
          id: added.id,
          name: 'Production',
          url: 'https://mq.example.com/broker-a/',
          tls: { caFile: '/etc/ca.pem', rejectUnauthorized: true },
          credential: { kind: 'admin' },
          allowInsecureBearer: false,
        },
      ],
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No temp file left behind by the temp + rename write.
    expect(readdirSync(dir.path).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(secrets.get(profileSecretName(added.id))).toBe(SECRET);
    // A new store (a console restart) reads the same profiles back.
    const reloaded = new ConnectionProfileStore(dir.path, secrets);
    expect(reloaded.list()).toEqual(store.list());
    expect(reloaded.secret(added.id)).toBe(SECRET);
  });

  it('keeps, replaces or forgets the secret on edit, and forgets it on remove', () => {
    const store = new ConnectionProfileStore(dir.path, secrets);
    const { id } = store.add(fields(), SECRET);
    store.edit(id, fields({ name: 'Prod A' }));
    expect(store.secret(id)).toBe(SECRET);
    expect(store.get(id).name).toBe('Prod A');
    store.edit(id, fields({ name: 'Prod A' }), 'rotated-token-1234');
    expect(store.secret(id)).toBe('rotated-token-1234');
    store.edit(id, fields({ credential: { kind: 'none' } }), undefined, true);
    expect(store.secret(id)).toBeNull();
    store.remove(id);
    expect(store.list()).toEqual([]);
    expect(codeOf(() => store.get(id))).toBe('SWB_ERR_NOT_FOUND');
    const again = store.add(fields(), SECRET);
    store.remove(again.id);
    expect(secrets.get(profileSecretName(again.id))).toBeNull();
  });

  it('refuses bad URLs, duplicate names and credentials without their secret', () => {
    const store = new ConnectionProfileStore(dir.path, secrets);
    store.add(fields(), SECRET);
    expect(codeOf(() => store.add(fields({ name: 'production' }), SECRET))).toBe(
      'SWB_ERR_VALIDATION',
    );
    expect(codeOf(() => store.add(fields({ name: 'Local broker' }), SECRET))).toBe(
      'SWB_ERR_VALIDATION',
    );
    expect(codeOf(() => store.add({ ...fields(), name: 'B', url: 'ftp://x/' }, SECRET))).toBe(
      'SWB_ERR_VALIDATION',
    );
    expect(() => store.add(fields({ name: 'C' }))).toThrow(/needs its admin token/);
    expect(() =>
      store.add(fields({ name: 'D', credential: { kind: 'realm-manager', realm: 'fleet' } })),
    ).toThrow(/realm manager key/);
    expect(store.add(fields({ name: 'E', credential: { kind: 'none' } })).name).toBe('E');
    expect(store.freeName('Production')).toBe('Production (2)');
  });

  it('refuses a corrupt file instead of starting with no profiles', () => {
    writeFileSync(path.join(dir.path, CONNECTIONS_FILE_NAME), '{"version":1,"profiles":[{}]}');
    expect(() => new ConnectionProfileStore(dir.path, secrets)).toThrow(
      /not a console connections file/,
    );
  });
});

describe('broker URLs', () => {
  it('keeps the base path for socket.io and the HTTP API', () => {
    const endpoint = parseBrokerUrl('https://mq.example.com:8443/broker-a/');
    expect(endpoint).toMatchObject({
      origin: 'https://mq.example.com:8443',
      basePath: '/broker-a',
      baseUrl: 'https://mq.example.com:8443/broker-a',
      socketPath: '/broker-a/socket.io',
      secure: true,
      hostname: 'mq.example.com',
    });
    expect(apiUrl(endpoint.baseUrl, '/api/stats')).toBe(
      'https://mq.example.com:8443/broker-a/api/stats',
    );
    expect(parseBrokerUrl('http://127.0.0.1:17352').socketPath).toBe('/socket.io');
    expect(apiUrl('http://127.0.0.1:17352', '/health')).toBe('http://127.0.0.1:17352/health');
    expect(parseBrokerUrl('wss://h/x/y//').baseUrl).toBe('https://h/x/y');
    expect(parseBrokerUrl('ws://h').origin).toBe('http://h');
  });

  it('refuses other schemes and credentials in the URL', () => {
    expect(codeOf(() => parseBrokerUrl('ftp://h/'))).toBe('SWB_ERR_VALIDATION');
    expect(codeOf(() => parseBrokerUrl('not a url'))).toBe('SWB_ERR_VALIDATION');
    expect(() => parseBrokerUrl('https://admin:secret@h/')).toThrow(/not in the broker URL/);
  });

  it('refuses a bearer in clear text to a non-loopback host unless the profile opts in', () => {
    expect(bearerWouldBeClearText(parseBrokerUrl('http://mq.example.com/'))).toBe(true);
    expect(bearerWouldBeClearText(parseBrokerUrl('https://mq.example.com/'))).toBe(false);
    expect(bearerWouldBeClearText(parseBrokerUrl('http://127.0.0.1:1/'))).toBe(false);
    expect(bearerWouldBeClearText(parseBrokerUrl('http://[::1]:1/'))).toBe(false);
    expect(bearerWouldBeClearText(parseBrokerUrl('http://localhost:1/'))).toBe(false);
    const remote = parseBrokerUrl('http://10.0.0.7:17352/');
    expect(() => assertBearerAllowed(remote, false)).toThrow(
      /Refused to send the admin token in clear text \(http:\/\/\) to 10\.0\.0\.7/,
    );
    expect(() => assertBearerAllowed(remote, true)).not.toThrow();
  });
});

describe('connection watch', () => {
  it('delivers a connection’s events only to clients watching it', () => {
    const watch = new ConnectionWatch();
    expect(watch.wants({ connectionId: 'local' })).toBe(true);
    expect(watch.wants({ connectionId: 'remote-1' })).toBe(false);
    expect(watch.wants([{ id: 'remote-1' }])).toBe(true); // the connection list: for everyone
    expect(watch.set(['remote-1'])).toBe(true);
    expect(watch.wants({ connectionId: 'remote-1' })).toBe(true);
    expect(watch.wants({ connectionId: 'local' })).toBe(false);
    expect(watch.set('remote-1')).toBe(false);
    expect(watch.wants({ connectionId: 'remote-1' })).toBe(true);
    expect(eventConnectionId({ state: 'running' })).toBeNull();
  });
});
