/**
 * External validators over real HTTP (`spec/protocol-admin.md` §4.4, §18 item 4, §19
 * "phase1-auth-realms" validator items): request shape, realm and prefix scopes, no fall-back,
 * no global secret to scoped validators, refusals, no redirects, response cap.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VALIDATOR_TIMEOUT_MS } from '../../../broker/auth/external-validator';
import { VALIDATIONS_PER_IP } from '../../../broker/auth/token-validator';
import { authenticate, startAuthBroker } from '../../helpers/auth-clients';
import type { BrokerOptions, Harness } from '../../helpers/broker-harness';

interface Call {
  path: string;
  secret: string | undefined;
  body: unknown;
}

let server: Server;
let base = '';
const calls: Call[] = [];
/** How each path answers: status and body text. */
let answer: (
  path: string,
  body: { token: string; realm?: string },
) => [number, string, Record<string, string>?];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { token: string };
      const secret = req.headers['x-mq-auth-secret'];
      calls.push({
        path: req.url ?? '',
        secret: typeof secret === 'string' ? secret : undefined,
        body,
      });
      const [status, text, headers] = answer(req.url ?? '', body);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  calls.length = 0;
  answer = (_path, body) => [
    200,
    JSON.stringify({ realm: body.realm ?? 'somewhere', role: 'consumer' }),
  ];
});

async function withBroker(
  auth: Record<string, unknown>,
  fn: (h: Harness) => Promise<void>,
  options: BrokerOptions = {},
) {
  const h = await startAuthBroker(auth, {}, options);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

const login = async (h: Harness, payload: unknown) => authenticate(await h.connect(), payload);

describe('global validator', () => {
  it('is not called for static tokens; unknown tokens go to it with the secret and {token, realm}', async () => {
    await withBroker(
      {
        auth_url: `${base}/global?x=1`,
        auth_secret: 'global-secret',
        tokens: [{ token: 'static', realm: 'r1', role: 'producer' }],
      },
      async (h) => {
        expect(await login(h, { token: 'static' })).toMatchObject({
          event: 'AUTH_OK',
          realm: 'r1',
        });
        expect(calls).toHaveLength(0);
        expect(await login(h, { token: 'external-tok', realm: 'org:acme' })).toEqual({
          event: 'AUTH_OK',
          realm: 'org:acme',
          role: 'consumer',
        });
        expect(calls).toEqual([
          {
            path: '/global?x=1',
            secret: 'global-secret',
            body: { token: 'external-tok', realm: 'org:acme' },
          },
        ]);
      },
    );
  });

  it('refuses ok:false, valid:false, non-2xx, redirects, unknown roles and realm *', async () => {
    await withBroker({ auth_url: `${base}/global` }, async (h) => {
      const cases: [number, string, Record<string, string>?][] = [
        [200, JSON.stringify({ ok: false, realm: 'r', role: 'both' })],
        [200, JSON.stringify({ valid: false, realm: 'r', role: 'both' })],
        [403, JSON.stringify({ realm: 'r', role: 'both' })],
        [302, JSON.stringify({ realm: 'r', role: 'both' }), { location: `${base}/elsewhere` }],
        [200, JSON.stringify({ realm: 'r', role: 'root' })],
        [200, JSON.stringify({ realm: '*', role: 'admin' })],
        [200, JSON.stringify({ realm: 'r' })],
      ];
      for (const c of cases) {
        answer = () => c;
        expect(await login(h, { token: 't' })).toEqual({
          event: 'AUTH_FAIL',
          code: 401,
          message: 'Invalid authentication token',
        });
      }
      expect(calls.some((c) => c.path === '/elsewhere')).toBe(false);
    });
  });

  it('answers "Authentication failed" to non-JSON, oversized and unreachable validators', async () => {
    await withBroker({ auth_url: `${base}/global` }, async (h) => {
      answer = () => [200, 'not json'];
      expect(await login(h, { token: 't' })).toEqual({
        event: 'AUTH_FAIL',
        code: 401,
        message: 'Authentication failed',
      });
      answer = () => [200, JSON.stringify({ realm: 'r', role: 'both', pad: 'x'.repeat(70_000) })];
      expect(await login(h, { token: 't' })).toMatchObject({ message: 'Authentication failed' });
    });
    await withBroker({ auth_url: 'http://127.0.0.1:1/unreachable' }, async (h) => {
      expect(await login(h, { token: 't' })).toMatchObject({ message: 'Authentication failed' });
    });
  });
});

describe('validator hardening (§4.4 note)', () => {
  it(`spends a budget of ${VALIDATIONS_PER_IP} outbound validations per client IP and window`, async () => {
    await withBroker({ auth_url: `${base}/global` }, async (h) => {
      answer = () => [200, JSON.stringify({ ok: false })];
      for (let i = 0; i < VALIDATIONS_PER_IP; i++) await login(h, { token: `t${i}` });
      expect(calls).toHaveLength(VALIDATIONS_PER_IP);
      expect(await login(h, { token: 'one-more' })).toMatchObject({
        message: 'Authentication failed',
      });
      expect(calls).toHaveLength(VALIDATIONS_PER_IP);
    });
  });

  it('gives up on a validator that does not answer within its timeout (5 s by default)', async () => {
    // The spec's bound (§4.4); the broker under test waits 300 ms of it (issue 26: 5 s before).
    expect(VALIDATOR_TIMEOUT_MS).toBe(5_000);
    const timeoutMs = 300;
    const hanging = createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const port = (hanging.address() as AddressInfo).port;
    try {
      await withBroker(
        { auth_url: `http://127.0.0.1:${port}/` },
        async (h) => {
          const s = await h.connect();
          expect(await authenticate(s, { token: 't' }, timeoutMs + 3_000)).toEqual({
            event: 'AUTH_FAIL',
            code: 401,
            message: 'Authentication failed',
          });
        },
        { validatorTimeoutMs: timeoutMs },
      );
    } finally {
      hanging.closeAllConnections();
      await new Promise<void>((r) => hanging.close(() => r()));
    }
  }, 15_000);
});

describe('scoped validators (§4.4 resolution)', () => {
  const auth = () => ({
    auth_url: `${base}/global`,
    auth_secret: 'global-secret',
    realms: {
      alpha: { auth_url: `${base}/alpha`, auth_secret: 'alpha-secret' },
      nosecret: { auth_url: `${base}/nosecret` },
    },
    external_validators: [
      { realm_prefix: 'org:', auth_url: `${base}/org`, auth_secret: 'org-secret' },
      { realm_prefix: 'org:big:', auth_url: `${base}/orgbig` },
    ],
  });

  it('uses a realm-scoped validator with its own secret only for its realm', async () => {
    await withBroker(auth(), async (h) => {
      expect(await login(h, { token: 't', realm: 'alpha' })).toMatchObject({ realm: 'alpha' });
      expect(calls).toEqual([
        { path: '/alpha', secret: 'alpha-secret', body: { token: 't', realm: 'alpha' } },
      ]);
      // A realm-scoped answer for another realm is discarded.
      answer = () => [200, JSON.stringify({ realm: 'beta', role: 'both' })];
      expect(await login(h, { token: 't', realm: 'alpha' })).toMatchObject({ code: 401 });
      expect(calls.filter((c) => c.path === '/global')).toHaveLength(0);
    });
  });

  it('never sends the global secret to a scoped validator without one', async () => {
    await withBroker(auth(), async (h) => {
      await login(h, { token: 't', realm: 'nosecret' });
      await login(h, { token: 't', realm: 'org:big:x' });
      expect(calls.map((c) => [c.path, c.secret])).toEqual([
        ['/nosecret', undefined],
        ['/orgbig', undefined],
      ]);
    });
  });

  it('picks the longest prefix, never the global one, and refuses answers outside the prefix', async () => {
    await withBroker(auth(), async (h) => {
      expect(await login(h, { token: 't', realm: 'org:acme' })).toMatchObject({
        event: 'AUTH_OK',
        realm: 'org:acme',
      });
      expect(calls.map((c) => [c.path, c.secret])).toEqual([['/org', 'org-secret']]);
      answer = () => [200, JSON.stringify({ realm: 'other', role: 'both' })];
      expect(await login(h, { token: 't', realm: 'org:acme' })).toMatchObject({ code: 401 });
      answer = (_p, b) => [200, JSON.stringify({ realm: b.realm, role: 'both' })];
      expect(await login(h, { token: 't', realm: 'plain' })).toMatchObject({ realm: 'plain' });
      expect(calls.at(-1)).toMatchObject({ path: '/global', secret: 'global-secret' });
    });
  });
});
