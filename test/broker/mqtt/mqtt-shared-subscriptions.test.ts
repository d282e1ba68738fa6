/**
 * MQTT shared subscriptions (issue 24; MQTT 5.0 §4.8.2) mapped onto consumer groups: one member
 * per message, round-robin (5/5 for 10 messages), non-shared subscribers unaffected, tyo-mq
 * group members in the same group, `$share` rules (0x8F / 0x80, No Local 0x82, no retained),
 * CONNACK Shared Subscription Available, rebalancing and QoS 1 redelivery on a lost member.
 */
import { describe, expect, it } from 'vitest';
import type { IClientSubscribeOptions, MqttClient } from 'mqtt';
import type { Packet } from 'mqtt-packet';
import { anyProducerKey, consumeEvent } from '../../../shared/protocol-events';
import { produce, record, subscribe, useBroker } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting } from '../../helpers/mqtt-clients';
import { rawConnected } from '../../helpers/mqtt-raw';
import { delay, QUIET_MS, waitUntil } from '../../helpers/wait';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } });

/** Payload texts a client receives, in order. */
function received(m: MqttClient): string[] {
  const out: string[] = [];
  m.on('message', (_t, payload) => out.push(payload.toString('utf8')));
  return out;
}

/** The SUBACK codes of one SUBSCRIBE (refusals included). */
function subackCodes(
  m: MqttClient,
  topics: Record<string, IClientSubscribeOptions>,
): Promise<number[]> {
  return new Promise((resolve) => {
    const onPacket = (packet: Packet): void => {
      if (packet.cmd !== 'suback') return;
      m.off('packetreceive', onPacket);
      resolve(packet.granted as number[]);
    };
    m.on('packetreceive', onPacket);
    m.subscribe(topics, () => undefined);
  });
}

async function settled(lists: string[][], total: number): Promise<void> {
  await waitUntil(() => lists.reduce((n, l) => n + l.length, 0) >= total, `${total} copies`);
  await delay(QUIET_MS); // and no more than that
}

describe('MQTT shared subscriptions', () => {
  it('advertises Shared Subscription Available = 1 in an MQTT 5 CONNACK', async () => {
    const m = mqttConnecting(ctx.h, { protocolVersion: 5 });
    const ack = await new Promise<{ properties?: Record<string, unknown> }>((resolve) =>
      m.once('connect', resolve),
    );
    expect(ack.properties?.sharedSubscriptionAvailable).toBe(true);
  });

  it('splits 10 MQTT publishes 5/5 between two members; a plain subscriber gets all 10', async () => {
    const a = await mqttClient(ctx.h, { protocolVersion: 5, clientId: 'a' });
    const b = await mqttClient(ctx.h, { protocolVersion: 4, clientId: 'b' });
    const plain = await mqttClient(ctx.h, { protocolVersion: 5, clientId: 'plain' });
    expect(await subackCodes(a, { '$share/g1/sensors/+': { qos: 1 } })).toEqual([1]);
    expect(await subackCodes(b, { '$share/g1/sensors/+': { qos: 1 } })).toEqual([1]);
    await plain.subscribeAsync('sensors/+', { qos: 1 });
    const [ra, rb, rp] = [received(a), received(b), received(plain)];
    const pub = await mqttClient(ctx.h, { protocolVersion: 5 });
    for (let i = 0; i < 10; i++) await pub.publishAsync('sensors/t', `m${i}`, { qos: 1 });
    await settled([ra, rb], 10);
    await waitUntil(() => rp.length >= 10, 'the plain subscriber has all 10');
    expect([ra.length, rb.length]).toEqual([5, 5]);
    expect([...ra, ...rb].sort()).toEqual(rp.slice().sort());
    expect(rp).toHaveLength(10);
  });

  it('shares a group between MQTT members and a socket.io tyo-mq consumer (3/3/3)', async () => {
    const a = await mqttClient(ctx.h, { protocolVersion: 5 });
    const b = await mqttClient(ctx.h, { protocolVersion: 4 });
    await subackCodes(a, { '$share/g1/jobs/#': { qos: 1 } });
    await subackCodes(b, { '$share/g1/jobs/#': { qos: 1 } });
    const c = await ctx.h.consumer('worker');
    await subscribe(c, 'worker', 'TYO-MQ-ALL', 'jobs/#', { mode: 'topic', group: 'g1' });
    const rc = record(c);
    const event = consumeEvent(anyProducerKey('jobs/#'));
    const [ra, rb] = [received(a), received(b)];
    const texts = (): string[] =>
      rc.of(event).map((e) => String((e as { message: unknown }).message));
    const pub = await mqttClient(ctx.h, { protocolVersion: 5 });
    for (let i = 0; i < 6; i++) await pub.publishAsync('jobs/x', `m${i}`, { qos: 1 });
    const p = await ctx.h.producer('boss');
    for (let i = 6; i < 9; i++) produce(p, 'boss', 'jobs/y', `m${i}`);
    await waitUntil(() => ra.length + rb.length + rc.of(event).length >= 9, '9 copies');
    await delay(QUIET_MS);
    expect([ra.length, rb.length, rc.of(event).length]).toEqual([3, 3, 3]);
    expect([...ra, ...rb, ...texts()].sort()).toEqual(
      Array.from({ length: 9 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('refuses an invalid ShareName: 0x8F in MQTT 5, 0x80 in 3.1.1; mixed packets keep order', async () => {
    // Raw packets: MQTT.js refuses these filters before sending them.
    const suback = async (version: 4 | 5, topics: string[]): Promise<number[]> => {
      const raw = await rawConnected(ctx.h, `raw-${version}`, { protocolVersion: version });
      raw.send({
        cmd: 'subscribe',
        messageId: 7,
        subscriptions: topics.map((topic) => ({ topic, qos: 1 })),
      } as Packet);
      await raw.until((seen) => seen.some((x) => x.cmd === 'suback'), 'SUBACK');
      return raw.of<{ granted: number[] }>('suback')[0]!.granted;
    };
    expect(
      await suback(5, [
        'ok/1',
        '$share/g+1/x',
        '$share//x',
        '$share/g1',
        '$share/g1/a#',
        '$share/g1/y',
      ]),
    ).toEqual([1, 0x8f, 0x8f, 0x8f, 0x8f, 1]);
    expect(await suback(4, ['$share/g#/x', 'ok/2', '$share/g1/z'])).toEqual([0x80, 1, 1]);
  });

  it('sends no retained message to a shared subscription on SUBSCRIBE', async () => {
    const pub = await mqttClient(ctx.h, { protocolVersion: 5 });
    await pub.publishAsync('state/door', 'open', { qos: 1, retain: true });
    const plain = await mqttClient(ctx.h, { protocolVersion: 5 });
    const rp = received(plain);
    await plain.subscribeAsync('state/+', { qos: 1 });
    await waitUntil(() => rp.length === 1, 'the plain subscriber got the retained message');
    const m = await mqttClient(ctx.h, { protocolVersion: 5 });
    const rm = received(m);
    expect(await subackCodes(m, { '$share/g1/state/+': { qos: 1 } })).toEqual([1]);
    await delay(QUIET_MS);
    expect(rm).toEqual([]);
    await pub.publishAsync('state/door', 'closed', { qos: 1 });
    await waitUntil(() => rm.length === 1, 'the live message');
    expect(rm).toEqual(['closed']);
  });

  it('closes an MQTT 5 client with DISCONNECT 0x82 for No Local on a shared subscription', async () => {
    const m = await mqttClient(ctx.h, { protocolVersion: 5 });
    const reason = new Promise<number>((resolve) =>
      m.once('disconnect', (packet) => resolve(packet.reasonCode ?? -1)),
    );
    m.subscribe('$share/g1/x', { qos: 1, nl: true });
    expect(await reason).toBe(0x82);
  });

  it('rebalances on leave, join and UNSUBSCRIBE', async () => {
    const a = await mqttClient(ctx.h, { protocolVersion: 5 });
    const b = await mqttClient(ctx.h, { protocolVersion: 5 });
    await subackCodes(a, { '$share/g1/r/#': { qos: 1 } });
    await subackCodes(b, { '$share/g1/r/#': { qos: 1 } });
    const ra = received(a);
    const pub = await mqttClient(ctx.h, { protocolVersion: 5 });
    await b.endAsync();
    await waitUntil(() => ctx.h.broker.status().connectionsCurrent === 2, 'b is gone');
    for (let i = 0; i < 4; i++) await pub.publishAsync('r/x', `m${i}`, { qos: 1 });
    await settled([ra], 4);
    expect(ra).toHaveLength(4);
    const c = await mqttClient(ctx.h, { protocolVersion: 4 });
    await subackCodes(c, { '$share/g1/r/#': { qos: 1 } });
    const rc = received(c);
    for (let i = 4; i < 8; i++) await pub.publishAsync('r/x', `m${i}`, { qos: 1 });
    await settled([ra, rc], 8);
    expect([ra.length, rc.length]).toEqual([6, 2]);
    await a.unsubscribeAsync('$share/g1/r/#');
    for (let i = 8; i < 10; i++) await pub.publishAsync('r/x', `m${i}`, { qos: 1 });
    await settled([ra, rc], 10);
    expect([ra.length, rc.length]).toEqual([6, 4]);
  });

  it('sends a QoS 1 copy left without PUBACK by a lost member to another member', async () => {
    // An ack handler that never answers: MQTT.js sends no PUBACK.
    const silent = await mqttClient(ctx.h, {
      protocolVersion: 5,
      customHandleAcks: () => undefined,
    });
    const seen: string[] = [];
    silent.on('packetreceive', (p: Packet) => {
      if (p.cmd === 'publish') seen.push(p.payload.toString());
    });
    await subackCodes(silent, { '$share/g1/w/#': { qos: 1 } });
    const other = await mqttClient(ctx.h, { protocolVersion: 4 });
    await subackCodes(other, { '$share/g1/w/#': { qos: 1 } });
    const ro = received(other);
    const pub = await mqttClient(ctx.h, { protocolVersion: 5 });
    await pub.publishAsync('w/1', 'first', { qos: 1 });
    await pub.publishAsync('w/1', 'second', { qos: 1 });
    await waitUntil(() => seen.length === 1 && ro.length === 1, 'one copy each');
    silent.stream.destroy();
    await waitUntil(() => ro.length === 2, 'the lost copy redelivered');
    expect(ro.sort()).toEqual(['first', 'second']);
    expect(seen).toHaveLength(1);
  });
});
