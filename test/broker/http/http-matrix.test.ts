/**
 * The §10 HTTP matrix (`spec/protocol-admin.md` §10.1–§10.7) against a real broker: every
 * route with and without a bearer, auth on and off, sub-switches off, and the bare 403 for
 * everything the API does not serve.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpPath } from '../../../shared/http-api';
import { ADMIN_TOKEN, startAuthBroker } from '../../helpers/auth-clients';
import { startBroker, type Harness } from '../../helpers/broker-harness';

const TOKENS = {
  tokens: [
    { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
    { token: 'realm-token', realm: 'alpha', role: 'both' },
  ],
  management_tokens: [{ token: 'mt-org', realm_prefix: 'org:' }],
};
const ADMIN_ROUTES = [HttpPath.METRICS, HttpPath.STATS, '/api/realms/alpha/dlq'];
/** Liveness and readiness: public, under `http_api.health` (probes carry no bearer). */
const PUBLIC_ROUTES = [HttpPath.HEALTH, HttpPath.HEALTHZ, HttpPath.READY, HttpPath.READYZ];
const UNAUTHORIZED = { ok: false, code: 401, message: 'Bearer admin token required' };

let opened: Harness[] = [];
afterEach(async () => {
  await Promise.all(opened.map((h) => h.close()));
  opened = [];
});
async function track(h: Promise<Harness>): Promise<Harness> {
  const started = await h;
  opened.push(started);
  return started;
}

async function call(h: Harness, path: string, init: RequestInit & { token?: string } = {}) {
  const { token, ...rest } = init;
  const res = await fetch(`${h.url}${path}`, {
    ...rest,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: res.status, text: await res.text() };
}

async function expectBare403(
  h: Harness,
  path: string,
  init: RequestInit & { token?: string } = {},
) {
  const res = await call(h, path, init);
  expect({ path, method: init.method ?? 'GET', ...res }).toEqual({
    path,
    method: init.method ?? 'GET',
    status: 403,
    text: '',
  });
}

describe('§10 matrix, auth off', () => {
  it('serves every route without a token (§10.2), and ignores any bearer', async () => {
    const h = await track(startBroker({ http_api: { enabled: true } }));
    for (const path of [...PUBLIC_ROUTES, ...ADMIN_ROUTES]) {
      for (const token of [undefined, 'whatever']) {
        expect({ path, token, status: (await call(h, path, { token })).status }).toEqual({
          path,
          token,
          status: 200,
        });
      }
    }
    // No management tokens can exist while auth is off: POST /api/realms is 404 (§10.7 step 1).
    const post = await call(h, '/api/realms', { method: 'POST', token: 'mt-org', body: '{}' });
    expect(post.status).toBe(404);
    expect(JSON.parse(post.text)).toEqual({ ok: false, code: 404, message: 'not found' });
  });
});

describe('§10 matrix, auth on', () => {
  it('needs the global admin bearer for metrics, stats and DLQ; health and ready stay open', async () => {
    const h = await track(startAuthBroker(TOKENS, { http_api: { enabled: true } }));
    for (const path of ADMIN_ROUTES) {
      for (const token of [undefined, 'wrong', 'realm-token', 'mt-org']) {
        const res = await call(h, path, { token });
        expect({ path, token, status: res.status, body: JSON.parse(res.text) }).toEqual({
          path,
          token,
          status: 401,
          body: UNAUTHORIZED,
        });
      }
      expect((await call(h, path, { token: ADMIN_TOKEN })).status).toBe(200);
    }
    for (const path of PUBLIC_ROUTES) {
      for (const token of [undefined, 'wrong']) {
        expect({ path, token, status: (await call(h, path, { token })).status }).toEqual({
          path,
          token,
          status: 200,
        });
      }
    }
  });

  it('metrics_auth: false opens metrics only', async () => {
    const h = await track(
      startAuthBroker(TOKENS, { http_api: { enabled: true, metrics_auth: false } }),
    );
    expect((await call(h, HttpPath.METRICS)).status).toBe(200);
    expect((await call(h, HttpPath.STATS)).status).toBe(401);
    expect((await call(h, '/api/realms/alpha/dlq')).status).toBe(401);
  });

  it('answers a bare 403, not 401, to routes switched off (§10.1)', async () => {
    const h = await track(
      startAuthBroker(TOKENS, {
        http_api: { enabled: true, metrics: false, stats: false, health: false },
      }),
    );
    for (const path of [...ADMIN_ROUTES, ...PUBLIC_ROUTES]) {
      await expectBare403(h, path);
      await expectBare403(h, path, { token: ADMIN_TOKEN });
    }
  });

  it('answers a bare 403 to unknown paths and methods, with or without a token', async () => {
    const h = await track(startAuthBroker(TOKENS, { http_api: { enabled: true } }));
    for (const token of [undefined, ADMIN_TOKEN]) {
      await expectBare403(h, '/nope', { token });
      await expectBare403(h, '/api/metrics/x', { token });
      await expectBare403(h, '/api/realms', { token });
      await expectBare403(h, '/%E0%A4%A', { token });
      for (const method of ['POST', 'PUT', 'DELETE']) {
        await expectBare403(h, HttpPath.METRICS, { method, token });
        await expectBare403(h, HttpPath.STATS, { method, token });
      }
      await expectBare403(h, '/api/realms', { method: 'PUT', token });
    }
  });

  it('POST /api/realms: 401, 400 for a body over 64 KiB, 403 outside the prefix, 200', async () => {
    const h = await track(startAuthBroker(TOKENS, { http_api: { enabled: true } }));
    const key = 'k'.repeat(32);
    const post = async (token: string | undefined, body: string) => {
      const res = await call(h, '/api/realms', { method: 'POST', token, body });
      return { status: res.status, body: JSON.parse(res.text) as unknown };
    };
    const ok = JSON.stringify({ realm: 'org:a', manager_key: key });
    for (const token of [undefined, ADMIN_TOKEN, 'wrong']) {
      expect(await post(token, ok)).toEqual({
        status: 401,
        body: { ok: false, code: 401, message: 'management token required' },
      });
    }
    expect(
      await post(
        'mt-org',
        JSON.stringify({ realm: 'org:b', manager_key: key, pad: 'x'.repeat(66_000) }),
      ),
    ).toEqual({ status: 400, body: { ok: false, code: 400, message: 'invalid JSON body' } });
    expect(
      (await post('mt-org', JSON.stringify({ realm: 'team:a', manager_key: key }))).status,
    ).toBe(403);
    expect((await post('mt-org', ok)).status).toBe(200);
  });
});
