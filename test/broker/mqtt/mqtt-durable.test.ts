/**
 * MQTT listener (issue 14): MQTT publishes reach durable and ACK tyo-mq topic subscriptions, and
 * an MQTT persistent session (clean: false) gets its QoS 1 backlog after reconnecting.
 */
import { describe, expect, it } from 'vitest';
import {
  anyProducerKey,
  consumeEvent,
  type DeliveryEnvelope,
} from '../../../shared/protocol-events';
import { produce, subscribe, sync, useBroker } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { collect, delay, waitFor } from '../../helpers/wait';

const ctx = useBroker({ default_ttl: 60, mqtt: { enabled: true, port: 0 } });
const EVENT = consumeEvent(anyProducerKey('jobs/#'));

describe('MQTT → durable / ACK tyo-mq subscriptions', () => {
  it('stores QoS 1 publishes for an offline durable topic subscriber and replays them in order', async () => {
    const first = await ctx.h.consumer('w1');
    await subscribe(first, 'w1', 'TYO-MQ-ALL', 'jobs/#', { mode: 'topic', durable: true });
    first.disconnect();
    await delay(50);
    const m = await mqttClient(ctx.h, { clientId: 'plc' });
    for (let i = 0; i < 3; i++) await m.publishAsync('jobs/a', JSON.stringify(i), { qos: 1 });
    const back = await ctx.h.consumer('w1');
    const got = collect<DeliveryEnvelope>(back, EVENT, 3);
    await subscribe(back, 'w1', 'TYO-MQ-ALL', 'jobs/#', { mode: 'topic', durable: true });
    const envelopes = await got;
    expect(envelopes.map((e) => e.message)).toEqual([0, 1, 2]);
    expect(envelopes[0]).toMatchObject({ event: 'jobs/a', from: 'plc' });
  });

  it('delivers reliably (msgId) to an ACK topic subscriber', async () => {
    const c = await ctx.h.consumer('w1');
    await subscribe(c, 'w1', 'TYO-MQ-ALL', 'jobs/#', { mode: 'topic', ack: true });
    const got = waitFor<DeliveryEnvelope>(c, EVENT);
    const m = await mqttClient(ctx.h);
    await m.publishAsync('jobs/b', '"x"', { qos: 1 });
    const env = await got;
    expect(env).toMatchObject({ event: 'jobs/b', message: 'x', delivery_attempt: 1 });
    expect(typeof env.msgId).toBe('string');
  });
});

describe('MQTT persistent session', () => {
  it('delivers QoS 1 messages published while the subscriber was away, after it reconnects', async () => {
    const opts = { clientId: 'keeper', clean: false } as const;
    const first = await mqttClient(ctx.h, opts);
    await first.subscribeAsync('alerts/#', { qos: 1 });
    await first.endAsync();
    const p = await ctx.h.producer('ops');
    produce(p, 'ops', 'alerts/1', 'one');
    produce(p, 'ops', 'alerts/2', 'two');
    await sync(p);
    const pub = await mqttClient(ctx.h);
    await pub.publishAsync('alerts/3', 'three', { qos: 1 });
    const seen: string[] = [];
    const second = await mqttClient(ctx.h, {
      ...opts,
      // Listen before CONNACK: the backlog follows it at once.
    });
    second.on('message', (t, payload) => seen.push(`${t}=${payload.toString()}`));
    for (let i = 0; i < 100 && seen.length < 3; i++) await delay(20);
    expect(seen).toEqual(['alerts/1=one', 'alerts/2=two', 'alerts/3=three']);
  });
});
