/**
 * Subscription Identifiers on overlapping subscriptions (issue 24; MQTT 5.0 §3.3.4,
 * [MQTT-3.3.4-2..5]): a client whose subscriptions overlap gets ONE PUBLISH per message (as
 * Mosquitto sends), carrying the identifier of every matching subscription that has one, at the
 * highest QoS those subscriptions granted. A subscription without an identifier contributes
 * none; another client's identifiers never leak. aedes 2.0.0-beta.1 echoed one identifier only.
 */
import type { IClientSubscribeOptions, MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import { produce, useBroker } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting } from '../../helpers/mqtt-clients';
import { expectNothing } from '../../helpers/wait';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } } as never);

interface Got {
  text: string;
  qos: number;
  ids: number[] | undefined;
}

/** The next PUBLISH `client` gets, with its Subscription Identifiers as an array. */
async function next(client: MqttClient): Promise<Got> {
  const [, payload, packet] = await new Promise<
    [string, Buffer, { qos: number; properties?: { subscriptionIdentifier?: number | number[] } }]
  >((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no MQTT message')), 3_000);
    client.once('message', (...args) => {
      clearTimeout(timer);
      resolve(args as never);
    });
  });
  const si = packet.properties?.subscriptionIdentifier;
  return {
    text: payload.toString(),
    qos: packet.qos,
    ids: si === undefined ? undefined : [si].flat().sort((a, b) => a - b),
  };
}

async function sub(
  client: MqttClient,
  filter: string,
  id: number | undefined,
  qos: 0 | 1 | 2 = 1,
): Promise<void> {
  const opts: IClientSubscribeOptions = { qos };
  if (id !== undefined) opts.properties = { subscriptionIdentifier: id };
  await client.subscribeAsync(filter, opts);
}

const v5 = () => mqttClient(ctx.h, { protocolVersion: 5 });

describe('overlapping subscriptions of one MQTT 5 client', () => {
  it('topic/# id 2 and topic/+ id 3: one PUBLISH carrying 2 and 3', async () => {
    const c = await v5();
    await sub(c, 'topic/#', 2);
    await sub(c, 'topic/+', 3);
    const pub = await v5();
    const got = next(c);
    await pub.publishAsync('topic/x', 'm', { qos: 1 });
    expect(await got).toEqual({ text: 'm', qos: 1, ids: [2, 3] });
    await expectNothing(c, 'message');
    // Only one of them matches topic/x/y.
    const deeper = next(c);
    await pub.publishAsync('topic/x/y', 'n', { qos: 1 });
    expect(await deeper).toEqual({ text: 'n', qos: 1, ids: [2] });
  });

  it('three overlapping, one without an identifier: only the others’ identifiers', async () => {
    const c = await v5();
    await sub(c, 'a/#', undefined);
    await sub(c, 'a/+', 7);
    await sub(c, 'a/b', 11);
    const pub = await v5();
    const got = next(c);
    await pub.publishAsync('a/b', 'm', { qos: 1 });
    expect(await got).toEqual({ text: 'm', qos: 1, ids: [7, 11] });
    await expectNothing(c, 'message');
    const none = next(c);
    await pub.publishAsync('a/b/c', 'n', { qos: 1 });
    expect(await none).toEqual({ text: 'n', qos: 1, ids: undefined });
  });

  it('at the highest granted QoS of the matching subscriptions, whichever came first', async () => {
    const c = await v5();
    await sub(c, 'q/#', 1, 0);
    await sub(c, 'q/+', 2, 1);
    const d = await v5();
    await sub(d, 'q/+', 3, 1);
    await sub(d, 'q/#', 4, 0);
    const pub = await v5();
    const atC = next(c);
    const atD = next(d);
    await pub.publishAsync('q/x', 'm', { qos: 2 });
    expect(await atC).toEqual({ text: 'm', qos: 1, ids: [1, 2] });
    expect(await atD).toEqual({ text: 'm', qos: 1, ids: [3, 4] });
    await Promise.all([expectNothing(c, 'message'), expectNothing(d, 'message')]);
  });

  it('a wildcard QoS 1 subscription caps a QoS 2 message at QoS 1', async () => {
    const c = await v5();
    await sub(c, 'w/#', 5, 1);
    const pub = await v5();
    const got = next(c);
    await pub.publishAsync('w/x', 'm', { qos: 2 });
    expect(await got).toEqual({ text: 'm', qos: 1, ids: [5] });
  });
});

describe('identifiers stay with their client', () => {
  it('another client’s overlapping subscription adds nothing to this one’s PUBLISH', async () => {
    const c = await v5();
    await sub(c, 's/+', 1);
    const other = await v5();
    await sub(other, 's/#', 9);
    await sub(other, 's/x', 10);
    const pub = await v5();
    const atC = next(c);
    const atOther = next(other);
    await pub.publishAsync('s/x', 'm', { qos: 0 });
    expect(await atC).toEqual({ text: 'm', qos: 0, ids: [1] });
    expect(await atOther).toEqual({ text: 'm', qos: 0, ids: [9, 10] });
  });

  it('a message from a tyo-mq producer gets the identifiers too', async () => {
    const c = await v5();
    await sub(c, 'b/#', 21);
    await sub(c, 'b/+', 22);
    const producer = await ctx.h.producer('p1');
    const got = next(c);
    produce(producer, 'p1', 'b/x', 'from-io');
    expect(await got).toEqual({ text: 'from-io', qos: 1, ids: [21, 22] });
    await expectNothing(c, 'message');
  });
});

describe('a persistent session’s queue', () => {
  it('a message queued while away over two subscriptions: once, with both identifiers', async () => {
    const session = {
      protocolVersion: 5 as const,
      clientId: 'si-away',
      clean: false,
      properties: { sessionExpiryInterval: 600 },
    };
    const c = await mqttClient(ctx.h, session);
    await sub(c, 'o/#', 31);
    await sub(c, 'o/+', 32);
    await c.endAsync();
    const pub = await v5();
    await pub.publishAsync('o/x', 'queued', { qos: 1 });
    const again = mqttConnecting(ctx.h, session);
    const got = next(again);
    expect(await got).toEqual({ text: 'queued', qos: 1, ids: [31, 32] });
    await expectNothing(again, 'message');
  });
});
