/**
 * Embedding API (issue 14, docs/embedding.md): in-process `publish` reaches socket.io and MQTT
 * subscribers once each, in-process `subscribe` sees socket.io producers, MQTT publishers and
 * in-process publishes (wildcards, realms), and the typed events fire for both protocols.
 */
import { describe, expect, it } from 'vitest';
import { anyProducerKey, consumeEvent } from '../../../shared/protocol-events';
import type { BrokerClient, BrokerMessage } from '../../../broker/index';
import { produce, subscribe, sync, useBroker } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { delay, waitUntil } from '../../helpers/wait';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } });

const topicEvent = (pattern: string): string => consumeEvent(anyProducerKey(pattern));

describe('in-process publish', () => {
  it('reaches an MQTT subscriber and a socket.io topic subscriber exactly once each', async () => {
    const broker = ctx.h.broker;
    const m = await mqttClient(ctx.h);
    await m.subscribeAsync('alerts/#', { qos: 1 });
    const mqttSeen: string[] = [];
    m.on('message', (topic, payload) => mqttSeen.push(`${topic} ${payload.toString()}`));
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'alerts/+', { mode: 'topic' });
    const ioSeen: unknown[] = [];
    c.on(topicEvent('alerts/+'), (envelope: unknown) => ioSeen.push(envelope));

    await expect(broker.publish({ topic: 'alerts/fire', payload: { level: 3 } })).resolves.toEqual({
      msgIds: [],
    });
    await waitUntil(() => mqttSeen.length === 1 && ioSeen.length === 1, 'both deliveries');
    await delay(150);
    expect(mqttSeen).toEqual(['alerts/fire {"level":3}']);
    expect(ioSeen).toEqual([{ event: 'alerts/fire', message: { level: 3 }, from: 'switchboard' }]);
  });

  it('stores a durable message for an offline durable subscriber and confirms its id', async () => {
    const broker = ctx.h.broker;
    const c = await ctx.h.consumer('keeper');
    await subscribe(c, 'keeper', 'ops', 'job', { durable: true });
    c.disconnect();
    await waitUntil(() => ctx.h.stats().consumers.online === 0, 'consumer offline');
    const { msgIds } = await broker.publish({
      topic: 'job',
      from: 'ops',
      payload: 1,
      durable: true,
    });
    expect(msgIds).toHaveLength(1);
    expect(await broker.store.get(msgIds[0]!)).toMatchObject({
      realm: 'default',
      event: 'ops-job',
    });
  });

  it('refuses a bad packet with SWB_ERR_VALIDATION', async () => {
    const broker = ctx.h.broker;
    await expect(broker.publish({ topic: '' })).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
    });
    await expect(broker.publish({ topic: 'x', realm: '__proto__' })).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
    });
    await expect(broker.publish({ topic: 'x', ttl: 'soon' })).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
    });
  });
});

describe('in-process subscribe', () => {
  it('sees socket.io producers, MQTT publishers and in-process publishes matching a pattern', async () => {
    const broker = ctx.h.broker;
    const seen: BrokerMessage[] = [];
    broker.subscribe('plant/+/temp', (message) => {
      seen.push(message);
    });
    const p = await ctx.h.producer('sensor-a');
    produce(p, 'sensor-a', 'plant/a/temp', 20);
    await sync(p);
    const m = await mqttClient(ctx.h, { clientId: 'dev-9' });
    await m.publishAsync('Plant/b/temp', '21', { qos: 1 });
    await broker.publish({ topic: 'plant/c/temp', payload: 22 });
    produce(p, 'sensor-a', 'plant/a/humidity', 50);
    await waitUntil(() => seen.length === 3, 'three messages');
    await delay(100);
    expect(seen.map((s) => [s.topic, s.payload, s.from, s.origin])).toEqual([
      ['plant/a/temp', 20, 'sensor-a', 'socket.io'],
      ['Plant/b/temp', 21, 'dev-9', 'mqtt'],
      ['plant/c/temp', 22, 'switchboard', 'local'],
    ]);
    expect(seen[1]).toMatchObject({ realm: 'default', durable: true });
  });

  it('is scoped to its realm, stops after unsubscribe, and survives a throwing handler', async () => {
    const broker = ctx.h.broker;
    const seen: string[] = [];
    const handler = (m: BrokerMessage) => {
      seen.push(`${m.realm}:${m.topic}`);
      throw new Error('handler bug');
    };
    broker.subscribe('#', handler, { realm: 'north' });
    await broker.publish({ topic: 'a', realm: 'south' });
    await broker.publish({ topic: 'b', realm: 'north' });
    await waitUntil(() => seen.length === 1, 'one message');
    broker.unsubscribe('#', handler, { realm: 'north' });
    await broker.publish({ topic: 'c', realm: 'north' });
    await delay(100);
    expect(seen).toEqual(['north:b']);
  });
});

describe('typed events', () => {
  it('client, publish, subscribe, unsubscribe, ack and clientDisconnect for socket.io', async () => {
    const broker = ctx.h.broker;
    const log: string[] = [];
    const who = (c: BrokerClient) => `${c.protocol}/${c.realm}/${c.role}`;
    broker.on('client', (c) => log.push(`client ${who(c)}`));
    broker.on('clientDisconnect', (c) => log.push(`gone ${who(c)}`));
    broker.on('publish', (m, c) => log.push(`publish ${m.topic} ${c ? who(c) : 'local'}`));
    broker.on('subscribe', (subs, c) =>
      log.push(`subscribe ${subs[0]!.topic}/${subs[0]!.qos} ${who(c)}`),
    );
    broker.on('unsubscribe', (topics) => log.push(`unsubscribe ${topics.join()}`));
    broker.on('ack', (a) => log.push(`ack ${a.realm}`));

    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'p1', 'job', { ack: true });
    const p = await ctx.h.producer('p1');
    const delivered = new Promise<{ msgId: string }>((resolve) =>
      c.once(consumeEvent('p1-job'), resolve),
    );
    produce(p, 'p1', 'job', 1);
    const { msgId } = await delivered;
    await c.emitWithAck('ACK', { msgId });
    c.emit('UNSUBSCRIBE', { event: 'job', producer: 'p1' });
    await sync(c);
    c.disconnect();
    await waitUntil(() => log.some((l) => l.startsWith('gone')), 'disconnect event');
    expect(log).toEqual([
      'client socket.io/default/both',
      'subscribe job/1 socket.io/default/both',
      'client socket.io/default/both',
      'publish job socket.io/default/both',
      'ack default',
      'unsubscribe job',
      'gone socket.io/default/both',
    ]);
  });

  it('client, subscribe, publish, ack, unsubscribe, clientDisconnect for MQTT; closed', async () => {
    const broker = ctx.h.broker;
    const log: string[] = [];
    broker.on('client', (c) => log.push(`client ${c.protocol} ${c.id}`));
    broker.on('subscribe', (subs, c) =>
      log.push(`subscribe ${subs[0]!.topic}/${subs[0]!.qos} ${c.id}`),
    );
    broker.on('publish', (m, c) => log.push(`publish ${m.topic} ${String(m.payload)} ${c?.id}`));
    broker.on('ack', (a, c) => log.push(`ack ${a.realm} ${typeof a.msgId} ${c.id}`));
    broker.on('unsubscribe', (topics, c) => log.push(`unsubscribe ${topics.join()} ${c.id}`));
    broker.on('clientDisconnect', (c) => log.push(`gone ${c.id}`));
    const m = await mqttClient(ctx.h, { clientId: 'dev-1' });
    await m.subscribeAsync('news/#', { qos: 1 });
    const got = new Promise((resolve) => m.once('message', resolve));
    await m.publishAsync('news/today', 'hi', { qos: 1 });
    await got;
    await waitUntil(() => log.some((l) => l.startsWith('ack')), 'ack event');
    await m.unsubscribeAsync('news/#');
    await m.endAsync();
    await waitUntil(() => log.some((l) => l.startsWith('gone')), 'disconnect event');
    expect(log).toEqual([
      'client mqtt dev-1',
      'subscribe news/#/1 dev-1',
      'publish news/today hi dev-1',
      'ack default string dev-1',
      'unsubscribe news/# dev-1',
      'gone dev-1',
    ]);
    let closed = 0;
    broker.on('closed', () => closed++);
    await ctx.h.close();
    expect(closed).toBe(1);
  });

  it('a throwing event listener does not break the broker', async () => {
    const broker = ctx.h.broker;
    broker.on('publish', () => {
      throw new Error('listener bug');
    });
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'p1', 'e');
    const got = new Promise((resolve) => c.once(consumeEvent('p1-e'), resolve));
    const p = await ctx.h.producer('p1');
    produce(p, 'p1', 'e', 'still here');
    expect(await got).toMatchObject({ message: 'still here' });
  });
});
