/**
 * Rate-limit keys (issue 20 item 7): message buckets belong to the client — its credential, else
 * its realm and IP — so reconnecting or opening more sockets does not add tokens; the client IP
 * honours `X-Forwarded-For` only from trusted proxies, reading the right-most untrusted hop.
 *
 * No wall-clock race: the buckets refill at 0.001 token/s, so over a test's few seconds the cap
 * is the burst (plus under 0.01 token), and every count below is exact.
 */
import { randomBytes } from 'node:crypto';
import { io } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import { ADMIN_TOKEN, authenticate, hs256, startAuthBroker } from '../../helpers/auth-clients';
import {
  exactConsumeEvent,
  produce,
  record,
  startBroker,
  subscribe,
  sync,
  waitForServerDisconnect,
  type BrokerSettings,
  type Harness,
  type Socket,
} from '../../helpers/broker-harness';
import { jsProducerPayload } from '../../helpers/stock-clients';
import { mqttClient } from '../../helpers/mqtt-clients';
import { delay, waitFor, waitUntil } from '../../helpers/wait';

const BURST = 5;
const SLOW = { messages_per_second: 0.001, message_burst: BURST };
const REALM = 'rk';
const PRODUCER_TOKEN = 'producer-token-0123456789abcdef';
const OTHER_TOKEN = 'other-producer-token-0123456789';
const CONSUMER_TOKEN = 'consumer-token-0123456789abcdef';
const JWT_SECRET = randomBytes(32).toString('base64url');
const AUTH = {
  realms: { [REALM]: { required: true } },
  tokens: [
    { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
    { token: PRODUCER_TOKEN, realm: REALM, role: 'producer' },
    { token: OTHER_TOKEN, realm: REALM, role: 'producer' },
    { token: CONSUMER_TOKEN, realm: REALM, role: 'consumer' },
  ],
  jwt_secret: JWT_SECRET,
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A socket logged in with `token` that registered as producer `name`. */
async function producerWith(token: string, name: string): Promise<Socket> {
  const s = await h!.connect();
  const reply = await authenticate(s, { token, realm: REALM });
  expect(reply.event).toBe('AUTH_OK');
  s.emit(ClientEvent.PRODUCER, jsProducerPayload(name));
  await sync(s);
  return s;
}

/** A consumer in the realm subscribed to `job` of every producer in `producers`. */
async function consumerOf(producers: string[]) {
  const c = await h!.connect();
  expect((await authenticate(c, { token: CONSUMER_TOKEN, realm: REALM })).event).toBe('AUTH_OK');
  c.emit(ClientEvent.CONSUMER, { name: 'c1', id: 'c1', consumer_id: 'c1' });
  await sync(c);
  for (const p of producers) await subscribe(c, 'c1', p, 'job');
  const got = record(c);
  return {
    c,
    arrivals: () => producers.reduce((n, p) => n + got.of(exactConsumeEvent(p, 'job')).length, 0),
  };
}

/** Produces `n` messages on `s` as `name` and waits until the broker handled them. */
async function burst(s: Socket, name: string, n = BURST): Promise<void> {
  for (let i = 0; i < n; i++) produce(s, name, 'job', i);
  await sync(s);
}

describe('message buckets are keyed by credential (issue 20 item 7)', () => {
  it('reconnecting with the same static token does not refill the bucket', async () => {
    h = await startAuthBroker(AUTH, { limits: SLOW });
    const { c, arrivals } = await consumerOf(['P']);
    for (let round = 0; round < 4; round++) {
      const p = await producerWith(PRODUCER_TOKEN, 'P');
      await burst(p, 'P');
      p.disconnect();
      await waitUntil(() => h!.broker.getStats().realms[REALM]?.producers.online === 0, 'gone');
    }
    await sync(c);
    // 4 × 5 sent across reconnects against a cap of 5 (+ < 0.01 refilled).
    expect(arrivals()).toBe(BURST);
  });

  it('five sockets of one token share one bucket; another token has its own', async () => {
    h = await startAuthBroker(AUTH, { limits: SLOW });
    const names = ['P1', 'P2', 'P3', 'P4', 'P5'];
    const { c, arrivals } = await consumerOf([...names, 'Q']);
    const sockets = await Promise.all(names.map((n) => producerWith(PRODUCER_TOKEN, n)));
    const seen = sockets.map((s) => record(s));
    for (let i = 0; i < names.length; i++) await burst(sockets[i]!, names[i]!);
    await sync(c);
    expect(arrivals()).toBe(BURST);
    // Every socket past the shared burst was told.
    expect(seen.slice(1).every((r) => r.of(ServerEvent.RATE_LIMITED).length === 1)).toBe(true);
    const q = await producerWith(OTHER_TOKEN, 'Q');
    await burst(q, 'Q');
    await sync(c);
    expect(arrivals()).toBe(2 * BURST);
  });

  it('JWTs of one subject share a bucket, freshly minted ones included', async () => {
    h = await startAuthBroker(AUTH, { limits: SLOW });
    const { c, arrivals } = await consumerOf(['J']);
    for (let round = 0; round < 3; round++) {
      const exp = Math.floor(Date.now() / 1000) + 3600 + round;
      const jwt = await hs256(JWT_SECRET, { realm: REALM, role: 'producer', sub: 'alice' }, exp);
      const p = await producerWith(jwt, 'J');
      await burst(p, 'J');
      p.disconnect();
    }
    await sync(c);
    expect(arrivals()).toBe(BURST);
  });

  it('without a credential, the realm and client IP key the bucket (reconnects share it)', async () => {
    h = await startBroker({ limits: SLOW });
    const c = await h.consumer('c1');
    await subscribe(c, 'c1', 'P', 'job');
    const got = record(c);
    for (let round = 0; round < 3; round++) {
      const p = await h.producer('P');
      await burst(p, 'P');
      p.disconnect();
    }
    await sync(c);
    expect(got.of(exactConsumeEvent('P', 'job'))).toHaveLength(BURST);
  });

  it('MQTT reconnects with the same token spend the same bucket', async () => {
    h = await startAuthBroker(AUTH, {
      mqtt: { enabled: true, port: 0 },
      http_api: { enabled: true },
      limits: { messages_per_second: 0.001, message_burst: 2 },
    });
    const creds = { username: REALM, password: PRODUCER_TOKEN };
    const first = await mqttClient(h, { ...creds, clientId: 'm1' });
    await first.publishAsync('t', 'a', { qos: 1 });
    await first.publishAsync('t', 'b', { qos: 1 });
    await first.endAsync();
    const again = await mqttClient(h, { ...creds, clientId: 'm1' });
    // The third publish is held (MQTT throttles instead of dropping): a breach is counted.
    void again.publishAsync('t', 'c', { qos: 1 }).catch(() => undefined);
    const breach = 'tyo_mq_rate_limited_total{reason="messages_per_second"} 1';
    const deadline = Date.now() + 5_000;
    let text = '';
    while (!text.includes(breach) && Date.now() < deadline) {
      await delay(50);
      const res = await fetch(`${h.url}/api/metrics`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      text = await res.text();
    }
    expect(text).toContain(breach);
  });
});

/** A socket that reaches the broker through a "proxy" that wrote `forwarded`. */
function via(forwarded: string): Socket {
  const s = io(h!.url, {
    forceNew: true,
    reconnection: false,
    transports: ['websocket'],
    extraHeaders: { 'x-forwarded-for': forwarded },
  });
  h!.onClose(() => void s.disconnect());
  return s;
}

/** Whether a socket through `forwarded` is refused by `max_connections_per_ip`. */
async function refused(forwarded: string): Promise<boolean> {
  const s = via(forwarded);
  const outcome = await Promise.race([
    waitFor(s, ServerEvent.RATE_LIMITED).then(() => true),
    new Promise<boolean>((resolve) =>
      s.once('connect', () => {
        // Admitted sockets answer PING; refused ones have no handlers.
        s.timeout(2_000)
          .emitWithAck(ClientEvent.PING, {})
          .then(
            () => resolve(false),
            () => resolve(true),
          );
      }),
    ),
  ]);
  if (outcome) await waitForServerDisconnect(s).catch(() => undefined);
  return outcome;
}

describe('trust_proxy: forwarded addresses only from trusted proxies (issue 20 item 7)', () => {
  it('a rotating X-Forwarded-For from an untrusted peer does not lift max_connections_per_ip', async () => {
    // The test client connects from 127.0.0.1, which this list does not trust.
    h = await startBroker({
      limits: { max_connections_per_ip: 1, trust_proxy: ['10.0.0.0/8'] },
    } as BrokerSettings);
    expect(await refused('203.0.113.1')).toBe(false);
    for (const ip of ['203.0.113.2', '198.51.100.7', '10.0.0.1']) {
      expect(await refused(ip)).toBe(true);
    }
  });

  it('trust_proxy: true trusts the loopback proxy: its appended hop is the client, not the first', async () => {
    h = await startBroker({ limits: { max_connections_per_ip: 1, trust_proxy: true } });
    expect(await refused('1.1.1.1, 203.0.113.5')).toBe(false);
    // The client rotates what it writes itself; the hop the proxy appended stays.
    expect(await refused('2.2.2.2, 203.0.113.5')).toBe(true);
    expect(await refused('203.0.113.5')).toBe(true);
    // Another client behind the same proxy is another IP.
    expect(await refused('1.1.1.1, 203.0.113.6')).toBe(false);
  });

  it('behind a chain of trusted proxies the right-most untrusted hop is the client', async () => {
    h = await startBroker({
      limits: { max_connections_per_ip: 1, trust_proxy: ['loopback', '10.0.0.0/8'] },
    } as BrokerSettings);
    expect(await refused('9.9.9.9, 198.51.100.1, 10.1.2.3')).toBe(false);
    expect(await refused('8.8.8.8, 198.51.100.1, 10.9.9.9, 10.0.0.2')).toBe(true);
    expect(await refused('9.9.9.9, 198.51.100.2, 10.1.2.3')).toBe(false);
  });
});

describe('POST /api/realms per-IP limit against a rotating X-Forwarded-For', () => {
  const PROVISION = {
    tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
    management_tokens: [{ token: 'mt-org', realm_prefix: 'org:' }],
  };
  const post = async (realm: string, forwardedFor: string) =>
    (
      await fetch(`${h!.url}/api/realms`, {
        method: 'POST',
        headers: { authorization: 'Bearer mt-org', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ realm, manager_key: 'k'.repeat(32) }),
      })
    ).status;

  for (const trust_proxy of [true, ['10.0.0.0/8']]) {
    it(`holds with trust_proxy ${JSON.stringify(trust_proxy)}`, async () => {
      h = await startAuthBroker(PROVISION, {
        http_api: { enabled: true },
        limits: { realms_per_hour_per_ip: 1, trust_proxy },
      });
      expect(await post('org:a', '203.0.113.1')).toBe(200);
      for (let i = 0; i < 5; i++) {
        expect(await post(`org:r${i}`, `198.51.100.${i}, 203.0.113.1`)).toBe(429);
      }
      // Only a trusted (loopback) proxy's hop names another client.
      expect(await post('org:b', '203.0.113.2')).toBe(trust_proxy === true ? 200 : 429);
    });
  }
});
