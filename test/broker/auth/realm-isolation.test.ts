/**
 * The realm-isolation matrix: 3 realms × every role × every client event.
 *
 * Part one: every role of every realm sends every event; forbidden ones get exactly the
 * documented `AUTH_FAIL 403 "Role '<role>' is not allowed to send <EVENT>"` and are dropped,
 * permitted ones never get an `AUTH_FAIL` (`spec/protocol-admin.md` §3.1, §3.3).
 * Part two: the same producer, consumer, subscription and event names in three realms: live
 * messages, broadcasts, durable copies, ACKs, DLQ entries, stats and metric labels never cross
 * a realm (§3.2, `spec/protocol-core.md` §1.4).
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  consumeEvent,
  ServerEvent,
  type ClientEventName,
} from '../../../shared/protocol-events';
import { ROLES } from '../../../broker/auth/auth-schema';
import { EVENT_GATES } from '../../../broker/handlers/event-gate';
import { ADMIN_TOKEN, loggedIn, useAuthBroker } from '../../helpers/auth-clients';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  type Socket,
} from '../../helpers/broker-harness';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../../helpers/stock-clients';
import { delay, waitFor } from '../../helpers/wait';

const REALMS = ['r1', 'r2', 'r3'] as const;
const token = (realm: string, role: string) => `tok-${realm}-${role}`;

const AUTH = {
  tokens: [
    { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
    ...REALMS.flatMap((realm) => ROLES.map((role) => ({ token: token(realm, role), realm, role }))),
  ],
};

/** A valid payload for each client event (names unique per socket). */
function payloadFor(event: ClientEventName, who: string, socket: Socket): unknown {
  switch (event) {
    case ClientEvent.CONSUMER:
      return consumerPayload(`c-${who}`);
    case ClientEvent.SUBSCRIBE:
      return jsSubscribePayload(`c-${who}`, 'fleet', 'job');
    case ClientEvent.UNSUBSCRIBE:
      return 'nothing-subscribed';
    case ClientEvent.ACK:
      return { msgId: 'msg-unknown' };
    case ClientEvent.PRODUCER:
      return jsProducerPayload(`p-${who}`);
    case ClientEvent.PRODUCE:
      return producePayload('job', 'matrix', { from: `p-${who}` });
    case ClientEvent.PRODUCE_CHUNK:
      return { transferId: `t-${who}`, index: 0, total: 2, data: '{"ev' };
    case ClientEvent.QUIT:
      return `not-${socket.id}`;
    case ClientEvent.AUTHENTICATION:
      return { token: 'whatever' };
    default:
      return { from: who };
  }
}

const CONSUMER_EVENTS = new Set(['consumer', 'both', 'manager', 'admin']);
const PRODUCER_EVENTS = new Set(['producer', 'both', 'manager', 'admin']);

function expectedRefusals(role: string): string[] {
  const out: string[] = [];
  for (const event of Object.keys(EVENT_GATES) as ClientEventName[]) {
    const gate = EVENT_GATES[event];
    if (gate === 'consumer' && !CONSUMER_EVENTS.has(role)) {
      out.push(`Role '${role}' is not allowed to send ${event}`);
    }
    if (gate === 'producer' && !PRODUCER_EVENTS.has(role)) {
      out.push(`Role '${role}' is not allowed to send ${event}`);
    }
  }
  return out;
}

describe('realm isolation matrix', () => {
  const ctx = useAuthBroker(AUTH, { http_api: { enabled: true } });

  it('answers every forbidden (realm, role, event) with its documented 403, and nothing else', async () => {
    for (const realm of REALMS) {
      for (const role of ROLES) {
        const s = await loggedIn(ctx.h, { token: token(realm, role) });
        const rec = record(s);
        for (const event of Object.keys(EVENT_GATES) as ClientEventName[]) {
          if (EVENT_GATES[event] === 'none' && event !== ClientEvent.AUTHENTICATION) continue;
          s.emit(event, payloadFor(event, `${realm}-${role}`, s));
        }
        await sync(s);
        const fails = rec.of(ServerEvent.AUTH_FAIL) as { code: number; message: string }[];
        const refusals = fails.filter((f) => f.code === 403 && f.message.startsWith('Role'));
        expect(
          refusals.map((f) => f.message),
          `${realm}/${role}`,
        ).toEqual(expectedRefusals(role));
        // AUTHENTICATION on an authenticated socket: the one other AUTH_FAIL.
        expect(fails.length - refusals.length).toBe(1);
        expect(s.connected).toBe(true);
        s.disconnect();
      }
    }
    // Registrations happened only where allowed, and only in the socket's own realm: four
    // producer-capable roles plus the `fleet` entry their SUBSCRIBEs created, four
    // consumer-capable roles per realm, nothing in default or *.
    const stats = ctx.h.rawStats().realms;
    expect(Object.keys(stats).sort()).toEqual([...REALMS]);
    for (const realm of REALMS) {
      expect(stats[realm]?.producers.total, realm).toBe(5);
      expect(stats[realm]?.consumers.total, realm).toBe(4);
    }
  });

  it('keeps live messages, broadcasts, durable copies, ACKs, DLQ entries, stats and metrics per realm', async () => {
    const h = ctx.h;
    const consumers = new Map<string, Socket>();
    const producers = new Map<string, Socket>();
    for (const realm of REALMS) {
      const c = await loggedIn(h, { token: token(realm, 'consumer') });
      c.emit(ClientEvent.CONSUMER, consumerPayload('worker'));
      await subscribe(c, 'worker', 'fleet', 'job', { durable: true });
      await subscribe(c, 'worker', 'fleet', 'slow', {
        ack: true,
        ackTimeout: '100ms',
        retry: { max_attempts: 1 },
      });
      consumers.set(realm, c);
      const p = await loggedIn(h, { token: token(realm, 'producer') });
      p.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
      await sync(p);
      producers.set(realm, p);
    }
    const recs = new Map(REALMS.map((r) => [r, record(consumers.get(r)!)]));

    // Live messages and realm broadcasts.
    for (const realm of REALMS) {
      const got = waitFor(consumers.get(realm)!, exactConsumeEvent('fleet', 'job'));
      produce(producers.get(realm)!, 'fleet', 'job', `live-${realm}`);
      expect(await got).toMatchObject({ message: `live-${realm}` });
      produce(producers.get(realm)!, 'fleet', 'Alert', `bc-${realm}`, { broadcast: 'realm' });
    }
    await delay(200);
    for (const realm of REALMS) {
      const seen = recs.get(realm)!.all.map((r) => (r.args[0] as { message?: unknown }).message);
      expect(
        seen.filter((m) => typeof m === 'string' && !m.endsWith(realm)),
        realm,
      ).toEqual([]);
      expect(recs.get(realm)!.of(consumeEvent('Alert'))).toHaveLength(1);
    }

    // ACKed copies: a same-named consumer of another realm cannot settle them.
    const slow = waitFor<{ msgId: string }>(
      consumers.get('r1')!,
      exactConsumeEvent('fleet', 'slow'),
    );
    produce(producers.get('r1')!, 'fleet', 'slow', 'slow-r1');
    const { msgId } = await slow;
    const foreign = await consumers
      .get('r2')!
      .timeout(2_000)
      .emitWithAck(ClientEvent.ACK, { msgId });
    expect(foreign).toEqual({ ok: false, code: 404, message: 'Pending ACK not found' });
    // Left alone, it is dead-lettered in r1 only.
    const deadline = Date.now() + 5_000;
    while ((await h.broker.store.listDlq('r1')).length === 0 && Date.now() < deadline) {
      await delay(20);
    }
    expect(await h.broker.store.listDlq('r2')).toEqual([]);
    expect(await h.broker.store.listDlq('r3')).toEqual([]);
    expect((await h.broker.store.listDlq('r1'))[0]).toMatchObject({
      realm: 'r1',
      message: { message: 'slow-r1' },
    });

    // Durable copies while the consumers are away.
    for (const realm of REALMS) consumers.get(realm)!.disconnect();
    await delay(100);
    for (const realm of REALMS) produce(producers.get(realm)!, 'fleet', 'job', `stored-${realm}`);
    await sync(...producers.values());
    for (const realm of REALMS) expect(await h.broker.store.countQueued(realm), realm).toBe(1);
    const back = await loggedIn(h, { token: token('r2', 'consumer') });
    const replayed = waitFor(back, exactConsumeEvent('fleet', 'job'));
    const backRec = record(back);
    back.emit(ClientEvent.CONSUMER, consumerPayload('worker'));
    await subscribe(back, 'worker', 'fleet', 'job', { durable: true });
    expect(await replayed).toMatchObject({ message: 'stored-r2' });
    await delay(100);
    expect(backRec.of(exactConsumeEvent('fleet', 'job'))).toHaveLength(1);
    expect(await h.broker.store.countQueued('r1')).toBe(1);

    // Stats and metric labels.
    const stats = h.rawStats().realms;
    for (const realm of REALMS) expect(stats[realm]?.producers.online).toBe(1);
    const res = await fetch(`${h.url}/api/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const text = await res.text();
    for (const realm of REALMS) {
      expect(text).toMatch(
        new RegExp(`tyo_mq_messages_produced_total\\{event="job",realm="${realm}"\\} 2`),
      );
    }
  });
});
