/**
 * `POST /api/realms` (spec/protocol-admin.md §10.7, §19 "phase5-http-api"): management-token
 * provisioning in the spec's check order, prefix rule, caps, no key echo.
 */
import { describe, expect, it } from 'vitest';
import { useBroker, type Harness } from '../../helpers/broker-harness';
import { ADMIN_TOKEN, adminSettings, manager } from './management-client';

async function post(h: Harness, body: unknown, token?: string, raw?: string) {
  const res = await fetch(`${h.url}/api/realms`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: raw ?? JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json().catch(() => null)) as Record<string, unknown>,
  };
}

const key = 'k'.repeat(64);

describe('POST /api/realms', () => {
  const ctx = useBroker(
    adminSettings(
      { http_api: { enabled: true } },
      {
        management_tokens: [
          { token: 'mt-org', realm_prefix: 'org:' },
          { token: 'mt-eph', realm_prefix: 'eph:', ephemeral_only: true, max_ttl: '7d' },
        ],
      },
    ),
  );

  it('refuses missing, wrong and admin bearers with 401', async () => {
    for (const token of [undefined, 'nope', ADMIN_TOKEN]) {
      expect(await post(ctx.h, { realm: 'org:a', manager_key: key }, token)).toEqual({
        status: 401,
        body: { ok: false, code: 401, message: 'management token required' },
      });
    }
  });

  it('creates a realm with its key (never echoed), then rotates it on a re-post', async () => {
    const first = await post(ctx.h, { realm: 'org:acme', manager_key: key }, 'mt-org');
    expect(first).toEqual({
      status: 200,
      body: {
        ok: true,
        realm: 'org:acme',
        created: true,
        manager_key_configured: true,
        ephemeral: false,
        expires_at: null,
      },
    });
    expect(ctx.h.broker.auth.realm('org:acme')).toEqual({ required: true, manager_key: key });
    const again = await post(ctx.h, { realm: 'org:acme', managerKey: 'other-key' }, 'mt-org');
    expect(again.body.created).toBe(false);
    expect(ctx.h.broker.auth.realm('org:acme')?.manager_key).toBe('other-key');
    // The new key signs realm-scoped commands.
    const m = await manager(ctx.h, 'other-key');
    expect(
      (await m.run({ command: 'set_realm_acceptance', realm: 'org:acme', required: false })).ok,
    ).toBe(true);
  });

  it('applies the prefix rule and the 400s', async () => {
    for (const realm of ['team:x', 'org:', '*', 'default']) {
      expect((await post(ctx.h, { realm, manager_key: key }, 'mt-org')).body).toEqual({
        ok: false,
        code: 403,
        message: 'realm outside managed prefix',
      });
    }
    expect((await post(ctx.h, { manager_key: key }, 'mt-org')).body.message).toBe(
      'realm is required',
    );
    expect((await post(ctx.h, { realm: 'org:b' }, 'mt-org')).body.message).toBe(
      'manager_key is required',
    );
    expect((await post(ctx.h, null, 'mt-org', '{nope')).body).toEqual({
      ok: false,
      code: 400,
      message: 'invalid JSON body',
    });
    const big = await post(
      ctx.h,
      null,
      'mt-org',
      JSON.stringify({ realm: 'org:big', manager_key: key, pad: 'x'.repeat(70_000) }),
    );
    expect(big).toEqual({
      status: 400,
      body: { ok: false, code: 400, message: 'invalid JSON body' },
    });
    expect(
      (await post(ctx.h, { realm: 'org:t', manager_key: key, ttl: 'soonish' }, 'mt-org')).body.code,
    ).toBe(400);
    expect(Object.keys(ctx.h.broker.auth.config.realms).filter((r) => r !== 'default')).toEqual([]);
  });

  it('an ephemeral_only token always creates ephemeral realms, capped at max_ttl', async () => {
    const now = Date.now();
    const forced = await post(
      ctx.h,
      { realm: 'eph:a', manager_key: key, ephemeral: false, ttl: '30d' },
      'mt-eph',
    );
    expect(forced.body.ephemeral).toBe(true);
    const left = (forced.body.expires_at as number) - now;
    expect(left).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(left).toBeLessThanOrEqual(7 * 86_400_000 + 5_000);
    const shorter = await post(ctx.h, { realm: 'eph:b', manager_key: key, ttl: '1h' }, 'mt-eph');
    expect((shorter.body.expires_at as number) - now).toBeLessThanOrEqual(3_600_000 + 5_000);
  });
});

describe('POST /api/realms without management tokens or API', () => {
  const ctx = useBroker(adminSettings({ http_api: { enabled: true } }));
  it('answers 404 not found, even with the admin bearer', async () => {
    expect(await post(ctx.h, { realm: 'org:a', manager_key: key }, ADMIN_TOKEN)).toEqual({
      status: 404,
      body: { ok: false, code: 404, message: 'not found' },
    });
  });
});

describe('POST /api/realms with the HTTP API off', () => {
  const ctx = useBroker(
    adminSettings({}, { management_tokens: [{ token: 'mt', realm_prefix: 'org:' }] }),
  );
  it('answers a bare 403', async () => {
    const res = await fetch(`${ctx.h.url}/api/realms`, {
      method: 'POST',
      headers: { authorization: 'Bearer mt' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('');
  });
});
