/**
 * Authorization requests across a broker restart (issue 22 item 1; docs/management.md
 * "Requests across a restart"): a pending request is kept in the auth store (SQLite) or a
 * `MemoryRequestStore` handed to the next broker, with its expiry; after the restart a manager
 * still sees and decides it, and the requester, back on a new connection with its `request_id`
 * and `client_token`, learns the decision — or, still pending, hears it pushed once decided.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SignedAction } from '../../../shared/admin-signature';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import { MemoryRequestStore } from '../../../broker/auth/request-store';
import { ADMIN_TOKEN, authenticate, signedCall, startAuthBroker } from '../../helpers/auth-clients';
import type { BrokerOptions, Harness, Socket } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const AUTH = {
  tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
  realms: { fleet: { required: true } },
};
const CLIENT_TOKEN = 'agent-01-token-4b1d9e0c77aa';
const ASK = {
  realm: 'fleet',
  role: 'consumer',
  client_id: 'agent-01',
  client_name: 'Agent 01',
  client_token: CLIENT_TOKEN,
};

let tmp: TempDir;
let broker: Harness | null = null;

beforeEach(async () => {
  tmp = await makeTempDir();
});
afterEach(async () => {
  await broker?.close();
  broker = null;
  await tmp.remove();
});

type Reply = Record<string, unknown> & { ok: boolean };
const ask = (s: Socket, payload: unknown): Promise<Reply> =>
  s.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, payload) as Promise<Reply>;

async function start(options: BrokerOptions = {}, store = true): Promise<Harness> {
  broker = await startAuthBroker(AUTH, store ? { auth_store: join(tmp.path, 'auth.sqlite') } : {}, {
    dataDir: tmp.path,
    ...options,
  });
  return broker;
}
async function restart(options: BrokerOptions = {}, store = true): Promise<Harness> {
  await broker?.close();
  broker = null;
  return start(options, store);
}
const next = (h: Harness) => signedCall(h, SignedAction.AUTHORIZATION_NEXT, ADMIN_TOKEN, {});
const decide = (h: Harness, body: Record<string, unknown>) =>
  signedCall(h, SignedAction.AUTHORIZATION_DECIDE, ADMIN_TOKEN, body);

describe.each([
  ['the SQLite auth store', () => ({}), true],
  ['a MemoryRequestStore passed to both brokers', () => ({ requests: shared }), false],
] as const)('pending requests survive a restart with %s', (_name, options, sqlite) => {
  it('the manager decides it after the restart; the returning requester learns it', async () => {
    shared = new MemoryRequestStore();
    let h = await start(options(), sqlite);
    const requester = await h.connect();
    const made = await ask(requester, ASK);
    expect(made).toMatchObject({ ok: true, status: 'pending' });
    const id = made.request_id as string;

    h = await restart(options(), sqlite);
    const seen = (await next(h)).request as Record<string, unknown>;
    expect(seen).toMatchObject({ request_id: id, realm: 'fleet', client_id: 'agent-01' });
    expect(seen).not.toHaveProperty('client_token');
    expect(await decide(h, { request_id: id, approved: true, role: 'consumer' })).toMatchObject({
      ok: true,
    });

    // Back on a new connection: the reply says approved, and the push follows.
    const back = await h.connect();
    const pushed = new Promise((resolve) => back.once(ServerEvent.AUTHORIZATION_APPROVED, resolve));
    expect(await ask(back, { ...ASK, request_id: id })).toEqual({
      ok: true,
      request_id: id,
      status: 'approved',
      realm: 'fleet',
      role: 'consumer',
    });
    expect(await pushed).toEqual({ request_id: id, realm: 'fleet', role: 'consumer' });
    const login = await h.connect();
    expect(await authenticate(login, { token: CLIENT_TOKEN, realm: 'fleet' })).toMatchObject({
      event: 'AUTH_OK',
      role: 'consumer',
    });

    // The decision itself survives another restart.
    h = await restart(options(), sqlite);
    const again = await h.connect();
    expect(await ask(again, { ...ASK, request_id: id })).toMatchObject({ status: 'approved' });
  });
});
let shared = new MemoryRequestStore();

describe('a requester back while its request is pending', () => {
  it('is re-attached: the decision after the restart is pushed to the new connection', async () => {
    let h = await start();
    const made = await ask(await h.connect(), ASK);
    const id = made.request_id as string;
    h = await restart();
    const back = await h.connect();
    expect(await ask(back, { ...ASK, request_id: id })).toEqual({
      ok: true,
      request_id: id,
      status: 'pending',
    });
    const rejected = new Promise((resolve) =>
      back.once(ServerEvent.AUTHORIZATION_REJECTED, resolve),
    );
    expect(
      await decide(h, { request_id: id, approved: false, reason: 'unknown device' }),
    ).toMatchObject({ ok: true });
    expect(await rejected).toEqual({ request_id: id, reason: 'unknown device' });
    const later = await h.connect();
    expect(await ask(later, { ...ASK, request_id: id })).toEqual({
      ok: true,
      request_id: id,
      status: 'rejected',
      realm: 'fleet',
      reason: 'unknown device',
    });
  });

  it('an unknown id, another token or an expired request answers 404 and changes nothing', async () => {
    let h = await start();
    const made = await ask(await h.connect(), ASK);
    const id = made.request_id as string;
    const s = await h.connect();
    const failed = new Promise((resolve) =>
      s.once(ServerEvent.AUTHORIZATION_REQUEST_FAIL, resolve),
    );
    const wrong = await ask(s, { ...ASK, client_token: 'another-token-0000', request_id: id });
    expect(wrong).toMatchObject({ ok: false, code: 404 });
    expect(await failed).toMatchObject({ ok: false, code: 404 });
    expect(await ask(s, { ...ASK, request_id: 'authreq-nope' })).toMatchObject({ code: 404 });
    expect(await ask(s, { ...ASK, request_id: 42 })).toMatchObject({ code: 404 });
    expect(((await next(h)).request as Record<string, unknown>).request_id).toBe(id);

    // Expired while the broker was down: dropped from the store at start, not resumable.
    await broker?.close();
    broker = null;
    const db = new Database(join(tmp.path, 'auth.sqlite'));
    const row = db.prepare('SELECT record FROM authorization_requests').pluck().get() as string;
    db.prepare('UPDATE authorization_requests SET expires_at = ?, record = ?').run(
      Date.now() - 1,
      JSON.stringify({ ...JSON.parse(row), expiresAt: Date.now() - 1 }),
    );
    db.close();
    h = await start();
    expect(await ask(await h.connect(), { ...ASK, request_id: id })).toMatchObject({ code: 404 });
    expect((await next(h)).request).toBeNull();
  });
});
