/**
 * Authorization requests across the nodes of a cluster (`spec/protocol-admin.md` §7, §15;
 * docs/cluster.md "Admin state in a cluster"): a request made on one node is visible to
 * `AUTHORIZATION_NEXT` on every node in `created_at` order, superseding applies across nodes,
 * a decision on another node reaches the requester's node (which pushes
 * `AUTHORIZATION_APPROVED/REJECTED`, once the token is in force there), a request is decided
 * once, and requests made while Redis is down stay usable and are shared when it is back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SignedAction } from '../../shared/admin-signature';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { ADMIN_TOKEN, authenticate, signedCall } from '../helpers/auth-clients';
import type { Harness, Socket } from '../helpers/broker-harness';
import { freshPrefix, startAuthNode } from '../helpers/cluster-auth-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { delay, waitFor, waitUntil } from '../helpers/wait';

const NEXT = SignedAction.AUTHORIZATION_NEXT;
const DECIDE = SignedAction.AUTHORIZATION_DECIDE;
const ALPHA_KEY = 'alpha-manager-key';
const AUTH = {
  tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
  realms: { alpha: { manager_key: ALPHA_KEY } },
};

let redis: RedisServer;
let nodes: Harness[] = [];
let a: Harness;
let b: Harness;
let c: Harness;

beforeEach(async () => {
  redis = await startRedisServer();
  const prefix = freshPrefix();
  nodes = [];
  for (const id of ['node-a', 'node-b', 'node-c']) {
    // Fail-open nonces (opt-in): managers still read requests while Redis is out.
    nodes.push(
      await startAuthNode(redis.url, prefix, id, {
        auth: AUTH,
        cluster: { nonce_fail_open: true },
      }),
    );
  }
  [a, b, c] = nodes as [Harness, Harness, Harness];
});
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  await redis.stop();
});

interface Reply {
  ok: boolean;
  request_id?: string;
  request?: Record<string, unknown> | null;
  code?: number;
  message?: string;
}

async function requestOn(
  h: Harness,
  over: Record<string, unknown> = {},
): Promise<{ id: string; socket: Socket }> {
  const socket = await h.connect();
  const ack = (await socket.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
    realm: 'alpha',
    role: 'consumer',
    client_id: 'agent-01',
    client_name: 'Agent 01',
    client_token: 'agent-01-secret-token',
    ...over,
  })) as Reply;
  expect(ack).toMatchObject({ ok: true, status: 'pending' });
  return { id: ack.request_id!, socket };
}

const next = (h: Harness, body: Record<string, unknown> = {}, secret = ADMIN_TOKEN) =>
  signedCall(h, NEXT, secret, body) as unknown as Promise<Reply>;
const decide = (h: Harness, body: Record<string, unknown>, secret = ADMIN_TOKEN) =>
  signedCall(h, DECIDE, secret, body) as unknown as Promise<Reply>;

describe('requests across nodes', () => {
  it('request on A, approved on B: the client on A is told and can log in at once', async () => {
    const { id, socket } = await requestOn(a);
    const found = await next(b);
    expect(found.request).toMatchObject({ request_id: id, status: 'pending', realm: 'alpha' });
    expect(JSON.stringify(found)).not.toContain('agent-01-secret-token');
    const pushed = waitFor(socket, ServerEvent.AUTHORIZATION_APPROVED);
    expect(await decide(b, { request_id: id, approved: true })).toMatchObject({
      ok: true,
      request: { request_id: id, status: 'approved', role: 'consumer' },
    });
    expect(await pushed).toEqual({ request_id: id, realm: 'alpha', role: 'consumer' });
    // The approval notice waits for the settings carrying the token: login works right away.
    const login = await a.connect();
    expect(await authenticate(login, { token: 'agent-01-secret-token' })).toEqual({
      event: 'AUTH_OK',
      realm: 'alpha',
      role: 'consumer',
    });
    // Decided everywhere: nothing pending left on any node.
    for (const n of nodes) expect((await next(n)).request).toBeNull();
  });

  it('a requester back on B with its request id (A gone) hears a decision made on C', async () => {
    const { id, socket } = await requestOn(a);
    socket.disconnect();
    await a.close();
    nodes = nodes.filter((n) => n !== a);
    // Pending, re-attached to B (issue 22 item 1): the decision on C is pushed there.
    const back = await b.connect();
    const resume = { client_token: 'agent-01-secret-token', request_id: id };
    expect(
      await back.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, resume),
    ).toEqual({ ok: true, request_id: id, status: 'pending' });
    const pushed = waitFor(back, ServerEvent.AUTHORIZATION_APPROVED);
    expect(await decide(c, { request_id: id, approved: true })).toMatchObject({ ok: true });
    expect(await pushed).toEqual({ request_id: id, realm: 'alpha', role: 'consumer' });
    // Decided: any node answers with the decision; another token learns nothing.
    const later = await c.connect();
    expect(
      await later.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, resume),
    ).toEqual({ ok: true, request_id: id, status: 'approved', realm: 'alpha', role: 'consumer' });
    expect(
      await later
        .timeout(5_000)
        .emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, { ...resume, client_token: 'other' }),
    ).toMatchObject({ ok: false, code: 404 });
  });

  it('a requester back on its own node hears a decision made on another node', async () => {
    const { id, socket } = await requestOn(a);
    socket.disconnect();
    const back = await a.connect();
    const resume = { client_token: 'agent-01-secret-token', request_id: id };
    expect(
      await back.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, resume),
    ).toEqual({ ok: true, request_id: id, status: 'pending' });
    const pushed = waitFor(back, ServerEvent.AUTHORIZATION_REJECTED);
    expect(await decide(b, { request_id: id, approved: false, reason: 'no' })).toMatchObject({
      ok: true,
    });
    expect(await pushed).toEqual({ request_id: id, reason: 'no' });
  });

  it('rejection on C reaches the requester on A; a realm manager key may decide it', async () => {
    const { id, socket } = await requestOn(a);
    expect((await next(c, { realm: 'alpha' }, ALPHA_KEY)).request).toMatchObject({
      request_id: id,
    });
    const pushed = waitFor(socket, ServerEvent.AUTHORIZATION_REJECTED);
    expect(
      await decide(c, { request_id: id, approved: false, reason: 'unknown agent' }, ALPHA_KEY),
    ).toMatchObject({
      ok: true,
      request: { status: 'rejected', decision_reason: 'unknown agent' },
    });
    expect(await pushed).toEqual({ request_id: id, reason: 'unknown agent' });
    for (const n of nodes) {
      expect(n.broker.auth.config.tokens.some((t) => t.token === 'agent-01-secret-token')).toBe(
        false,
      );
    }
    const login = await b.connect();
    expect(await authenticate(login, { token: 'agent-01-secret-token' })).toMatchObject({
      event: 'AUTH_FAIL',
    });
  });

  it('orders by created_at across nodes and supersedes across nodes', async () => {
    const first = await requestOn(b, { client_id: 'early', client_token: 'tok-early' });
    await delay(5);
    const older = await requestOn(a, { client_id: 'agent-01', client_token: 'tok-1' });
    await delay(5);
    const newer = await requestOn(c, { client_id: 'agent-01', client_token: 'tok-2' });
    expect((await next(a)).request).toMatchObject({ request_id: first.id });
    expect(await decide(a, { request_id: first.id, approved: false })).toMatchObject({ ok: true });
    // A's request of agent-01 was superseded by C's.
    expect((await next(b)).request).toMatchObject({ request_id: newer.id });
    expect(await decide(b, { request_id: older.id, approved: true })).toMatchObject({
      ok: false,
      code: 404,
    });
  });

  it('is decided once when two nodes decide at the same time', async () => {
    const { id } = await requestOn(a);
    const replies = await Promise.all([
      decide(b, { request_id: id, approved: true }),
      decide(c, { request_id: id, approved: false }),
    ]);
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(replies.filter((r) => !r.ok)).toMatchObject([{ code: 404 }]);
  });

  it('keeps requests made while Redis is down on their node, and shares them when it is back', async () => {
    await redis.kill();
    await waitUntil(
      () => nodes.every((n) => n.broker.getStats().cluster?.redis === 'down'),
      'redis down everywhere',
    );
    const { id } = await requestOn(a);
    expect((await next(a)).request).toMatchObject({ request_id: id });
    expect((await next(b)).request).toBeNull();
    await redis.restart();
    await waitUntil(
      () => nodes.every((n) => n.broker.getStats().cluster?.redis === 'up'),
      'redis up everywhere',
      15_000,
    );
    let seen: Reply = { ok: false };
    for (let i = 0; i < 50 && !seen.request; i++) {
      seen = await next(b);
      if (!seen.request) await delay(100);
    }
    expect(seen.request).toMatchObject({ request_id: id });
  });
});
