/**
 * MQTT listener (issue 14): cross-protocol routing both ways, payload mapping, case rule, no
 * loops, realm scoping of topics hidden from clients, QoS 0/1, retained and will messages.
 */
import { describe, expect, it } from 'vitest';
import { anyProducerKey, consumeEvent } from '../../../shared/protocol-events';
import { produce, subscribe, useBroker } from '../../helpers/broker-harness';
import { mqttClient, nextMessage } from '../../helpers/mqtt-clients';
import { delay, waitFor } from '../../helpers/wait';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } });

const topicEvent = (pattern: string): string => consumeEvent(anyProducerKey(pattern));

describe('MQTT → tyo-mq', () => {
  it('delivers an MQTT PUBLISH to a topic subscriber, JSON decoded, from = client id', async () => {
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'sensors/+/temp', { mode: 'topic' });
    const got = waitFor(c, topicEvent('sensors/+/temp'));
    const m = await mqttClient(ctx.h, { clientId: 'dev-1' });
    await m.publishAsync('Sensors/Kitchen/temp', JSON.stringify({ c: 21.5 }), { qos: 1 });
    expect(await got).toMatchObject({
      event: 'Sensors/Kitchen/temp',
      message: { c: 21.5 },
      from: 'dev-1',
    });
  });

  it('maps non-JSON text to a string and non-UTF-8 bytes to base64 with enc', async () => {
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'raw/#', { mode: 'topic' });
    const m = await mqttClient(ctx.h);
    const first = waitFor(c, topicEvent('raw/#'));
    m.publish('raw/text', 'hello world');
    expect(await first).toMatchObject({ message: 'hello world' });
    const second = waitFor(c, topicEvent('raw/#'));
    m.publish('raw/bin', Buffer.from([0xff, 0xfe, 0x00]));
    expect(await second).toMatchObject({ message: '//4A', enc: 'base64' });
  });
});

describe('tyo-mq → MQTT', () => {
  it('delivers a PRODUCE to a matching MQTT filter, topic as produced, JSON as text', async () => {
    const m = await mqttClient(ctx.h);
    await m.subscribeAsync('fleet/+/cmd', { qos: 1 });
    const got = nextMessage(m);
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'fleet/truck-7/cmd', { op: 'stop' });
    const msg = await got;
    expect(msg.topic).toBe('fleet/truck-7/cmd');
    expect(JSON.parse(msg.text)).toEqual({ op: 'stop' });
  });

  it('is case-sensitive on the MQTT side: Fleet/x does not match fleet/#', async () => {
    const m = await mqttClient(ctx.h);
    await m.subscribeAsync('fleet/#');
    const seen: string[] = [];
    m.on('message', (t) => seen.push(t));
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'Fleet/x', 'no');
    produce(p, 'fleet', 'fleet/x', 'yes');
    await waitForLength(seen, 1);
    await delay(100);
    expect(seen).toEqual(['fleet/x']);
  });

  it('never loops: an MQTT subscriber gets its own realm publish exactly once', async () => {
    const m = await mqttClient(ctx.h);
    await m.subscribeAsync('loop/#', { qos: 1 });
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'loop/#', { mode: 'topic' });
    const seen: string[] = [];
    m.on('message', (_t, payload) => seen.push(payload.toString()));
    await m.publishAsync('loop/a', 'once', { qos: 1 });
    await waitForLength(seen, 1);
    await delay(150);
    expect(seen).toEqual(['once']);
  });
});

describe('MQTT semantics', () => {
  it('QoS 0 and QoS 1 round trips between MQTT clients', async () => {
    const sub = await mqttClient(ctx.h);
    await sub.subscribeAsync('q/#', { qos: 1 });
    const pub = await mqttClient(ctx.h);
    const q0 = nextMessage(sub);
    await pub.publishAsync('q/zero', 'a', { qos: 0 });
    expect(await q0).toMatchObject({ topic: 'q/zero', text: 'a', qos: 0 });
    const q1 = nextMessage(sub);
    await pub.publishAsync('q/one', 'b', { qos: 1 });
    expect(await q1).toMatchObject({ topic: 'q/one', text: 'b', qos: 1 });
  });

  it('QoS 2 between MQTT clients, capped at the subscription QoS', async () => {
    const sub2 = await mqttClient(ctx.h);
    await sub2.subscribeAsync('q2/x', { qos: 2 });
    const sub1 = await mqttClient(ctx.h);
    await sub1.subscribeAsync('q2/x', { qos: 1 });
    const pub = await mqttClient(ctx.h);
    const got2 = nextMessage(sub2);
    const got1 = nextMessage(sub1);
    await pub.publishAsync('q2/x', 'c', { qos: 2 });
    expect(await got2).toMatchObject({ topic: 'q2/x', text: 'c', qos: 2 });
    expect(await got1).toMatchObject({ topic: 'q2/x', text: 'c', qos: 1 });
  });

  it('delivers a retained message on subscribe, without the realm prefix', async () => {
    const pub = await mqttClient(ctx.h);
    await pub.publishAsync('state/door', 'open', { qos: 1, retain: true });
    const sub = await mqttClient(ctx.h);
    const got = nextMessage(sub);
    await sub.subscribeAsync('state/#');
    expect(await got).toMatchObject({ topic: 'state/door', text: 'open', retain: true });
  });

  it('publishes the will on an abrupt disconnect, to MQTT and tyo-mq subscribers', async () => {
    const c = await ctx.h.consumer('c1');
    await subscribe(c, 'c1', 'TYO-MQ-ALL', 'status/+', { mode: 'topic' });
    const tyo = waitFor(c, topicEvent('status/+'));
    const sub = await mqttClient(ctx.h);
    await sub.subscribeAsync('status/+');
    const got = nextMessage(sub);
    const dying = await mqttClient(ctx.h, {
      clientId: 'dying',
      will: { topic: 'status/dying', payload: Buffer.from('gone'), qos: 1, retain: false },
    });
    (dying.stream as unknown as { destroy(): void }).destroy();
    expect(await got).toMatchObject({ topic: 'status/dying', text: 'gone' });
    expect(await tyo).toMatchObject({ event: 'status/dying', message: 'gone', from: 'dying' });
  });
});

async function waitForLength(list: unknown[], n: number): Promise<void> {
  for (let i = 0; i < 150 && list.length < n; i++) await delay(20);
  expect(list.length).toBeGreaterThanOrEqual(n);
}
