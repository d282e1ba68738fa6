/**
 * HTTP API with auth on (`spec/protocol-admin.md` §10.2–§10.6, §19 "phase5-http-api"): metrics,
 * stats and DLQ need the global admin token as bearer; `/health` stays public.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, useAuthBroker } from '../../helpers/auth-clients';

const AUTH = {
  tokens: [
    { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
    { token: 'realm-token', realm: 'alpha', role: 'both' },
  ],
};

describe('HTTP API bearer (§10.2)', () => {
  const ctx = useAuthBroker(AUTH, { http_api: { enabled: true } });
  const get = (path: string, token?: string) =>
    fetch(`${ctx.h.url}${path}`, token ? { headers: { authorization: token } } : {});

  it('answers 401 without or with a wrong bearer, 200 with the admin token', async () => {
    for (const path of ['/api/metrics', '/api/stats', '/api/realms/alpha/dlq']) {
      for (const auth of [undefined, 'Bearer nope', 'Bearer realm-token', ADMIN_TOKEN]) {
        const res = await get(path, auth);
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({
          ok: false,
          code: 401,
          message: 'Bearer admin token required',
        });
      }
      const ok = await get(path, `bearer ${ADMIN_TOKEN}`);
      expect(ok.status).toBe(200);
      await ok.text();
    }
    const health = await get('/health');
    expect(health.status).toBe(200);
    await health.text();
  });
});

describe('metrics_auth: false (§10.4)', () => {
  const ctx = useAuthBroker(AUTH, { http_api: { enabled: true, metrics_auth: false } });

  it('opens /api/metrics but not /api/stats', async () => {
    const metrics = await fetch(`${ctx.h.url}/api/metrics`);
    expect(metrics.status).toBe(200);
    await metrics.text();
    const stats = await fetch(`${ctx.h.url}/api/stats`);
    expect(stats.status).toBe(401);
    await stats.text();
  });
});
