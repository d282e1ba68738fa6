/**
 * Sessions end with their credentials (issue 20 defect 2): a JWT session is ended within a second
 * after its `exp`; rotating the `jwt_secret`, a realm's `manager_key` or pre-shared `key`, or an
 * external validator's secret ends the sessions that secret admitted — and no other. The client
 * is told why (`AUTH_FAIL 401`) and its transport is closed without socket.io's DISCONNECT, so
 * stock clients reconnect and authenticate again; a revoked token still ends the client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedAction } from '../../../shared/admin-signature';
import { ServerEvent } from '../../../shared/protocol-events';
import {
  ADMIN_TOKEN,
  authenticate,
  hs256,
  loggedIn,
  signedCall,
  useAuthBroker,
} from '../../helpers/auth-clients';
import type { Socket } from '../../helpers/broker-harness';
import { expectNothing } from '../../helpers/wait';

const JWT_SECRET = 'session-expiry-jwt-secret-0123456789abcdefXYZ';
const NEW_JWT_SECRET = 'rotated-session-jwt-secret-9876543210fedcbaQRS';
const ALPHA_KEY = 'alpha-manager-key-for-session-tests';
const BETA_KEY = 'beta-manager-key-for-session-tests';

/** The AUTH_FAIL that announces the end, and how the session ended (disconnect reason, time). */
function ending(s: Socket): Promise<{ fail: unknown; reason: string; at: number }> {
  let fail: unknown = null;
  s.on(ServerEvent.AUTH_FAIL, (p: unknown) => {
    fail = p;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('session not ended within 8 s')), 8_000);
    s.once('disconnect', (reason: string) => {
      clearTimeout(timer);
      resolve({ fail, reason, at: Date.now() });
    });
  });
}

const nowS = () => Math.floor(Date.now() / 1000);

describe('a JWT session ends at its exp (socket.io)', () => {
  const ctx = useAuthBroker({
    jwt_secret: JWT_SECRET,
    tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
    realms: { alpha: { manager_key: ALPHA_KEY } },
  });

  it('ends a global-secret JWT session within a second after exp, telling the client', async () => {
    const exp = nowS() + 2;
    const s = await loggedIn(ctx.h, {
      token: await hs256(JWT_SECRET, { realm: 'r', role: 'both' }, exp),
    });
    const long = await loggedIn(ctx.h, {
      token: await hs256(JWT_SECRET, { realm: 'r', role: 'both' }),
    });
    const ended = await ending(s);
    expect(ended.at).toBeGreaterThanOrEqual(exp * 1000 - 50);
    expect(ended.at - exp * 1000).toBeLessThan(1_000);
    expect(ended.fail).toEqual({ code: 401, message: 'Authentication token expired' });
    // Closed at the transport (no socket.io DISCONNECT): a stock client reconnects.
    expect(ended.reason).toBe('transport close');
    expect(long.connected).toBe(true);
  });

  it('ends a realm-key JWT session at its exp; the expired token is then refused as expired', async () => {
    const exp = nowS() + 2;
    const token = await hs256(ALPHA_KEY, { realm: 'alpha', role: 'consumer' }, exp);
    const s = await loggedIn(ctx.h, { token });
    const ended = await ending(s);
    expect(ended.at - exp * 1000).toBeLessThan(1_000);
    const again = await ctx.h.connect();
    expect(await authenticate(again, { token })).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: 'Authentication token expired',
    });
  });
});

describe('rotating a secret ends the sessions it admitted, and only those (socket.io)', () => {
  const ctx = useAuthBroker({
    jwt_secret: JWT_SECRET,
    tokens: [
      { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
      { token: 'alpha-static', realm: 'alpha', role: 'consumer' },
    ],
    realms: {
      alpha: { manager_key: ALPHA_KEY, key: 'alpha-psk' },
      beta: { manager_key: BETA_KEY, key: 'beta-psk' },
    },
  });
  const command = (body: Record<string, unknown>) =>
    signedCall(ctx.h, SignedAction.AUTH_MANAGEMENT_COMMAND, ADMIN_TOKEN, body);

  async function sessions() {
    return {
      globalJwt: await loggedIn(ctx.h, {
        token: await hs256(JWT_SECRET, { realm: 'alpha', role: 'both' }),
      }),
      alphaJwt: await loggedIn(ctx.h, {
        token: await hs256(ALPHA_KEY, { realm: 'alpha', role: 'both' }),
      }),
      betaJwt: await loggedIn(ctx.h, {
        token: await hs256(BETA_KEY, { realm: 'beta', role: 'both' }),
      }),
      alphaPsk: await loggedIn(ctx.h, { realm: 'alpha', role: 'consumer', key: 'alpha-psk' }),
      betaPsk: await loggedIn(ctx.h, { realm: 'beta', role: 'consumer', key: 'beta-psk' }),
      staticToken: await loggedIn(ctx.h, { token: 'alpha-static' }),
    };
  }

  const stillUp = async (all: Record<string, Socket>, except: string[]) => {
    for (const [name, s] of Object.entries(all)) {
      if (!except.includes(name))
        expect({ name, connected: s.connected }).toEqual({ name, connected: true });
    }
  };

  it("set_realm_manager_key ends alpha's realm-key JWT sessions", async () => {
    const all = await sessions();
    const ended = ending(all.alphaJwt);
    expect(
      await command({
        command: 'set_realm_manager_key',
        realm: 'alpha',
        manager_key: 'alpha-rotated-key-0123',
      }),
    ).toMatchObject({ ok: true });
    const e = await ended;
    expect(e.fail).toEqual({ code: 401, message: 'Credentials changed; authenticate again' });
    expect(e.reason).toBe('transport close');
    await expectNothing(all.betaJwt, 'disconnect');
    await stillUp(all, ['alphaJwt']);
  });

  it("set_realm_key ends the sessions alpha's pre-shared key admitted", async () => {
    const all = await sessions();
    const ended = ending(all.alphaPsk);
    expect(
      await command({ command: 'set_realm_key', realm: 'alpha', key: 'alpha-psk-2' }),
    ).toMatchObject({ ok: true });
    expect((await ended).fail).toMatchObject({ code: 401 });
    await expectNothing(all.betaPsk, 'disconnect');
    await stillUp(all, ['alphaPsk']);
    // The new key admits.
    await loggedIn(ctx.h, { realm: 'alpha', role: 'consumer', key: 'alpha-psk-2' });
  });

  it('a new jwt_secret ends the sessions of JWTs it signed', async () => {
    const all = await sessions();
    const ended = ending(all.globalJwt);
    ctx.h.broker.auth.update((d) => {
      d.jwt_secret = NEW_JWT_SECRET;
    }, 'file');
    const e = await ended;
    expect(e.fail).toEqual({ code: 401, message: 'Credentials changed; authenticate again' });
    await expectNothing(all.alphaJwt, 'disconnect');
    await stillUp(all, ['globalJwt']);
  });

  it('an unrelated change ends nothing; a revoked token still ends its client for good', async () => {
    const all = await sessions();
    expect(await command({ command: 'add_realm', realm: 'gamma' })).toMatchObject({ ok: true });
    await expectNothing(all.alphaJwt, 'disconnect');
    await stillUp(all, []);
    const ended = ending(all.staticToken);
    expect(await command({ command: 'revoke_token', token: 'alpha-static' })).toMatchObject({
      ok: true,
    });
    const e = await ended;
    expect(e.fail).toEqual({ code: 401, message: 'Authentication token revoked' });
    expect(e.reason).toBe('io server disconnect');
  });
});

describe("rotating an external validator's secret ends its sessions", () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ realm: 'ext', role: 'consumer' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/validate`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const ctx = useAuthBroker({ tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }] });

  it('a new auth_secret ends validator-admitted sessions, not static-token ones', async () => {
    ctx.h.broker.auth.update((d) => {
      d.auth_url = url;
      d.auth_secret = 'validator-secret-one';
    }, 'file');
    const ext = await loggedIn(ctx.h, { token: 'opaque-token', realm: 'ext' });
    const admin = await loggedIn(ctx.h, { token: ADMIN_TOKEN });
    const ended = ending(ext);
    ctx.h.broker.auth.update((d) => {
      d.auth_secret = 'validator-secret-two';
    }, 'file');
    expect((await ended).fail).toEqual({
      code: 401,
      message: 'Credentials changed; authenticate again',
    });
    expect(admin.connected).toBe(true);
  });
});
