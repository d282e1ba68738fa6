/**
 * Issue 20 defect 1: a realm that requires auth admits a consumer only with a token, a JWT or
 * its pre-shared key — over socket.io (role-declared §2.3 step 7 and implicit §3.4 admission),
 * MQTT and for realms created by `POST /api/realms` — unless it opts into the reference's
 * token-less consumers with `allow_tokenless_consumers: true` (broker/auth/realm-policy.ts).
 * Each "refused" case below was admitted before the fix, and read the whole realm with `#`.
 */
import { describe, expect, it } from 'vitest';
import { parseAuthConfig } from '../../../broker/auth/auth-schema';
import {
  ClientEvent,
  ServerEvent,
  anyProducerKey,
  consumeEvent,
} from '../../../shared/protocol-events';
import { authenticate, hs256, producerIn, useAuthBroker } from '../../helpers/auth-clients';
import {
  produce,
  subscribe,
  sync,
  waitForServerDisconnect,
  type Harness,
  type Socket,
} from '../../helpers/broker-harness';
import { connackCode, mqttClient, nextMessage } from '../../helpers/mqtt-clients';
import { consumerPayload, jsSubscribePayload } from '../../helpers/stock-clients';
import { expectNothing, waitFor } from '../../helpers/wait';
import { ADMIN_TOKEN, manager } from '../admin/management-client';

const MANAGER_KEY = 'm'.repeat(64);
const JWT_KEY = 'j'.repeat(64);

const AUTH = {
  tokens: [
    { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
    { token: 'closed-producer', realm: 'closed', role: 'producer' },
    { token: 'reference-producer', realm: 'reference', role: 'producer' },
    { token: 'closed-consumer', realm: 'closed', role: 'consumer' },
  ],
  realms: {
    default: { required: false },
    // What the console's Create realm and POST /api/realms make: required, no key.
    closed: { required: true, manager_key: JWT_KEY },
    reference: { required: true, allow_tokenless_consumers: true },
    keyed: { required: true, key: 'right-key', require_key: false },
    keyedReference: { required: true, key: 'right-key', allow_tokenless_consumers: true },
  },
  management_tokens: [{ token: 'mt-org', realm_prefix: 'org:' }],
};

const ctx = useAuthBroker(AUTH, {
  http_api: { enabled: true },
  mqtt: { enabled: true, port: 0 },
});

const refusedIn = (realm: string) => ({
  event: 'AUTH_FAIL',
  code: 401,
  message: `Realm '${realm}' requires a token or a valid pre-shared key for consumers`,
});

const auth = async (payload: unknown) => authenticate(await ctx.h.connect(), payload);

/** A socket of realm `realm` subscribed to everything (`TYO-MQ-ALL`, `#`), as the review did. */
async function readEverything(s: Socket, realm: string) {
  s.emit(ClientEvent.CONSUMER, consumerPayload('reader'));
  await subscribe(s, 'reader', 'TYO-MQ-ALL', '#', { mode: 'topic' });
  void realm;
}

async function producer(h: Harness, token: string) {
  return producerIn(h, { token }, 'fleet');
}

describe('socket.io: role-declared consumers (§2.3 step 7)', () => {
  it('refuses consumer and both without a token in a required realm without a key', async () => {
    expect(await auth({ realm: 'closed', role: 'consumer' })).toEqual(refusedIn('closed'));
    expect(await auth({ realm: 'closed', role: 'both' })).toEqual(refusedIn('closed'));
    expect(await auth({ realm: 'closed', key: null })).toEqual(refusedIn('closed'));
    // Unconfigured realms require auth (§3.5), so they are closed to token-less consumers too.
    expect(await auth({ realm: 'nowhere', role: 'consumer' })).toEqual(refusedIn('nowhere'));
  });

  it('admits them with the opt-in, exactly as the reference does', async () => {
    expect(await auth({ realm: 'reference', role: 'consumer' })).toEqual({
      event: 'AUTH_OK',
      realm: 'reference',
      role: 'consumer',
    });
    // Producers still need acceptance there.
    expect(await auth({ realm: 'reference', role: 'both' })).toMatchObject({ code: 403 });
  });

  it('still admits a token, a realm JWT and the key', async () => {
    expect(await auth({ token: 'closed-consumer' })).toMatchObject({ event: 'AUTH_OK' });
    const jwt = await hs256(JWT_KEY, { realm: 'closed', role: 'consumer' });
    expect(await auth({ token: jwt, realm: 'closed' })).toMatchObject({
      event: 'AUTH_OK',
      realm: 'closed',
    });
    expect(await auth({ realm: 'keyed', role: 'consumer', key: 'right-key' })).toMatchObject({
      event: 'AUTH_OK',
      role: 'consumer',
    });
    // `require_key: false` waives the key only together with the opt-in.
    expect(await auth({ realm: 'keyed', role: 'consumer' })).toEqual(refusedIn('keyed'));
    expect(await auth({ realm: 'keyed', role: 'consumer', key: 'wrong' })).toEqual(
      refusedIn('keyed'),
    );
    // With the opt-in, a configured key is still required unless waived (the reference's rule).
    expect(await auth({ realm: 'keyedReference', role: 'consumer' })).toMatchObject({
      code: 401,
      message: "Realm 'keyedReference' requires a valid pre-shared key",
    });
  });

  it('a refused consumer reads nothing of the realm; an opted-in realm is readable by anyone', async () => {
    const p = await producer(ctx.h, 'closed-producer');
    const s = await ctx.h.connect();
    await authenticate(s, { realm: 'closed', role: 'consumer' });
    const refused = waitFor(s, ServerEvent.AUTH_FAIL);
    await readEverything(s, 'closed');
    expect(await refused).toMatchObject({ code: 401 });
    produce(p, 'fleet', 'orders/1', 'secret');
    await expectNothing(s, consumeEvent(anyProducerKey('#')));

    const rp = await producer(ctx.h, 'reference-producer');
    const r = await ctx.h.connect();
    expect(await authenticate(r, { realm: 'reference', role: 'consumer' })).toMatchObject({
      event: 'AUTH_OK',
    });
    await readEverything(r, 'reference');
    const got = waitFor(r, consumeEvent(anyProducerKey('#')));
    produce(rp, 'fleet', 'orders/1', 'public');
    expect(await got).toBeDefined();
  });
});

describe('socket.io: implicit consumers (§3.4)', () => {
  it('refuses CONSUMER and a `#` SUBSCRIBE without AUTHENTICATION in a required realm', async () => {
    const p = await producer(ctx.h, 'closed-producer');
    const s = await ctx.h.connect();
    // Remembers realm "closed" (§2.3 step 4), then tries the implicit path.
    expect(await authenticate(s, { realm: 'closed' })).toMatchObject({ code: 401 });
    const failures: unknown[] = [];
    s.on(ServerEvent.AUTH_FAIL, (f: unknown) => failures.push(f));
    s.emit(ClientEvent.CONSUMER, consumerPayload('reader'));
    s.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('reader', 'TYO-MQ-ALL', '#', { mode: 'topic' }),
    );
    await sync(s);
    expect(failures.slice(0, 2)).toEqual([
      { code: 401, message: 'Authentication required before CONSUMER' },
      { code: 401, message: 'Authentication required before SUBSCRIBE' },
    ]);
    produce(p, 'fleet', 'orders/1', 'secret');
    await expectNothing(s, consumeEvent(anyProducerKey('#')));
    expect(ctx.h.rawStats().realms.closed?.consumers.total ?? 0).toBe(0);
  });

  it('admits them implicitly with the opt-in', async () => {
    const p = await producer(ctx.h, 'reference-producer');
    const s = await ctx.h.connect();
    expect(await authenticate(s, { realm: 'reference' })).toMatchObject({ code: 401 });
    await readEverything(s, 'reference');
    const got = waitFor(s, consumeEvent(anyProducerKey('#')));
    produce(p, 'fleet', 'orders/2', 'public');
    expect(await got).toBeDefined();
  });
});

describe('MQTT', () => {
  it('refuses a client without a password in a required realm (CONNACK 5)', async () => {
    expect(await connackCode(ctx.h, { protocolVersion: 4, username: 'closed' })).toBe(5);
    expect(await connackCode(ctx.h, { protocolVersion: 4, username: 'keyed' })).toBe(5);
  });

  it('admits one as a consumer with the opt-in: it reads `#` but may not publish', async () => {
    const m = await mqttClient(ctx.h, { username: 'reference' });
    const granted = await m.subscribeAsync('#', { qos: 0 });
    expect(granted[0]?.qos).toBe(0);
    const got = nextMessage(m);
    const p = await producer(ctx.h, 'reference-producer');
    produce(p, 'fleet', 'orders/3', 'public');
    expect((await got).topic).toBe('orders/3');
    const closed = new Promise<void>((resolve) => m.once('close', () => resolve()));
    m.publish('x/y', 'refused', { qos: 1 });
    await closed;
  });

  it('still admits the realm key and a token', async () => {
    expect(await connackCode(ctx.h, { username: 'keyed', password: 'right-key' })).toBe(0);
    expect(await connackCode(ctx.h, { username: 'closed', password: 'closed-consumer' })).toBe(0);
  });
});

async function post(h: Harness, body: unknown) {
  const res = await fetch(`${h.url}/api/realms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer mt-org' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('POST /api/realms', () => {
  it('creates a realm that refuses token-less consumers; the opt-in in the body admits them', async () => {
    const created = await post(ctx.h, { realm: 'org:acme', manager_key: MANAGER_KEY });
    expect(created).toMatchObject({ status: 200, body: { ok: true, created: true } });
    expect(await auth({ realm: 'org:acme', role: 'consumer' })).toEqual(refusedIn('org:acme'));
    expect(await connackCode(ctx.h, { protocolVersion: 4, username: 'org:acme' })).toBe(5);

    const open = await post(ctx.h, {
      realm: 'org:public',
      manager_key: MANAGER_KEY,
      allow_tokenless_consumers: true,
    });
    expect(open).toMatchObject({ status: 200, body: { created: true } });
    expect(ctx.h.broker.auth.realm('org:public')).toMatchObject({
      required: true,
      allow_tokenless_consumers: true,
    });
    expect(await auth({ realm: 'org:public', role: 'consumer' })).toMatchObject({
      event: 'AUTH_OK',
    });
    // A re-post may withdraw it; a non-boolean is refused and changes nothing.
    expect(
      await post(ctx.h, {
        realm: 'org:public',
        manager_key: MANAGER_KEY,
        allowTokenlessConsumers: false,
      }),
    ).toMatchObject({ status: 200, body: { created: false } });
    expect(await auth({ realm: 'org:public', role: 'consumer' })).toEqual(refusedIn('org:public'));
    expect(
      await post(ctx.h, {
        realm: 'org:other',
        manager_key: MANAGER_KEY,
        allow_tokenless_consumers: 'yes',
      }),
    ).toEqual({
      status: 400,
      body: { ok: false, code: 400, message: 'allow_tokenless_consumers must be true or false' },
    });
    expect(ctx.h.broker.auth.realm('org:other')).toBeUndefined();
  });
});

describe('management commands', () => {
  it('add_realm, set_realm_auth and set_realm_tokenless_consumers set the opt-in; get shows it', async () => {
    const m = await manager(ctx.h);
    const added = await m.run({
      command: 'add_realm',
      realm: 'made',
      allow_tokenless_consumers: true,
    });
    expect(added.settings.realms.made).toEqual({ required: true, allow_tokenless_consumers: true });
    expect(await auth({ realm: 'made', role: 'consumer' })).toMatchObject({ event: 'AUTH_OK' });

    const off = await m.run({
      command: 'set_realm_tokenless_consumers',
      realm: 'made',
      allow: false,
    });
    expect(off.settings.realms.made).toEqual({ required: true });
    expect(await auth({ realm: 'made', role: 'consumer' })).toEqual(refusedIn('made'));

    const on = await m.run({
      command: 'set_realm_auth',
      realm: 'made',
      required: true,
      allow_tokenless_consumers: true,
    });
    expect(on.settings.realms.made.allow_tokenless_consumers).toBe(true);

    expect(
      await m.run({ command: 'set_realm_tokenless_consumers', realm: 'made', allow: 1 }),
    ).toMatchObject({ ok: false, code: 400 });
    expect(await m.run({ command: 'set_realm_tokenless_consumers', realm: 'made' })).toMatchObject({
      ok: false,
      code: 400,
    });
    expect(
      await m.run({
        command: 'set_realm_tokenless_consumers',
        realm: '*',
        allow_tokenless_consumers: true,
      }),
    ).toMatchObject({ ok: false, code: 400 });
    m.socket.disconnect();
  });

  it("a realm's manager key may set its own realm's opt-in, not another's", async () => {
    const m = await manager(ctx.h, JWT_KEY);
    const own = await m.run({
      command: 'set_realm_tokenless_consumers',
      realm: 'closed',
      allow_tokenless_consumers: true,
    });
    expect(own).toMatchObject({ ok: true, realm: 'closed' });
    expect(own.settings.realms.closed.allow_tokenless_consumers).toBe(true);
    expect(
      await m.run({
        command: 'set_realm_tokenless_consumers',
        realm: 'keyed',
        allow_tokenless_consumers: true,
      }),
    ).toMatchObject({ ok: false, code: 401 });
    m.socket.disconnect();
  });
});

describe('withdrawing the opt-in', () => {
  it('ends the token-less sessions it admitted (socket.io and MQTT), not the credentialed ones', async () => {
    const declared = await ctx.h.connect();
    expect(await authenticate(declared, { realm: 'reference', role: 'consumer' })).toMatchObject({
      event: 'AUTH_OK',
    });
    const implicit = await ctx.h.connect();
    await authenticate(implicit, { realm: 'reference' });
    await readEverything(implicit, 'reference');
    expect(ctx.h.rawStats().realms.reference?.consumers.online).toBe(1);
    const keyed = await ctx.h.connect();
    expect(
      await authenticate(keyed, { realm: 'keyedReference', role: 'consumer', key: 'right-key' }),
    ).toMatchObject({ event: 'AUTH_OK' });
    const m = await mqttClient(ctx.h, { username: 'reference' });
    const gone = [declared, implicit].map((s) => waitForServerDisconnect(s, 2_000));
    const mqttGone = new Promise<void>((resolve) => m.once('close', () => resolve()));
    ctx.h.broker.auth.update((draft) => {
      delete draft.realms.reference!.allow_tokenless_consumers;
      delete draft.realms.keyedReference!.allow_tokenless_consumers;
    });
    await Promise.all([...gone, mqttGone]);
    await sync(keyed);
    expect(keyed.connected).toBe(true);
  });
});

describe('settings schema', () => {
  it('accepts a boolean (and the camelCase alias), refuses anything else', () => {
    const ok = parseAuthConfig({ realms: { a: { allowTokenlessConsumers: true } } });
    expect(ok.success && ok.data.realms.a).toEqual({ allow_tokenless_consumers: true });
    expect(parseAuthConfig({ realms: { a: { allow_tokenless_consumers: 'yes' } } }).success).toBe(
      false,
    );
  });
});
