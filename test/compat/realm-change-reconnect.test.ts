/**
 * Issue 19 item 2: `rename_realm` ends the renamed realm's live sessions at the transport level
 * (no socket.io DISCONNECT packet), so a stock client reconnects by itself and authenticates
 * again; its token was retargeted to the new name (docs/management.md: "sockets bound to the old
 * name … re-authenticate"), so the same token lands it in the renamed realm. Where ending the
 * client is the intent — `revoke_token`, `remove_realm` — the final DISCONNECT stays: reason
 * "io server disconnect" and no reconnect.
 *
 * Clients are socket.io-client with its default options behaving like the tyo-mq Node client:
 * on every 'connect' it sends AUTHENTICATION, and once AUTH_OK arrives it identifies and replays
 * its subscription.
 */
import type { Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  sync,
  useBroker,
  type Harness,
} from '../helpers/broker-harness';
import { consumerPayload, jsProducerPayload, jsSubscribePayload } from '../helpers/stock-clients';
import { expectNothing, waitFor, waitUntil } from '../helpers/wait';
import { ADMIN_TOKEN, adminSettings, manager } from '../broker/admin/management-client';
import { RECONNECT_WAIT_MS, stockClient, type StockClient } from '../support/stock-node-client';

const PRODUCER = 'fleet';
const EVENT = 'job';
const CONSUMER = 'worker';
const OLD = 'alpha';
const NEW = 'beta';
const CONSUMER_TOKEN = 'alpha-consumer-token';
const PRODUCER_TOKEN = 'alpha-producer-token';

const TRANSPORT_CLOSE = 'transport close';
const SERVER_DISCONNECT = 'io server disconnect';
/**
 * socket.io-client's first reconnection attempt comes 0.5–1.5 s after a drop (1 s ± 50 %): a
 * client quiet for longer than that was not going to reconnect.
 */
const FIRST_RECONNECT_MAX_MS = 1_600;

const ctx = useBroker(
  adminSettings(
    {},
    {
      tokens: [
        { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
        { token: CONSUMER_TOKEN, realm: OLD, role: 'consumer' },
        { token: PRODUCER_TOKEN, realm: OLD, role: 'producer' },
      ],
      realms: { default: { required: false }, [OLD]: { required: true } },
    },
  ),
);

interface AuthedClient extends StockClient {
  /** The realm of every AUTH_OK so far, in order. */
  readonly realms: string[];
  /** Resolves with the realm of the next AUTH_OK, once the client has re-registered after it. */
  nextAuth(timeoutMs?: number): Promise<string>;
}

/**
 * A tyo-mq-style client: AUTHENTICATION on every 'connect', then (on AUTH_OK) `register`.
 * Closed by the harness before the broker.
 */
function authedClient(h: Harness, token: string, register: (socket: Socket) => void): AuthedClient {
  const realms: string[] = [];
  const client = stockClient(h.url, (s) => {
    s.emit(ClientEvent.AUTHENTICATION, { token });
  });
  client.socket.on(ServerEvent.AUTH_OK, (reply: { realm: string }) => {
    realms.push(reply.realm);
    register(client.socket);
  });
  h.onClose(() => client.close());
  return {
    socket: client.socket,
    get connects() {
      return client.connects;
    },
    reasons: client.reasons,
    nextConnect: client.nextConnect,
    nextDisconnect: client.nextDisconnect,
    close: client.close,
    realms,
    async nextAuth(timeoutMs?: number) {
      const reply = await waitFor<{ realm: string }>(client.socket, ServerEvent.AUTH_OK, timeoutMs);
      await sync(client.socket); // the re-registration emitted on AUTH_OK has been dispatched
      return reply.realm;
    },
  };
}

function consumerClient(h: Harness): AuthedClient {
  return authedClient(h, CONSUMER_TOKEN, (s) => {
    s.emit(ClientEvent.CONSUMER, consumerPayload(CONSUMER));
    s.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload(CONSUMER, PRODUCER, EVENT));
  });
}

function producerClient(h: Harness): AuthedClient {
  return authedClient(h, PRODUCER_TOKEN, (s) => {
    s.emit(ClientEvent.PRODUCER, jsProducerPayload(PRODUCER));
  });
}

function online(h: Harness, realm: string, consumers: number, producers: number): Promise<void> {
  const counts = () => h.broker.getStats().realms[realm];
  return waitUntil(
    () => counts()?.consumers.online === consumers && counts()?.producers.online === producers,
    `${consumers} consumer(s) and ${producers} producer(s) online in "${realm}" (now ${JSON.stringify(counts())})`,
  );
}

/** Consumer and producer authenticated in OLD; one message goes through. */
async function connectedPair(h: Harness): Promise<{ c: AuthedClient; p: AuthedClient }> {
  const c = consumerClient(h);
  const cAuth = c.nextAuth();
  const p = producerClient(h);
  const pAuth = p.nextAuth();
  expect(await cAuth).toBe(OLD);
  expect(await pAuth).toBe(OLD);
  await online(h, OLD, 1, 1);
  const got = waitFor(c.socket, exactConsumeEvent(PRODUCER, EVENT));
  produce(p.socket, PRODUCER, EVENT, 'before');
  expect(await got).toEqual({ event: EVENT, message: 'before', from: PRODUCER });
  return { c, p };
}

/** The client was ended for good: server DISCONNECT, inactive, no reconnection attempt. */
async function endedForGood(client: AuthedClient, down: Promise<string>): Promise<void> {
  expect(await down).toBe(SERVER_DISCONNECT);
  expect(client.socket.active).toBe(false);
  await expectNothing(client.socket, 'connect', FIRST_RECONNECT_MAX_MS);
  expect(client.socket.connected).toBe(false);
  expect(client.connects).toBe(1);
}

describe('realm changes under stock clients (default reconnection)', () => {
  it('rename_realm: the clients reconnect by themselves, re-authenticate into the new name and traffic resumes', async () => {
    const h = ctx.h;
    const { c, p } = await connectedPair(h);
    const m = await manager(h);

    const cDown = c.nextDisconnect();
    const pDown = p.nextDisconnect();
    const cBack = c.nextAuth(RECONNECT_WAIT_MS);
    const pBack = p.nextAuth(RECONNECT_WAIT_MS);
    const reply = await m.run({ command: 'rename_realm', from: OLD, to: NEW });
    expect(reply).toMatchObject({ ok: true, disconnected_sockets: 2 });
    expect(reply.settings.realms[OLD]).toBeUndefined();
    expect(reply.settings.realms[NEW]).toEqual({ required: true });

    // Transport closed, not a socket.io DISCONNECT: the clients' own back-off brings them back.
    expect(await cDown).toBe(TRANSPORT_CLOSE);
    expect(await pDown).toBe(TRANSPORT_CLOSE);
    // The same token was retargeted: it authenticates into the renamed realm.
    expect(await cBack).toBe(NEW);
    expect(await pBack).toBe(NEW);
    await online(h, NEW, 1, 1);
    expect(h.broker.getStats().realms[OLD]?.consumers.online ?? 0).toBe(0);

    const got = waitFor(c.socket, exactConsumeEvent(PRODUCER, EVENT));
    produce(p.socket, PRODUCER, EVENT, 'after');
    expect(await got).toEqual({ event: EVENT, message: 'after', from: PRODUCER });

    expect(c.connects).toBe(2);
    expect(p.connects).toBe(2);
    expect(c.reasons).toEqual([TRANSPORT_CLOSE]);
    expect(c.realms).toEqual([OLD, NEW]);
    expect(p.realms).toEqual([OLD, NEW]);
  });

  it('revoke_token ends the client for good ("io server disconnect", no reconnect)', async () => {
    const h = ctx.h;
    const { c, p } = await connectedPair(h);
    const m = await manager(h);
    const cDown = c.nextDisconnect();
    const reply = await m.run({ command: 'revoke_token', token: CONSUMER_TOKEN });
    expect(reply).toMatchObject({ ok: true });
    expect(reply.revoked).toHaveLength(1);
    await endedForGood(c, cDown);
    await online(h, OLD, 0, 1);
    // The producer, whose token stands, was left alone.
    expect(p.socket.connected).toBe(true);
    expect(p.reasons).toEqual([]);
  });

  it('remove_realm ends the realm\'s clients for good ("io server disconnect", no reconnect)', async () => {
    const h = ctx.h;
    const { c, p } = await connectedPair(h);
    const m = await manager(h);
    const cDown = c.nextDisconnect();
    const pDown = p.nextDisconnect();
    const reply = await m.run({ command: 'remove_realm', realm: OLD });
    expect(reply).toMatchObject({ ok: true, removed_tokens: 2, disconnected_sockets: 2 });
    await Promise.all([endedForGood(c, cDown), endedForGood(p, pDown)]);
  });
});
