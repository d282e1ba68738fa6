/**
 * Embedding API (issue 14, docs/embedding.md): the `authenticate` hook decides for socket.io
 * and MQTT clients alike — with auth off and after Switchboard's own token check — refuses with
 * `AUTH_FAIL 401` / CONNACK 5 (or the error's `returnCode`), and a throwing or rejecting hook is
 * a clean refusal: no crash, reported as `clientError`, other clients keep being served.
 */
import { io } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerClient, BrokerHooks, ClientCredentials } from '../../../broker/index';
import { ClientEvent, ServerEvent, consumeEvent } from '../../../shared/protocol-events';
import { authenticate, startAuthBroker } from '../../helpers/auth-clients';
import { produce, startBroker, subscribe, sync, type Harness } from '../../helpers/broker-harness';
import { connackCode, mqttClient } from '../../helpers/mqtt-clients';
import { delay, expectNothing, waitFor, waitUntil } from '../../helpers/wait';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function start(hooks: BrokerHooks, settings: Record<string, unknown> = {}) {
  h = await startBroker({ mqtt: { enabled: true, port: 0 }, ...settings }, { hooks });
  return h;
}

describe('authenticate with auth off', () => {
  it('admits a socket.io AUTHENTICATION the hook accepts and refuses the others with 401', async () => {
    const seen: ClientCredentials[] = [];
    const harness = await start({
      authenticate: async (_client, credentials) => {
        seen.push(credentials);
        await delay(20);
        return credentials.token === 'letmein';
      },
    });
    const good = await harness.connect();
    expect(await authenticate(good, { token: 'letmein' })).toEqual({
      event: 'AUTH_OK',
      realm: 'default',
      role: 'both',
    });
    const bad = await harness.connect();
    expect(await authenticate(bad, { token: 'wrong' })).toEqual({
      event: 'AUTH_FAIL',
      code: 401,
      message: 'Authentication refused',
    });
    expect(seen.map((c) => c.token)).toEqual(['letmein', 'wrong']);
  });

  it('asks the hook at the first event of a client that sends no AUTHENTICATION', async () => {
    const clients: BrokerClient[] = [];
    const harness = await start({
      authenticate: (client, credentials) => {
        clients.push(client);
        return credentials.handshake?.ticket === 'ok';
      },
    });
    // Refused: the PRODUCE gets AUTH_FAIL 401 and its confirm callback the same refusal.
    const bad = await harness.connect();
    const refused = waitFor(bad, ServerEvent.AUTH_FAIL);
    const reply = await bad.emitWithAck(ClientEvent.PRODUCE, { event: 'x', message: 1 });
    expect(reply).toEqual({ ok: false, code: 401, message: 'Authentication refused' });
    expect(await refused).toEqual({ code: 401, message: 'Authentication refused' });
    expect(clients).toHaveLength(1);
    expect(clients[0]).toMatchObject({ protocol: 'socket.io', realm: 'default', role: 'both' });
    // Accepted: the socket.io handshake `auth` carries the credentials.
    const good = io(harness.url, {
      forceNew: true,
      transports: ['websocket'],
      auth: { ticket: 'ok' },
    });
    harness.onClose(() => void good.disconnect());
    const pong = await good.timeout(5_000).emitWithAck(ClientEvent.PING, {});
    expect(JSON.parse(pong as string)).toMatchObject({ pong: 'PONG' });
    expect(clients).toHaveLength(2);
  });

  it('keeps the order of events sent while an async hook decides', async () => {
    const harness = await start({
      authenticate: async () => {
        await delay(100);
        return true;
      },
    });
    const c = await harness.connect();
    c.emit(ClientEvent.CONSUMER, { name: 'c1', id: 'c1', consumer_id: 'c1' });
    c.emit(ClientEvent.SUBSCRIBE, { event: 'e', producer: 'p1', consumer: 'c1' });
    await sync(c);
    const got: unknown[] = [];
    c.on(consumeEvent('p1-e'), (envelope: { message: unknown }) => got.push(envelope.message));
    // Sent at once, before the hook has admitted the producer: queued, then replayed in order.
    const p = await harness.connect();
    p.emit(ClientEvent.PRODUCER, { name: 'p1' });
    for (let i = 1; i <= 5; i++) produce(p, 'p1', 'e', i);
    await waitUntil(() => got.length === 5, 'five deliveries');
    expect(got).toEqual([1, 2, 3, 4, 5]);
  });

  it('refuses MQTT clients with CONNACK 5, or the thrown returnCode', async () => {
    const harness = await start({
      authenticate: (client, credentials) => {
        if (credentials.username === 'banned') {
          throw Object.assign(new Error('banned user'), { returnCode: 4 });
        }
        return client.protocol === 'mqtt' && credentials.token === 'pw';
      },
    });
    expect(await connackCode(harness, { username: 'u', password: 'pw' })).toBe(0);
    expect(await connackCode(harness, { username: 'u', password: 'nope' })).toBe(5);
    expect(await connackCode(harness, { username: 'banned', password: 'pw' })).toBe(4);
  });

  it('treats a throwing or rejecting hook as a clean refusal, reported as clientError', async () => {
    let calls = 0;
    const harness = await start({
      authenticate: async (_client, credentials) => {
        calls++;
        if (credentials.token === 'boom') throw new TypeError('hook bug');
        if (credentials.username === 'boom') return Promise.reject(new Error('async hook bug'));
        return true;
      },
    });
    const errors: string[] = [];
    harness.broker.on('clientError', (client, err) =>
      errors.push(`${client.protocol}: ${err.message}`),
    );
    const s = await harness.connect();
    expect(await authenticate(s, { token: 'boom' })).toMatchObject({
      event: 'AUTH_FAIL',
      code: 401,
    });
    expect(await connackCode(harness, { username: 'boom', password: 'x' })).toBe(5);
    expect(errors).toContain('socket.io: hook bug');
    expect(errors).toContain('mqtt: async hook bug');
    // Still serving: an accepted client of each protocol works.
    const ok = await harness.connect();
    expect(await authenticate(ok, { token: 'fine' })).toMatchObject({ event: 'AUTH_OK' });
    const m = await mqttClient(harness, { username: 'fine', password: 'x' });
    expect(m.connected).toBe(true);
    expect(calls).toBe(4);
  });

  it('is assignable as a property after createBroker (aedes style)', async () => {
    const harness = await start({});
    harness.broker.authenticate = (client) => client.protocol !== 'mqtt';
    expect(await connackCode(harness, {})).toBe(5);
    harness.broker.authenticate = undefined;
    expect(await connackCode(harness, {})).toBe(0);
  });
});

describe('authenticate after Switchboard auth', () => {
  it('sees the realm and role the token granted, and can still refuse', async () => {
    const seen: string[] = [];
    const harness = await startAuthBroker(
      {
        realms: { alpha: {} },
        tokens: [
          { token: 'alpha-both', realm: 'alpha', role: 'both' },
          { token: 'alpha-producer', realm: 'alpha', role: 'producer' },
        ],
      },
      { mqtt: { enabled: true, port: 0 } },
      {
        hooks: {
          authenticate: (client) => {
            seen.push(`${client.protocol} ${client.realm} ${client.role}`);
            return client.role !== 'producer';
          },
        },
      },
    );
    h = harness;
    const a = await harness.connect();
    expect(await authenticate(a, { token: 'alpha-both' })).toMatchObject({
      event: 'AUTH_OK',
      realm: 'alpha',
    });
    const b = await harness.connect();
    expect(await authenticate(b, { token: 'alpha-producer' })).toMatchObject({
      event: 'AUTH_FAIL',
      code: 401,
    });
    // A token Switchboard refuses never reaches the hook.
    const c = await harness.connect();
    expect(await authenticate(c, { token: 'forged' })).toMatchObject({ event: 'AUTH_FAIL' });
    expect(await connackCode(harness, { username: 'alpha', password: 'alpha-producer' })).toBe(5);
    expect(await connackCode(harness, { username: 'alpha', password: 'alpha-both' })).toBe(0);
    expect(seen).toEqual([
      'socket.io alpha both',
      'socket.io alpha producer',
      'mqtt alpha producer',
      'mqtt alpha both',
    ]);
    // The refused producer cannot publish.
    const sub = await harness.connect();
    await authenticate(sub, { token: 'alpha-both' });
    await subscribe(sub, 'c1', 'p1', 'e');
    produce(b, 'p1', 'e', 'nope');
    await expectNothing(sub, consumeEvent('p1-e'));
  });
});
