/**
 * The authorization-request flow over the wire (`spec/protocol-admin.md` §7, §6.5, §19
 * "phase1-auth-realms" request flow and manager keys, "phase1-roles-authorization", "limits"
 * pending cap), and revocation ending live sessions (§3.5 note, §18 item 7).
 */
import { describe, expect, it } from 'vitest';
import { SignedAction } from '../../../shared/admin-signature';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import { signEnvelope } from '../../../broker/auth/proof';
import {
  ADMIN_TOKEN,
  authenticate,
  loggedIn,
  signedCall,
  startAuthBroker,
  useAuthBroker,
} from '../../helpers/auth-clients';
import { waitForServerDisconnect, type Harness, type Socket } from '../../helpers/broker-harness';
import { jsProducerPayload } from '../../helpers/stock-clients';
import { waitFor } from '../../helpers/wait';

const ALPHA_KEY = 'alpha-manager-key';
const BETA_KEY = 'beta-manager-key';

const AUTH = {
  tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
  realms: { alpha: { manager_key: ALPHA_KEY }, beta: { manager_key: BETA_KEY } },
};

interface RequestReply {
  ok: boolean;
  request_id?: string;
  status?: string;
  code?: number;
  message?: string;
}

/** Sends AUTHORIZATION_REQUEST with an ack and resolves with ack and event replies. */
async function requestToken(
  h: Harness,
  payload: unknown,
  socket?: Socket,
): Promise<{ ack: RequestReply; event: RequestReply; socket: Socket }> {
  const s = socket ?? (await h.connect());
  const event = new Promise<RequestReply>((resolve) => {
    s.once(ServerEvent.AUTHORIZATION_REQUEST_OK, resolve);
    s.once(ServerEvent.AUTHORIZATION_REQUEST_FAIL, resolve);
  });
  const ack = (await s
    .timeout(5_000)
    .emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, payload)) as RequestReply;
  return { ack, event: await event, socket: s };
}

const request = (over: Record<string, unknown> = {}) => ({
  realm: 'alpha',
  role: 'consumer',
  client_id: 'agent-01',
  client_name: 'Agent 01',
  client_token: 'agent-01-secret-token',
  challenge_response: { ticket: 'INC-123' },
  ...over,
});

describe('authorization requests (§7)', () => {
  const ctx = useAuthBroker(AUTH);

  it('runs request → NEXT → approve → login with the approved token', async () => {
    const { ack, event, socket } = await requestToken(ctx.h, request());
    expect(ack).toMatchObject({ ok: true, status: 'pending' });
    expect(ack.request_id).toMatch(/^authreq-[0-9a-z]+-[0-9a-f]{12}$/);
    expect(event).toEqual(ack);

    expect(await signedCall(ctx.h, SignedAction.AUTHORIZATION_NEXT, 'wrong-admin', {})).toEqual({
      ok: false,
      code: 401,
      message: 'Invalid manager proof',
    });
    const next = await signedCall(ctx.h, SignedAction.AUTHORIZATION_NEXT, ADMIN_TOKEN, {});
    const pub = (next as { request: Record<string, unknown> }).request;
    expect(pub).toMatchObject({
      request_id: ack.request_id,
      status: 'pending',
      realm: 'alpha',
      role: 'consumer',
      client_id: 'agent-01',
      client_name: 'Agent 01',
      challenge_response: { ticket: 'INC-123' },
      decided_at: null,
      decision_reason: null,
    });
    expect(pub.client_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(next)).not.toContain('agent-01-secret-token');

    const pushed = waitFor(socket, ServerEvent.AUTHORIZATION_APPROVED);
    const decided = await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, {
      request_id: ack.request_id,
      approved: true,
    });
    expect(decided).toMatchObject({ ok: true, request: { status: 'approved', role: 'consumer' } });
    expect(await pushed).toEqual({ request_id: ack.request_id, realm: 'alpha', role: 'consumer' });
    expect(ctx.h.broker.auth.config.tokens.at(-1)).toMatchObject({
      token: 'agent-01-secret-token',
      realm: 'alpha',
      role: 'consumer',
      client_id: 'agent-01',
      client_name: 'Agent 01',
    });

    const login = await ctx.h.connect();
    expect(await authenticate(login, { token: 'agent-01-secret-token' })).toEqual({
      event: 'AUTH_OK',
      realm: 'alpha',
      role: 'consumer',
    });
  });

  it('supersedes the pending request of the same realm + client_id', async () => {
    const first = await requestToken(ctx.h, request());
    const second = await requestToken(
      ctx.h,
      request({ client_name: 'Agent 01 v2', role: 'producer', client_token: 'another-token' }),
    );
    const next = await signedCall(ctx.h, SignedAction.AUTHORIZATION_NEXT, ADMIN_TOKEN, {});
    expect(next).toMatchObject({
      request: { request_id: second.ack.request_id, client_name: 'Agent 01 v2', role: 'producer' },
    });
    expect(
      await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, {
        request_id: first.ack.request_id,
        approved: true,
      }),
    ).toEqual({ ok: false, code: 404, message: 'Pending authorization request not found' });
  });

  it('approves with a decided role: a manager token may send PRODUCER', async () => {
    const { ack } = await requestToken(
      ctx.h,
      request({ role: 'manager', client_token: 'mgr-tok' }),
    );
    await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, {
      request_id: ack.request_id,
      approved: true,
      role: 'manager',
    });
    const s = await ctx.h.connect();
    expect(await authenticate(s, { token: 'mgr-tok' })).toEqual({
      event: 'AUTH_OK',
      realm: 'alpha',
      role: 'manager',
    });
    s.emit(ClientEvent.PRODUCER, jsProducerPayload('boss'));
    await waitUntilProducers(ctx.h, 'alpha', 1);
  });

  it('treats only approved === true as an approval; rejection pushes AUTHORIZATION_REJECTED', async () => {
    const { ack, socket } = await requestToken(ctx.h, request());
    expect(
      await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, {
        request_id: ack.request_id,
        approved: 'false',
      }),
    ).toMatchObject({ ok: false, code: 400 });
    const pushed = waitFor(socket, ServerEvent.AUTHORIZATION_REJECTED);
    const decided = await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, {
      request_id: ack.request_id,
      approved: false,
      reason: 'unknown agent',
    });
    expect(decided).toMatchObject({
      ok: true,
      request: { status: 'rejected', decision_reason: 'unknown agent' },
    });
    expect(await pushed).toEqual({ request_id: ack.request_id, reason: 'unknown agent' });
    expect(ctx.h.broker.auth.tokenByHash('x')).toBeUndefined();
    expect(ctx.h.broker.auth.config.tokens).toHaveLength(1);
  });

  it('validates fields: types, caps, empty token, realm * and role admin, existing tokens, JSON', async () => {
    const fields = 'Authorization request requires realm, client_id, client_token, and client_name';
    expect((await requestToken(ctx.h, { realm: 'alpha' })).ack).toEqual({
      ok: false,
      code: 400,
      message: fields,
    });
    expect((await requestToken(ctx.h, '{oops')).ack).toEqual({
      ok: false,
      code: 400,
      message: 'Invalid authorization request JSON',
    });
    expect(
      (await requestToken(ctx.h, request({ client_name: 'x'.repeat(257) }))).ack,
    ).toMatchObject({
      code: 400,
    });
    expect(
      (await requestToken(ctx.h, request({ challenge_response: { blob: 'y'.repeat(5000) } }))).ack,
    ).toMatchObject({ code: 400 });
    expect((await requestToken(ctx.h, request({ client_token: '' }))).ack).toMatchObject({
      code: 400,
    });
    expect((await requestToken(ctx.h, request({ realm: '*' }))).ack).toMatchObject({ code: 403 });
    expect((await requestToken(ctx.h, request({ role: 'admin' }))).ack).toMatchObject({
      code: 403,
    });
    expect((await requestToken(ctx.h, request({ client_token: ADMIN_TOKEN }))).ack).toMatchObject({
      code: 409,
    });
    // A JSON string is parsed (§1).
    const asString = await requestToken(ctx.h, JSON.stringify(request({ client_id: 'str' })));
    expect(asString.ack).toMatchObject({ ok: true });
  });

  it('answers through the named events when no ack is given', async () => {
    const s = await ctx.h.connect();
    const fail = waitFor(s, ServerEvent.AUTHORIZATION_FAIL);
    s.emit(ClientEvent.AUTHORIZATION_NEXT, { body: {} });
    expect(await fail).toEqual({ ok: false, code: 401, message: 'Missing manager proof' });
    const result = waitFor(s, ServerEvent.AUTHORIZATION_NEXT_RESULT);
    s.emit(
      ClientEvent.AUTHORIZATION_NEXT,
      signEnvelope(ADMIN_TOKEN, SignedAction.AUTHORIZATION_NEXT, {}),
    );
    expect(await result).toEqual({ ok: true, request: null });
  });

  it('scopes realm manager keys to their realm (§6.5)', async () => {
    const alpha = await requestToken(ctx.h, request({ client_token: 'alpha-tok' }));
    const beta = await requestToken(
      ctx.h,
      request({ realm: 'beta', client_id: 'b', client_token: 'beta-tok' }),
    );
    const call = (action: typeof SignedAction.AUTHORIZATION_NEXT, body: Record<string, unknown>) =>
      signedCall(ctx.h, action, ALPHA_KEY, body);
    expect(await call(SignedAction.AUTHORIZATION_NEXT, { realm: 'beta' })).toMatchObject({
      code: 401,
    });
    expect(await call(SignedAction.AUTHORIZATION_NEXT, {})).toMatchObject({ code: 401 });
    expect(
      await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ALPHA_KEY, {
        request_id: beta.ack.request_id,
        approved: true,
      }),
    ).toMatchObject({ ok: false, code: 401 });
    expect(await call(SignedAction.AUTHORIZATION_NEXT, { realm: 'alpha' })).toMatchObject({
      ok: true,
      request: { request_id: alpha.ack.request_id },
    });
    expect(
      await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ALPHA_KEY, {
        request_id: alpha.ack.request_id,
        approved: true,
      }),
    ).toMatchObject({ ok: true, request: { status: 'approved' } });
    const s = await ctx.h.connect();
    expect(await authenticate(s, { token: 'alpha-tok' })).toMatchObject({ realm: 'alpha' });
  });

  it('validates the decided role and refuses a realm key for an unknown request with 401', async () => {
    const { ack } = await requestToken(ctx.h, request({ client_token: 'role-tok' }));
    for (const role of ['admin', 'root']) {
      expect(
        await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, {
          request_id: ack.request_id,
          approved: true,
          role,
        }),
      ).toMatchObject({ ok: false, code: 400 });
    }
    expect(
      await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ALPHA_KEY, {
        request_id: 'authreq-unknown',
        approved: true,
      }),
    ).toEqual({ ok: false, code: 401, message: 'Invalid manager proof' });
    // Still pending and decidable after the refusals.
    expect(
      await signedCall(ctx.h, SignedAction.AUTHORIZATION_DECIDE, ALPHA_KEY, {
        request_id: ack.request_id,
        approved: true,
        role: 'producer',
      }),
    ).toMatchObject({ ok: true, request: { status: 'approved', role: 'producer' } });
  });

  it('refuses a replayed proof', async () => {
    const s = await ctx.h.connect();
    const env = signEnvelope(ADMIN_TOKEN, SignedAction.AUTHORIZATION_NEXT, {});
    expect(await s.emitWithAck(ClientEvent.AUTHORIZATION_NEXT, env)).toMatchObject({ ok: true });
    expect(await s.emitWithAck(ClientEvent.AUTHORIZATION_NEXT, env)).toEqual({
      ok: false,
      code: 401,
      message: 'Manager proof nonce was already used',
    });
  });
});

describe('pending cap and expiry (§7.5 note, limits)', () => {
  it('answers AUTHORIZATION_REQUEST_FAIL 429 over max_pending_authorization_requests', async () => {
    const h = await startAuthBroker(AUTH, { limits: { max_pending_authorization_requests: 2 } });
    try {
      await requestToken(h, request({ client_id: 'a', client_token: 't-a' }));
      await requestToken(h, request({ client_id: 'b', client_token: 't-b' }));
      const third = await requestToken(h, request({ client_id: 'c', client_token: 't-c' }));
      expect(third.event).toEqual({
        ok: false,
        code: 429,
        message: 'Too many pending authorization requests — try again later',
      });
    } finally {
      await h.close();
    }
  });

  it('drops pending requests after request_ttl', async () => {
    const h = await startAuthBroker({ ...AUTH, request_ttl: '200ms' });
    try {
      await requestToken(h, request());
      await new Promise((r) => setTimeout(r, 300));
      expect(await signedCall(h, SignedAction.AUTHORIZATION_NEXT, ADMIN_TOKEN, {})).toEqual({
        ok: true,
        request: null,
      });
    } finally {
      await h.close();
    }
  });
  it('reads request_ttl with the realm TTL grammar, days included (§9.1)', async () => {
    // 0.000003 d = 259.2 ms; read with a grammar without `d` it fell back to 24 h.
    const h = await startAuthBroker({ ...AUTH, request_ttl: '0.000003d' });
    try {
      await requestToken(h, request());
      await new Promise((r) => setTimeout(r, 400));
      expect(await signedCall(h, SignedAction.AUTHORIZATION_NEXT, ADMIN_TOKEN, {})).toEqual({
        ok: true,
        request: null,
      });
    } finally {
      await h.close();
    }
  });
});

describe('revocation ends live sessions (§3.5 note)', () => {
  const ctx = useAuthBroker({
    ...AUTH,
    tokens: [...AUTH.tokens, { token: 'gone-soon', realm: 'alpha', role: 'consumer' }],
    realms: { ...AUTH.realms, doomed: { required: false } },
  });

  it('disconnects a socket whose token is revoked, and sockets of a removed realm', async () => {
    const holder = await loggedIn(ctx.h, { token: 'gone-soon' });
    const doomed = await loggedIn(ctx.h, { realm: 'doomed', role: 'consumer' });
    const keeper = await loggedIn(ctx.h, { token: ADMIN_TOKEN });
    const gone = waitForServerDisconnect(holder, 1_000);
    ctx.h.broker.auth.update((d) => {
      d.tokens = d.tokens.filter((t) => t.token !== 'gone-soon');
    });
    await gone;
    const doomedGone = waitForServerDisconnect(doomed, 1_000);
    ctx.h.broker.auth.update((d) => {
      delete d.realms.doomed;
    });
    await doomedGone;
    expect(keeper.connected).toBe(true);
  });
});

async function waitUntilProducers(h: Harness, realm: string, online: number): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (Date.now() < deadline) {
    if (h.rawStats().realms[realm]?.producers.online === online) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`producers online in ${realm} never reached ${online}`);
}

describe('revocation and reloads', () => {
  it('keeps an admin session across a reload that drops the bootstrapped token (merged back)', async () => {
    const h = await startAuthBroker({}, {}, { env: { TYO_MQ_ADMIN_TOKEN: 'env-admin-token' } });
    try {
      const admin = await loggedIn(h, { token: 'env-admin-token' });
      h.broker.auth.replace({ enabled: true, auto_admin_token: false }, 'file');
      await new Promise((r) => setTimeout(r, 200));
      expect(admin.connected).toBe(true);
      expect(h.broker.auth.adminTokens()).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('disconnects sessions admitted while auth was off when auth is switched on', async () => {
    const h = await startAuthBroker({ enabled: false });
    try {
      const open = await h.connect();
      const gone = waitForServerDisconnect(open, 1_000);
      h.broker.auth.replace({ enabled: true, auto_admin_token: false }, 'file');
      await gone;
    } finally {
      await h.close();
    }
  });
});
