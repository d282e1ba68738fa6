/**
 * MQTT 5 clients (issue 14) with real MQTT.js clients: CONNACK reason codes, advertised limits,
 * cross-protocol round trips, properties passed through, authorization answered with reason
 * codes on a live connection, shared subscriptions authorized as filters (0x87), inbound topic aliases kept
 * inside their realm, and session expiry.
 */
import type { IConnackPacket } from 'mqtt';
import { describe, expect, it } from 'vitest';
import { anyProducerKey, consumeEvent } from '../../../shared/protocol-events';
import { consumerIn, producerIn, useAuthBroker } from '../../helpers/auth-clients';
import { produce, subscribe } from '../../helpers/broker-harness';
import {
  connackCode,
  mqttClient,
  mqttConnecting,
  nextMessage,
  sessionPresent,
} from '../../helpers/mqtt-clients';
import { delay, expectNothing, waitFor } from '../../helpers/wait';

const ctx = useAuthBroker(
  {
    realms: { alpha: { key: 'alpha-psk' }, beta: {} },
    tokens: [
      { token: 'alpha-producer', realm: 'alpha', role: 'producer' },
      { token: 'alpha-consumer', realm: 'alpha', role: 'consumer' },
      { token: 'alpha-both', realm: 'alpha', role: 'both' },
      { token: 'beta-both', realm: 'beta', role: 'both' },
      { token: 'beta-watch', realm: 'beta', role: 'consumer' },
    ],
  },
  { mqtt: { enabled: true, port: 0, max_packet_size: 4096 } },
);

const v5 = { protocolVersion: 5 as const };
const alpha = { ...v5, username: 'alpha', password: 'alpha-both' };
const beta = { ...v5, username: 'beta', password: 'beta-both' };

describe('MQTT 5 CONNECT', () => {
  it('refuses a bad password with 0x86 "Bad User Name or Password" (3.1.1: 5)', async () => {
    expect(await connackCode(ctx.h, { ...v5, username: 'alpha', password: 'nope' })).toBe(0x86);
    expect(await connackCode(ctx.h, { protocolVersion: 4, username: 'alpha', password: 'x' })).toBe(
      5,
    );
  });

  it('refuses missing credentials and a token of another realm with 0x87 "Not authorized"', async () => {
    expect(await connackCode(ctx.h, v5)).toBe(0x87);
    expect(await connackCode(ctx.h, { ...v5, username: 'beta', password: 'alpha-both' })).toBe(
      0x87,
    );
  });

  it('accepts a token and realm + PSK, advertising the broker limits in the CONNACK', async () => {
    const client = mqttConnecting(ctx.h, alpha);
    const connack = await new Promise<IConnackPacket>((resolve) => client.once('connect', resolve));
    expect(connack.reasonCode).toBe(0);
    expect(connack.properties).toMatchObject({
      maximumPacketSize: 4096 + 3,
      receiveMaximum: 1000,
      topicAliasMaximum: 16,
      sharedSubscriptionAvailable: true,
    });
    expect(await connackCode(ctx.h, { ...v5, username: 'alpha', password: 'alpha-psk' })).toBe(0);
  });
});

describe('MQTT 5 routing', () => {
  it('round-trips with tyo-mq both ways inside the realm', async () => {
    const m = await mqttClient(ctx.h, alpha);
    await m.subscribeAsync('fleet/+/cmd', { qos: 1 });
    const got = nextMessage(m);
    const p = await producerIn(ctx.h, { token: 'alpha-producer' }, 'ops');
    produce(p, 'ops', 'fleet/t7/cmd', { op: 'stop' });
    expect(await got).toMatchObject({ topic: 'fleet/t7/cmd', text: '{"op":"stop"}', qos: 1 });

    const c = await consumerIn(ctx.h, { token: 'alpha-consumer' }, 'worker');
    await subscribe(c, 'worker', 'TYO-MQ-ALL', 'sensors/#', { mode: 'topic' });
    const event = waitFor(c, consumeEvent(anyProducerKey('sensors/#')));
    await m.publishAsync('sensors/s1/temp', JSON.stringify({ c: 20 }), { qos: 1 });
    expect(await event).toMatchObject({ event: 'sensors/s1/temp', message: { c: 20 } });
  });

  it('passes MQTT 5 properties from publisher to subscriber', async () => {
    const sub = await mqttClient(ctx.h, alpha);
    await sub.subscribeAsync('rpc/req', { qos: 1 });
    const got = new Promise<Record<string, unknown>>((resolve) =>
      sub.once('message', (_t, _p, packet) => resolve(packet.properties ?? {})),
    );
    const pub = await mqttClient(ctx.h, alpha);
    await pub.publishAsync('rpc/req', 'ping', {
      qos: 1,
      properties: {
        userProperties: { trace: 'abc' },
        contentType: 'text/plain',
        responseTopic: 'rpc/reply/1',
        correlationData: Buffer.from('c-1'),
      },
    });
    const props = await got;
    expect(props).toMatchObject({
      userProperties: { trace: 'abc' },
      contentType: 'text/plain',
      responseTopic: 'rpc/reply/1',
    });
    expect(Buffer.from(props.correlationData as Buffer).toString()).toBe('c-1');
  });

  it('keeps the realms apart for MQTT 5 clients', async () => {
    const a = await mqttClient(ctx.h, alpha);
    const b = await mqttClient(ctx.h, beta);
    await b.subscribeAsync('#');
    const seen: string[] = [];
    b.on('message', (t) => seen.push(t));
    await a.publishAsync('room/1', 'alpha only', { qos: 1 });
    await delay(150);
    expect(seen).toEqual([]);
  });
});

describe('MQTT 5 authorization on a live connection', () => {
  it('answers a refused publish PUBACK 0x87 and keeps the connection', async () => {
    const m = await mqttClient(ctx.h, { ...v5, username: 'alpha', password: 'alpha-psk' });
    await expect(m.publishAsync('x/y', 'refused', { qos: 1 })).rejects.toMatchObject({
      code: 0x87,
    });
    expect(m.connected).toBe(true);
    const c = await consumerIn(ctx.h, { token: 'alpha-consumer' }, 'watch');
    await subscribe(c, 'watch', 'TYO-MQ-ALL', 'x/#', { mode: 'topic' });
    await m.publishAsync('x/y', 'refused again', { qos: 1 }).catch(() => undefined);
    await expectNothing(c, consumeEvent(anyProducerKey('x/#')));
  });

  it('grants a refused filter 0x87, also as a shared subscription, and an allowed one QoS 1', async () => {
    const producer = await mqttClient(ctx.h, {
      ...v5,
      username: 'alpha',
      password: 'alpha-producer',
    });
    const refused = await producer.subscribeAsync('x/#', { qos: 1 }).catch((e: unknown) => e);
    expect(JSON.stringify(refused)).toContain(String(0x87));
    const sharedRefused = await producer
      .subscribeAsync('$share/g/x/#', { qos: 1 })
      .catch((e: unknown) => e);
    expect(JSON.stringify(sharedRefused)).toContain(String(0x87));
    const both = await mqttClient(ctx.h, alpha);
    const shared = await both.subscribeAsync('$share/g/x/#', { qos: 1 });
    expect(shared[0]?.qos).toBe(1);
    expect(both.connected).toBe(true);
  });
});

describe('MQTT 5 topic aliases', () => {
  it('resolves an inbound alias to the topic it was set with, inside the realm', async () => {
    const sub = await mqttClient(ctx.h, alpha);
    await sub.subscribeAsync('#', { qos: 1 });
    const other = await mqttClient(ctx.h, beta);
    await other.subscribeAsync('#');
    const leaked: string[] = [];
    other.on('message', (t) => leaked.push(t));
    const seen: string[] = [];
    sub.on('message', (t, p) => seen.push(`${t}=${p.toString()}`));
    const pub = await mqttClient(ctx.h, alpha);
    await pub.publishAsync('long/topic/name', 'one', { qos: 1, properties: { topicAlias: 3 } });
    await pub.publishAsync('', 'two', { qos: 1, properties: { topicAlias: 3 } });
    for (let i = 0; i < 50 && seen.length < 2; i++) await delay(20);
    expect(seen).toEqual(['long/topic/name=one', 'long/topic/name=two']);
    expect(leaked).toEqual([]);
  });
});

describe('MQTT 5 session expiry', () => {
  it('keeps a session with a Session Expiry Interval and delivers its backlog', async () => {
    const opts = {
      ...alpha,
      clientId: 'dev-5',
      clean: false,
      properties: { sessionExpiryInterval: 300 },
    };
    const first = await mqttClient(ctx.h, opts);
    await first.subscribeAsync('jobs/#', { qos: 1 });
    await first.endAsync();
    const p = await mqttClient(ctx.h, alpha);
    await p.publishAsync('jobs/1', 'queued', { qos: 1 });
    const again = mqttConnecting(ctx.h, opts);
    const present = sessionPresent(again);
    const got = nextMessage(again);
    expect(await present).toBe(true);
    expect(await got).toMatchObject({ topic: 'jobs/1', text: 'queued' });
  });

  it('ends a session without a Session Expiry Interval with its connection', async () => {
    const opts = { ...alpha, clientId: 'dev-6', clean: false };
    const first = await mqttClient(ctx.h, opts);
    await first.subscribeAsync('jobs/#', { qos: 1 });
    await first.endAsync();
    const again = mqttConnecting(ctx.h, opts);
    expect(await sessionPresent(again)).toBe(false);
  });
});

describe('MQTT 5 packet size', () => {
  it('answers a packet over max_packet_size with DISCONNECT 0x95, other clients unaffected', async () => {
    const big = await mqttClient(ctx.h, alpha);
    const bystander = await mqttClient(ctx.h, alpha);
    await bystander.subscribeAsync('ok');
    const reason = new Promise<number | undefined>((resolve) =>
      big.once('disconnect', (packet) => resolve(packet.reasonCode)),
    );
    big.publish('big', Buffer.alloc(8192, 1));
    expect(await reason).toBe(0x95);
    const got = nextMessage(bystander);
    const p = await mqttClient(ctx.h, alpha);
    await p.publishAsync('ok', 'still here');
    expect((await got).text).toBe('still here');
  });
});

describe('MQTT 5 revocation', () => {
  it('a revoked token ends its client with DISCONNECT 0x87 and its will is not published', async () => {
    const watcher = await mqttClient(ctx.h, { ...v5, username: 'beta', password: 'beta-watch' });
    const doomed = await mqttClient(ctx.h, {
      ...v5,
      username: 'beta',
      password: 'beta-both',
      will: { topic: 'status/doomed', payload: Buffer.from('gone'), qos: 1, retain: false },
    });
    await watcher.subscribeAsync('status/#', { qos: 1 });
    const wills: string[] = [];
    watcher.on('message', (t) => wills.push(t));
    const disconnect = new Promise<{ reasonCode?: number; reason?: string }>((resolve) =>
      doomed.once('disconnect', (packet) =>
        resolve({ reasonCode: packet.reasonCode, reason: packet.properties?.reasonString }),
      ),
    );
    ctx.h.broker.auth.update((draft) => {
      draft.tokens = draft.tokens.filter((t) => t.token !== 'beta-both');
    });
    expect(await disconnect).toEqual({ reasonCode: 0x87, reason: 'token revoked' });
    await delay(200);
    expect(watcher.connected).toBe(true);
    expect(wills).toEqual([]);
  });
});
