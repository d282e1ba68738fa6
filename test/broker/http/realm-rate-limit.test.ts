/**
 * `realms_per_hour_per_ip` on `POST /api/realms` (`spec/protocol-admin.md` §10.7 step 3, §11.3):
 * a bucket of n per hour per client IP, consumed before the body is read (rotations included),
 * refused with 429 and a `retry_after`, counted as a rate-limit breach.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpPath } from '../../../shared/http-api';
import { ADMIN_TOKEN, startAuthBroker } from '../../helpers/auth-clients';
import type { Harness } from '../../helpers/broker-harness';

const AUTH = {
  tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
  management_tokens: [{ token: 'mt-org', realm_prefix: 'org:' }],
};
const key = 'k'.repeat(32);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function post(realm: string, token = 'mt-org', forwardedFor?: string) {
  const res = await fetch(`${h!.url}/api/realms`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    body: JSON.stringify({ realm, manager_key: key }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function breaches(): Promise<string | undefined> {
  const res = await fetch(`${h!.url}${HttpPath.METRICS}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const text = await res.text();
  return text
    .split('\n')
    .find((l) => l.startsWith('tyo_mq_rate_limited_total{reason="realms_per_hour_per_ip"}'));
}

describe('realms_per_hour_per_ip (§10.7, §11.3)', () => {
  it('refuses past the bucket with 429 and retry_after; 401s and rotations count as §10.7 says', async () => {
    h = await startAuthBroker(AUTH, {
      http_api: { enabled: true },
      limits: { realms_per_hour_per_ip: 2 },
    });
    // A refused bearer is answered before the limit (step 2) and takes nothing from the bucket.
    for (let i = 0; i < 3; i++) expect((await post('org:x', 'wrong')).status).toBe(401);
    expect((await post('org:a')).body.created).toBe(true);
    // A rotation of an existing realm is consumed too.
    expect((await post('org:a')).body.created).toBe(false);
    const refused = await post('org:b');
    // Refill is 2/3600 per second: one token takes 1800 s.
    expect(refused).toEqual({
      status: 429,
      body: {
        ok: false,
        code: 429,
        message: 'realm creation rate limit reached',
        retry_after: 1800,
      },
    });
    expect(h.broker.auth.realm('org:b')).toBeUndefined();
    expect(await breaches()).toBe('tyo_mq_rate_limited_total{reason="realms_per_hour_per_ip"} 1');
    // Without trust_proxy a forged X-Forwarded-For does not open a fresh bucket.
    expect((await post('org:c', 'mt-org', '203.0.113.9')).status).toBe(429);
  });

  it('keys the bucket by the right-most untrusted X-Forwarded-For hop under trust_proxy', async () => {
    h = await startAuthBroker(AUTH, {
      http_api: { enabled: true },
      limits: { realms_per_hour_per_ip: 1, trust_proxy: true },
    });
    // The loopback "proxy" is trusted (true ⇒ loopback); what the client wrote left of the hop
    // the proxy appended is not.
    expect((await post('org:a', 'mt-org', '10.0.0.1, 203.0.113.1')).status).toBe(200);
    expect((await post('org:b', 'mt-org', '203.0.113.1')).status).toBe(429);
    expect((await post('org:b', 'mt-org', '203.0.113.2, 203.0.113.1')).status).toBe(429);
    expect((await post('org:c', 'mt-org', '203.0.113.2')).status).toBe(200);
  });

  it('is unlimited without the key', async () => {
    h = await startAuthBroker(AUTH, { http_api: { enabled: true } });
    for (let i = 0; i < 5; i++) expect((await post(`org:${i}`)).status).toBe(200);
  });
});
