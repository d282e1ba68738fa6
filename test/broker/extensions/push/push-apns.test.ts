/**
 * The `apns` transport against a local HTTP/2 TLS server with a self-signed certificate made by
 * `openssl` in the test (`spec/protocol-extensions.md` §6.8.4, R112–R119): config errors, the
 * request shape and the ES256 provider token, token reuse and the 40 min refresh, env hosts,
 * result mapping, and no token or key material in the logs (via the wake runtime).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IdentityStateMap } from '../../../../broker/extensions/identity-state-map';
import { ApnsTransport } from '../../../../broker/extensions/push/apns-transport';
import { loadApnsOptions } from '../../../../broker/extensions/push/apns-config';
import { loadPushConfig, loopbackOverride } from '../../../../broker/extensions/push/push-config';
import { PushRegistry } from '../../../../broker/extensions/push/push-registry';
import { PushService } from '../../../../broker/extensions/push/push-runtime';
import {
  PushEndpointListSchema,
  type ApnsEnv,
  type PushEndpoint,
} from '../../../../broker/extensions/push/push-types';
import { Registry } from 'prom-client';
import { captureLogs } from '../../../support/log-capture';
import { makeTempDir, type TempDir } from '../../../support/temp-dir';

interface Seen {
  server: 'production' | 'sandbox';
  headers: IncomingHttpHeaders;
  body: string;
}

let dir: TempDir;
let ca: string;
const servers: Http2SecureServer[] = [];
const urls: Record<string, string> = {};
const seen: Seen[] = [];
let answer: { status: number; reason?: string } = { status: 200 };
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
let env: Record<string, string>;

beforeAll(async () => {
  dir = await makeTempDir();
  const keyFile = path.join(dir.path, 'tls.key');
  const certFile = path.join(dir.path, 'tls.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  ca = readFileSync(certFile, 'utf8');
  for (const name of ['production', 'sandbox'] as const) {
    const server = createSecureServer({ key: readFileSync(keyFile), cert: ca });
    server.on('stream', (stream, headers) => {
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (body += c));
      stream.on('end', () => {
        seen.push({ server: name, headers, body });
        stream.respond({ ':status': answer.status });
        stream.end(answer.reason ? JSON.stringify({ reason: answer.reason }) : '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls[name] = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    servers.push(server);
  }
  const p8 = path.join(dir.path, 'AuthKey.p8');
  writeFileSync(p8, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  env = {
    TYO_MQ_PUSH_TRANSPORT: 'apns',
    TYO_MQ_PUSH_APNS_KEY: p8,
    TYO_MQ_PUSH_APNS_KEY_ID: 'KEYID12345',
    TYO_MQ_PUSH_APNS_TEAM_ID: 'TEAM123456',
    TYO_MQ_PUSH_APNS_TOPIC: 'com.example.app',
    TYO_MQ_PUSH_APNS_PRODUCTION_URL: urls.production!,
    TYO_MQ_PUSH_APNS_SANDBOX_URL: urls.sandbox!,
  };
});

afterAll(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
  await dir.remove();
});

beforeEach(() => {
  seen.length = 0;
  answer = { status: 200 };
});

const endpoint = (token: string, e: ApnsEnv | null = null): PushEndpoint => ({
  transport: 'apns',
  token,
  app_id: null,
  env: e,
  added_at: 0,
  last_ok: null,
});

function apns(extra: Record<string, string> = {}): ApnsTransport {
  const t = loadPushConfig({ ...env, ...extra }, { apnsCa: ca, timeoutMs: 500 })!.transports.get(
    'apns',
  );
  return t as ApnsTransport;
}

describe('apns config (R112)', () => {
  it('names the missing variables, refuses RSA keys and bad envs', () => {
    expect(() => loadPushConfig({ TYO_MQ_PUSH_TRANSPORT: 'apns' })).toThrow(/TYO_MQ_PUSH_APNS_KEY/);
    const rsa = path.join(dir.path, 'rsa.p8');
    writeFileSync(
      rsa,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }),
    );
    expect(() => loadPushConfig({ ...env, TYO_MQ_PUSH_APNS_KEY: rsa })).toThrow(/EC/);
    expect(() => loadPushConfig({ ...env, TYO_MQ_PUSH_APNS_ENV: 'staging' })).toThrow(
      /must be "production" or "sandbox"/,
    );
    expect(() =>
      loadPushConfig({ ...env, TYO_MQ_PUSH_APNS_PRODUCTION_URL: 'https://api.push.apple.example' }),
    ).toThrow(/loopback/);
  });
});

describe('apns send (R113–R119)', () => {
  it('R113: request shape, ES256 token, exact body', async () => {
    const t = apns();
    try {
      expect(await t.send(endpoint('abc123deadbeef'))).toEqual({ ok: true });
      const [req] = seen;
      expect(req!.server).toBe('production');
      expect(req!.headers[':method']).toBe('POST');
      expect(req!.headers[':path']).toBe('/3/device/abc123deadbeef');
      expect(req!.headers['apns-topic']).toBe('com.example.app');
      expect(req!.headers['apns-push-type']).toBe('background');
      expect(req!.headers['apns-priority']).toBe('5');
      expect(req!.headers['apns-expiration']).toBe('0');
      expect(req!.body).toBe('{"aps":{"content-available":1}}');
      const jwt = String(req!.headers.authorization).replace(/^bearer /, '');
      expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', kid: 'KEYID12345' });
      const { payload } = await jwtVerify(jwt, publicKey);
      expect(payload.iss).toBe('TEAM123456');
      expect(typeof payload.iat).toBe('number');
    } finally {
      t.close();
    }
  });

  it('R114, R115: one signature reused, re-signed after 41 min; env picks the host', async () => {
    let now = Date.now();
    const options = loadApnsOptions(env, loopbackOverride);
    const t = new ApnsTransport({ ...options, ca, timeoutMs: 500, now: () => now });
    try {
      for (const e of [null, 'production', 'sandbox'] as const)
        await t.send(endpoint('abc123deadbeef', e));
      expect(t.signs).toBe(1);
      expect(new Set(seen.map((s) => s.headers.authorization)).size).toBe(1);
      expect(seen.map((s) => s.server)).toEqual(['production', 'production', 'sandbox']);
      now += 41 * 60_000;
      await t.send(endpoint('abc123deadbeef'));
      expect(t.signs).toBe(2);
    } finally {
      t.close();
    }
  });

  it('R116–R118: gone, auth (ExpiredProviderToken re-signs), transient', async () => {
    const t = apns();
    try {
      for (const a of [
        { status: 410, reason: 'Unregistered' },
        { status: 400, reason: 'BadDeviceToken' },
        { status: 400, reason: 'DeviceTokenNotForTopic' },
      ]) {
        answer = a;
        expect(await t.send(endpoint('abc123deadbeef'))).toMatchObject({ ok: false, gone: true });
      }
      answer = { status: 403, reason: 'InvalidProviderToken' };
      expect(await t.send(endpoint('abc123deadbeef'))).toMatchObject({ ok: false, auth: true });
      expect(await t.send(endpoint('abc123deadbeef'))).toMatchObject({ ok: false, auth: true });
      expect(t.signs).toBe(1);
      answer = { status: 403, reason: 'ExpiredProviderToken' };
      expect(await t.send(endpoint('abc123deadbeef'))).toMatchObject({ ok: false, auth: true });
      answer = { status: 200 };
      expect(await t.send(endpoint('abc123deadbeef'))).toEqual({ ok: true });
      expect(t.signs).toBe(2);
      answer = { status: 503 };
      const r = await t.send(endpoint('abc123deadbeef'));
      expect(r.ok).toBe(false);
      expect(r.gone).toBeUndefined();
    } finally {
      t.close();
    }
    const down = apns({ TYO_MQ_PUSH_APNS_PRODUCTION_URL: 'https://127.0.0.1:9' });
    try {
      expect((await down.send(endpoint('abc123deadbeef'))).ok).toBe(false);
    } finally {
      down.close();
    }
  });

  it('R117, R119: the auth warning names transport and reason, never the token, JWT or key', async () => {
    const logs = captureLogs();
    const config = loadPushConfig(env, { apnsCa: ca, timeoutMs: 500 })!;
    const registry = new PushRegistry(
      new IdentityStateMap('push', PushEndpointListSchema, undefined, logs.logger),
    );
    const push = new PushService({
      config,
      registry,
      logger: logs.logger,
      registry_metrics: new Registry(),
      clustered: false,
    });
    try {
      await registry.register('r', 'bob', {
        transport: 'apns',
        token: 'abc123deadbeef',
        app_id: null,
        env: 'production',
      });
      answer = { status: 403, reason: 'BadEnvironmentKeyInToken' };
      expect(await push.fireWake('r', 'bob')).toEqual({ sent: 1 });
      const text = logs.text();
      expect(text).toContain('transport=apns');
      expect(text).toContain('reason=auth');
      expect(text).not.toContain('abc123deadbeef');
      expect(text).not.toContain('BEGIN');
      const jwt = String(seen[0]!.headers.authorization).replace(/^bearer /, '');
      expect(text).not.toContain(jwt);
      expect(registry.count('r', 'bob')).toBe(1);
    } finally {
      push.close();
    }
  });
});
