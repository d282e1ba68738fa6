/**
 * The `fcm` transport against a fake Google on localhost (`spec/protocol-extensions.md`
 * §6.8.3, R100–R104, R106–R111): config errors, the JWT-bearer mint (assertion verified under
 * the service account's public key), token reuse and refresh, the send request, the result
 * mapping and token-free logs. The token URL comes from the file's `token_uri`, the send base
 * URL from `TYO_MQ_PUSH_FCM_BASE_URL` (loopback only, §6.9).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPushConfig } from '../../../../broker/extensions/push/push-config';
import { buildWakePayload, type PushEndpoint } from '../../../../broker/extensions/push/push-types';
import { captureLogs } from '../../../support/log-capture';
import { makeTempDir, type TempDir } from '../../../support/temp-dir';

interface Seen {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let dir: TempDir;
let server: Server;
let base: string;
const seen: Seen[] = [];
let sendStatus = 200;
let sendBody = '{}';
let expiresIn = 3600;
let mints = 0;
const keys = new Map<string, KeyObject>();

function serviceAccount(name: string, extra: Record<string, unknown> = {}): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  keys.set(`${name}@sa.test`, publicKey);
  const file = path.join(dir.path, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      type: 'service_account',
      client_email: `${name}@sa.test`,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      project_id: `${name}-project`,
      token_uri: `${base}/token`,
      ...extra,
    }),
  );
  return file;
}

beforeAll(async () => {
  dir = await makeTempDir();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/token') {
        mints += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ access_token: `fake-access-token-${mints}`, expires_in: expiresIn }),
        );
        return;
      }
      res.writeHead(sendStatus, { 'content-type': 'application/json' }).end(sendBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dir.remove();
});

beforeEach(() => {
  seen.length = 0;
  sendStatus = 200;
  sendBody = '{}';
  expiresIn = 3600;
  mints = 0;
});

const endpoint = (token: string, app_id: string | null = null): PushEndpoint => ({
  transport: 'fcm',
  token,
  app_id,
  env: null,
  added_at: 0,
  last_ok: null,
});

function fcm(env: Record<string, string>, logger = captureLogs().logger) {
  const config = loadPushConfig(
    { TYO_MQ_PUSH_TRANSPORT: 'fcm', TYO_MQ_PUSH_FCM_BASE_URL: base, ...env },
    { logger, timeoutMs: 500 },
  );
  return config!.transports.get('fcm')!;
}

describe('fcm config (R100, R109)', () => {
  it('names the variable and the fault', () => {
    const load = (env: Record<string, string>) => () =>
      loadPushConfig({ TYO_MQ_PUSH_TRANSPORT: 'fcm', ...env });
    expect(load({})).toThrow(/TYO_MQ_PUSH_FCM_CREDENTIALS/);
    expect(load({ TYO_MQ_PUSH_FCM_CREDENTIALS: serviceAccount('ok') })).not.toThrow();
    const noKey = serviceAccount('nokey', { client_email: undefined, private_key: undefined });
    expect(load({ TYO_MQ_PUSH_FCM_CREDENTIALS: noKey })).toThrow(/client_email|private_key/);
    const user = serviceAccount('user', { type: 'authorized_user' });
    expect(load({ TYO_MQ_PUSH_FCM_CREDENTIALS: user })).toThrow(/service_account/);
    expect(load({ TYO_MQ_PUSH_FCM_PROJECTS: '{nope' })).toThrow(/TYO_MQ_PUSH_FCM_PROJECTS/);
    expect(load({ TYO_MQ_PUSH_FCM_PROJECTS: '["operator"]' })).toThrow(/TYO_MQ_PUSH_FCM_PROJECTS/);
    expect(
      load({
        TYO_MQ_PUSH_FCM_PROJECTS: JSON.stringify({ operator: path.join(dir.path, 'no.json') }),
      }),
    ).toThrow(/TYO_MQ_PUSH_FCM_PROJECTS\[operator\]/);
    expect(
      load({
        TYO_MQ_PUSH_FCM_CREDENTIALS: serviceAccount('ok2'),
        TYO_MQ_PUSH_FCM_BASE_URL: 'https://evil.example',
      }),
    ).toThrow(/loopback/);
  });
});

describe('fcm send (R101–R104)', () => {
  it('R101–R103: one mint with a verifiable assertion, then the data-only send', async () => {
    const t = fcm({ TYO_MQ_PUSH_FCM_CREDENTIALS: serviceAccount('proj-under-test') });
    expect(await t.send(endpoint('dev-tok-1'), buildWakePayload())).toEqual({ ok: true });
    expect(await t.send(endpoint('dev-tok-1'), buildWakePayload())).toEqual({ ok: true });
    const [mint, ...sends] = seen;
    expect(mint!.path).toBe('/token');
    const form = new URLSearchParams(mint!.body);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const { payload, protectedHeader } = await jwtVerify(
      form.get('assertion')!,
      keys.get('proj-under-test@sa.test')!,
    );
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(payload.iss).toBe('proj-under-test@sa.test');
    expect(payload.scope).toBe('https://www.googleapis.com/auth/firebase.messaging');
    expect(payload.exp! > payload.iat!).toBe(true);
    expect(sends).toHaveLength(2);
    expect(sends[0]!.path).toBe('/v1/projects/proj-under-test-project/messages:send');
    expect(sends[0]!.headers.authorization).toBe('Bearer fake-access-token-1');
    const msg = (JSON.parse(sends[0]!.body) as { message: Record<string, unknown> }).message;
    expect(msg).toEqual({
      token: 'dev-tok-1',
      data: { type: 'wake', v: '1' },
      android: { priority: 'HIGH' },
    });
  });

  it('R102: expires_in 1 (inside the 60 s margin) mints again', async () => {
    expiresIn = 1;
    const t = fcm({ TYO_MQ_PUSH_FCM_CREDENTIALS: serviceAccount('short') });
    await t.send(endpoint('a'), buildWakePayload());
    await t.send(endpoint('a'), buildWakePayload());
    expect(mints).toBe(2);
  });

  it('R104: result mapping; auth warnings carry no device or access token', async () => {
    const logs = captureLogs();
    const t = fcm({ TYO_MQ_PUSH_FCM_CREDENTIALS: serviceAccount('map') }, logs.logger);
    const send = () => t.send(endpoint('secret-device-token'), buildWakePayload());
    sendStatus = 404;
    expect(await send()).toMatchObject({ ok: false, gone: true });
    sendStatus = 400;
    sendBody = JSON.stringify({
      error: { status: 'INVALID_ARGUMENT', details: [{ errorCode: 'INVALID_ARGUMENT' }] },
    });
    expect(await send()).toMatchObject({ ok: false, gone: true });
    for (const status of [401, 403, 503]) {
      sendStatus = status;
      const r = await send();
      expect(r.ok).toBe(false);
      expect(r.gone).toBeUndefined();
    }
    sendStatus = 401;
    expect(await send()).toMatchObject({ ok: false, auth: true });
    expect(logs.text()).not.toContain('secret-device-token');
    expect(logs.text()).not.toContain('fake-access-token');
  });

  it('R106, R107, R110, R111: projects per app_id, one mint each, no-project skip', async () => {
    const logs = captureLogs();
    const t = fcm(
      {
        TYO_MQ_PUSH_FCM_CREDENTIALS: serviceAccount('hilia'),
        TYO_MQ_PUSH_FCM_PROJECTS: JSON.stringify({ operator: serviceAccount('operator') }),
      },
      logs.logger,
    );
    for (const app of ['operator', 'operator', 'hilia', null, '__proto__']) {
      expect(await t.send(endpoint('x', app), buildWakePayload())).toEqual({ ok: true });
    }
    expect(mints).toBe(2);
    const sends = seen.filter((s) => s.path !== '/token').map((s) => s.path.split('/')[3]);
    expect(sends).toEqual([
      'operator-project',
      'operator-project',
      'hilia-project',
      'hilia-project',
      'hilia-project',
    ]);
    const mapOnly = fcm(
      { TYO_MQ_PUSH_FCM_PROJECTS: JSON.stringify({ operator: serviceAccount('op2') }) },
      logs.logger,
    );
    seen.length = 0;
    expect(
      await mapOnly.send(endpoint('secret-device-token', 'other'), buildWakePayload()),
    ).toEqual({
      ok: false,
    });
    expect(seen).toEqual([]);
    expect(logs.text()).toContain('reason=no-project');
    expect(logs.text()).not.toContain('secret-device-token');
  });

  it('R104: an unreachable host is {ok:false}', async () => {
    const t = fcm({
      TYO_MQ_PUSH_FCM_CREDENTIALS: serviceAccount('down'),
      TYO_MQ_PUSH_FCM_BASE_URL: 'http://127.0.0.1:9',
    });
    expect((await t.send(endpoint('a'), buildWakePayload())).ok).toBe(false);
  });
});
