/**
 * Embedding API (issue 14, docs/embedding.md): `authorizePublish`, `authorizeSubscribe`,
 * `authorizeForward` and `published` apply to socket.io and MQTT clients alike; refusals use
 * the protocol's shape (`AUTH_FAIL 403` and the confirm callback; MQTT SUBACK 0x80, closed
 * connection for a refused PUBLISH); throwing hooks refuse cleanly; `authorizeForward` drops or
 * rewrites per recipient.
 */
import { describe, expect, it } from 'vitest';
import type { BrokerClient, BrokerMessage } from '../../../broker/index';
import {
  ClientEvent,
  ServerEvent,
  anyProducerKey,
  consumeEvent,
} from '../../../shared/protocol-events';
import { produce, subscribe, sync, useBroker } from '../../helpers/broker-harness';
import { mqttClient, nextMessage } from '../../helpers/mqtt-clients';
import { delay, expectNothing, waitFor, waitUntil } from '../../helpers/wait';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } });
const topicEvent = (pattern: string): string => consumeEvent(anyProducerKey(pattern));

describe('authorizePublish', () => {
  it('refuses a socket.io PRODUCE with AUTH_FAIL 403 and rewrites another, in order', async () => {
    const broker = ctx.h.broker;
    broker.authorizePublish = async (client, message) => {
      await delay(5);
      if (message.topic.startsWith('secret')) throw new Error('no secrets');
      if (client.protocol === 'socket.io') message.payload = { wrapped: message.payload };
    };
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'TYO-MQ-ALL', '#', { mode: 'topic' });
    const got: unknown[] = [];
    c.on(topicEvent('#'), (e: { event: string; message: unknown }) =>
      got.push([e.event, e.message]),
    );
    const p = await ctx.h.producer('p1');
    const refused = waitFor(p, ServerEvent.AUTH_FAIL);
    produce(p, 'p1', 'a', 1);
    const reply = await p.emitWithAck(ClientEvent.PRODUCE, {
      event: 'secret/x',
      message: 2,
      from: 'p1',
    });
    produce(p, 'p1', 'b', 3);
    expect(reply).toEqual({ ok: false, code: 403, message: 'no secrets' });
    expect(await refused).toEqual({ code: 403, message: 'no secrets' });
    await waitUntil(() => got.length === 2, 'two deliveries');
    await delay(50);
    expect(got).toEqual([
      ['a', { wrapped: 1 }],
      ['b', { wrapped: 3 }],
    ]);
  });

  it('closes an MQTT publisher the hook refuses, rewrites allowed payloads (bytes)', async () => {
    const broker = ctx.h.broker;
    broker.authorizePublish = (client, message) => {
      if (message.topic === 'forbidden') throw new Error('refused');
      if (client.protocol === 'mqtt') message.payload = Buffer.from(`[${String(message.payload)}]`);
    };
    const sub = await mqttClient(ctx.h);
    await sub.subscribeAsync('#', { qos: 1 });
    const got = nextMessage(sub);
    const pub = await mqttClient(ctx.h);
    await pub.publishAsync('ok', 'x', { qos: 1 });
    expect(await got).toMatchObject({ topic: 'ok', text: '[x]' });
    const closed = new Promise<void>((resolve) => pub.once('close', () => resolve()));
    pub.publish('forbidden', 'y', { qos: 1 });
    await closed;
    // Only the publisher was closed.
    const again = nextMessage(sub);
    const other = await mqttClient(ctx.h);
    await other.publishAsync('ok', 'z', { qos: 1 });
    expect(await again).toMatchObject({ text: '[z]' });
  });
});

describe('authorizeSubscribe', () => {
  it('negates socket.io subscriptions with AUTH_FAIL 403 and rewrites others', async () => {
    const broker = ctx.h.broker;
    broker.authorizeSubscribe = (client, sub) => {
      if (sub.topic === 'private/#') return null;
      if (sub.topic === 'boom') throw new Error('hook bug');
      return client.protocol === 'socket.io' ? { ...sub, topic: `tenant-a/${sub.topic}` } : sub;
    };
    const c = await ctx.h.consumer('c1');
    const refusals: unknown[] = [];
    c.on(ServerEvent.AUTH_FAIL, (r: unknown) => refusals.push(r));
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'private/#', { mode: 'topic' });
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'boom', { mode: 'topic' });
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'news', { mode: 'topic' });
    expect(refusals).toEqual([
      { code: 403, message: "Subscription to 'private/#' refused" },
      { code: 403, message: 'hook bug' },
    ]);
    const got = waitFor(c, topicEvent('tenant-a/news'));
    await broker.publish({ topic: 'tenant-a/news', payload: 'hello' });
    expect(await got).toMatchObject({ message: 'hello' });
    await broker.publish({ topic: 'private/x', payload: 'no' });
    await expectNothing(c, topicEvent('private/#'));
  });

  it('grants MQTT filters 0x80 when negated or when the hook throws; the client stays', async () => {
    const broker = ctx.h.broker;
    broker.authorizeSubscribe = async (_client, sub) => {
      if (sub.topic === 'private/#') return null;
      if (sub.topic === 'boom') throw new Error('hook bug');
      return { ...sub, qos: 0 };
    };
    const m = await mqttClient(ctx.h);
    // MQTT.js reports a SUBACK with a failure code as an error carrying the packet.
    const suback = await m
      .subscribeAsync({ 'private/#': { qos: 1 }, boom: { qos: 1 }, news: { qos: 1 } })
      .then(
        () => null,
        (err: { packet?: { granted: number[] } }) => err.packet,
      );
    // aedes' SUBACK reports the requested QoS; deliveries use the hook's (0, below).
    expect(suback?.granted.slice(0, 2)).toEqual([128, 128]);
    expect(m.connected).toBe(true);
    const got = nextMessage(m);
    await broker.publish({ topic: 'news', payload: 'n' });
    expect(await got).toMatchObject({ topic: 'news', text: 'n', qos: 0 });
  });
});

describe('authorizeForward', () => {
  it('drops a message for one recipient only, and rewrites per recipient, on both protocols', async () => {
    const broker = ctx.h.broker;
    const calls: string[] = [];
    broker.authorizeForward = (client: BrokerClient, message: BrokerMessage) => {
      calls.push(`${client.protocol}`);
      if (client.id === 'dev-b' || client.id === blockedSocket) return null;
      if (client.protocol === 'mqtt') return { ...message, payload: Buffer.from('for-mqtt') };
      return { ...message, payload: { for: client.id } };
    };
    let blockedSocket = '';
    const a = await ctx.h.consumer('a');
    const b = await ctx.h.consumer('b');
    blockedSocket = b.id!;
    await subscribe(a, 'a', 'TYO-MQ-ALL', 'alerts/#', { mode: 'topic' });
    await subscribe(b, 'b', 'TYO-MQ-ALL', 'alerts/#', { mode: 'topic' });
    const ma = await mqttClient(ctx.h, { clientId: 'dev-a' });
    const mb = await mqttClient(ctx.h, { clientId: 'dev-b' });
    await ma.subscribeAsync('alerts/#', { qos: 1 });
    await mb.subscribeAsync('alerts/#', { qos: 1 });
    const gotA = waitFor(a, topicEvent('alerts/#'));
    const gotMa = nextMessage(ma);
    const p = await ctx.h.producer('p1');
    produce(p, 'p1', 'alerts/1', 'original');
    expect(await gotA).toMatchObject({ event: 'alerts/1', message: { for: a.id } });
    expect(await gotMa).toMatchObject({ topic: 'alerts/1', text: 'for-mqtt' });
    await expectNothing(b, topicEvent('alerts/#'));
    const quiet: string[] = [];
    mb.on('message', (t) => quiet.push(t));
    await delay(100);
    expect(quiet).toEqual([]);
    expect(calls.sort()).toEqual(['mqtt', 'mqtt', 'socket.io', 'socket.io']);
  });

  it('decides a realm broadcast per recipient too', async () => {
    const broker = ctx.h.broker;
    const a = await ctx.h.consumer('a');
    const b = await ctx.h.consumer('b');
    broker.authorizeForward = (client, message) => (client.id === b.id ? null : message);
    const gotA = waitFor(a, consumeEvent('news'));
    const p = await ctx.h.producer('p1');
    p.emit(ClientEvent.PRODUCE, { event: 'news', message: 'all', from: 'p1', method: 'broadcast' });
    expect(await gotA).toMatchObject({ message: 'all' });
    await expectNothing(b, consumeEvent('news'));
  });

  it('a throwing hook drops that copy only; a durable ACK copy stays unacknowledged', async () => {
    const broker = ctx.h.broker;
    let fail = true;
    broker.authorizeForward = (client, message) => {
      if (client.protocol === 'socket.io' && fail) {
        fail = false;
        throw new Error('hook bug');
      }
      return message;
    };
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'p1', 'job', {
      manualAck: true,
      ackTimeout: '100ms',
      retry: { max_attempts: 3, delay: '50ms' },
    });
    const got = waitFor<{ delivery_attempt: number }>(c, consumeEvent('p1-job'), 3_000);
    const p = await ctx.h.producer('p1');
    produce(p, 'p1', 'job', 'retry me');
    // The first attempt was dropped by the throwing hook; the retry gets through.
    expect((await got).delivery_attempt).toBe(2);
  });
});

describe('published', () => {
  it('runs after routing for socket.io, MQTT and in-process messages; its errors are contained', async () => {
    const broker = ctx.h.broker;
    const seen: string[] = [];
    broker.published = async (message, client) => {
      seen.push(`${message.topic} ${client ? client.protocol : 'local'}`);
      throw new Error('published bug');
    };
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 't/#', { mode: 'topic' });
    const p = await ctx.h.producer('p1');
    produce(p, 'p1', 't/io', 1);
    await sync(p);
    const m = await mqttClient(ctx.h);
    await m.publishAsync('t/mqtt', '2', { qos: 1 });
    await broker.publish({ topic: 't/local', payload: 3 });
    await waitUntil(() => seen.length === 3, 'three published calls');
    expect(seen).toEqual(['t/io socket.io', 't/mqtt mqtt', 't/local local']);
    // Still routing.
    const topics: string[] = [];
    c.on(topicEvent('t/#'), (e: { event: string }) => topics.push(e.event));
    produce(p, 'p1', 't/after', 4);
    await waitUntil(() => topics.includes('t/after'), 't/after delivered');
  });
});
