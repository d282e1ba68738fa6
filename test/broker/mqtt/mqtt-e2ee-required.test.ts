/**
 * The realm E2EE policy for MQTT (`spec/protocol-extensions.md` §2.6 with Note 2-E's shape;
 * docs/mqtt.md "End-to-end encrypted realms"): with MQTT.js clients on a real broker, a
 * `required` realm refuses a cleartext PUBLISH (MQTT 5 PUBACK 0x87 with the §2.6 text) and
 * delivers the encrypted message shape to MQTT and socket.io subscribers alike; the embedding's
 * in-process `publish` follows the same rule.
 */
import { describe, expect, it } from 'vitest';
import { subscribe, useBroker, type BrokerSettings } from '../../helpers/broker-harness';
import { mqttClient, nextMessage } from '../../helpers/mqtt-clients';
import type { Packet } from 'mqtt-packet';
import { rawConnected } from '../../helpers/mqtt-raw';
import { waitFor } from '../../helpers/wait';
import { anyProducerKey, consumeEvent } from '../../../shared/protocol-events';

const ctx = useBroker({
  mqtt: { enabled: true, port: 0 },
  auth: { realms: { default: { e2ee: 'required' } } },
} as BrokerSettings);

const ENCRYPTED = JSON.stringify({
  enc: { alg: 'ecdh-es-p256-a256gcm', kid: 'dev-1-enc' },
  message: 'Q0lQSEVSVEVYVA==',
});

function publish(
  client: Awaited<ReturnType<typeof mqttClient>>,
  topic: string,
  payload: string,
): Promise<Error | undefined> {
  return new Promise((resolve) =>
    client.publish(topic, payload, { qos: 1 }, (err) => resolve(err ?? undefined)),
  );
}

describe('MQTT PUBLISH into a realm with e2ee required', () => {
  it('refuses cleartext with 0x87 and delivers the encrypted shape to both transports', async () => {
    const sub = await mqttClient(ctx.h, { protocolVersion: 5 });
    await sub.subscribeAsync('e2e/#', { qos: 1 });
    const tyo = await ctx.h.consumer('tyo-sub');
    await subscribe(tyo, 'tyo-sub', 'TYO-MQ-ALL', 'e2e/#', { mode: 'topic' });
    const tyoEvent = consumeEvent(anyProducerKey('e2e/#'));
    const device = await mqttClient(ctx.h, { protocolVersion: 5 });
    // Listening before the refused publishes: one of them leaking would arrive first.
    const arrived = nextMessage(sub, 10_000);
    const tyoGot = waitFor<{ message: unknown }>(tyo, tyoEvent);

    for (const cleartext of ['hello', '{"message":"hi"}', '{"enc":{},"message":"x"}']) {
      const err = (await publish(device, 'e2e/a', cleartext)) as Error & { code?: number };
      expect(err?.code).toBe(0x87);
    }
    expect(await publish(device, 'e2e/a', ENCRYPTED)).toBeUndefined();
    expect((await arrived).text).toBe(ENCRYPTED);
    expect((await tyoGot).message).toEqual(JSON.parse(ENCRYPTED));
    for (const c of [sub, device]) await c.endAsync();
  });

  it('gives the §2.6 text as the PUBACK Reason String', async () => {
    const raw = await rawConnected(ctx.h, 'rpi-e2ee', { protocolVersion: 5 });
    raw.send({
      cmd: 'publish',
      topic: 'e2e/b',
      payload: Buffer.from('x'),
      qos: 1,
      messageId: 7,
    } as Packet);
    await raw.until((seen) => seen.some((p) => p.cmd === 'puback'), 'PUBACK');
    expect(raw.seen.find((p) => p.cmd === 'puback')).toMatchObject({
      messageId: 7,
      reasonCode: 0x87,
      properties: { reasonString: "Realm 'default' requires end-to-end encrypted messages" },
    });
  });

  it('in-process publish: cleartext rejects with SWB_ERR_E2EE_REQUIRED, the encrypted shape is routed', async () => {
    const sub = await mqttClient(ctx.h, { protocolVersion: 5 });
    await sub.subscribeAsync('e2e/#', { qos: 1 });
    const arrived = nextMessage(sub, 10_000);
    await expect(ctx.h.broker.publish({ topic: 'e2e/c', payload: 'hello' })).rejects.toMatchObject({
      code: 'SWB_ERR_E2EE_REQUIRED',
      message: "Realm 'default' requires end-to-end encrypted messages",
    });
    await expect(
      ctx.h.broker.publish({ topic: 'e2e/c', payload: JSON.parse(ENCRYPTED) as object }),
    ).resolves.toEqual({ msgIds: [] });
    expect((await arrived).text).toBe(ENCRYPTED);
    await sub.endAsync();
  });
});
