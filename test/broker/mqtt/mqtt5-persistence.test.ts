/**
 * MQTT 5 state on the SQLite store across a broker restart (issue 14): a session kept by its
 * Session Expiry Interval comes back with its backlog, and queued and retained messages keep
 * their MQTT 5 properties (binary correlation data included).
 */
import type { IPublishPacket } from 'mqtt';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { useRestartingBrokers } from '../../helpers/mqtt-restarts';

const brokers = useRestartingBrokers('mqtt5.sqlite');
const broker = (): Promise<Harness> => brokers.start();
const stop = (h: Harness): Promise<void> => brokers.stop(h);

const properties = {
  userProperties: { trace: 't-1' },
  contentType: 'application/json',
  responseTopic: 'rpc/reply',
  correlationData: Buffer.from([0, 1, 2, 255]),
};

function expectProperties(packet: IPublishPacket): void {
  expect(packet.properties).toMatchObject({
    userProperties: { trace: 't-1' },
    contentType: 'application/json',
    responseTopic: 'rpc/reply',
  });
  expect(Buffer.from(packet.properties?.correlationData ?? [])).toEqual(properties.correlationData);
}

describe('MQTT 5 state across a restart', () => {
  it('restores a session with its queued message and the message properties', async () => {
    const h1 = await broker();
    const opts = {
      protocolVersion: 5 as const,
      clientId: 'v5-keeper',
      clean: false,
      properties: { sessionExpiryInterval: 3600 },
    };
    const first = await mqttClient(h1, opts);
    await first.subscribeAsync('jobs/#', { qos: 1 });
    await first.endAsync();
    const p = await mqttClient(h1, { protocolVersion: 5 });
    await p.publishAsync('jobs/1', '{"n":1}', { qos: 1, properties });
    await stop(h1);

    const h2 = await broker();
    const again = mqttConnecting(h2, { ...opts, clean: false });
    const got = new Promise<IPublishPacket>((resolve) =>
      again.once('message', (_t, _p, packet) => resolve(packet)),
    );
    expect(await sessionPresent(again)).toBe(true);
    const packet = await got;
    expect(packet.topic).toBe('jobs/1');
    expectProperties(packet);
  });

  it('restores a retained message with its properties', async () => {
    const h1 = await broker();
    const p = await mqttClient(h1, { protocolVersion: 5 });
    await p.publishAsync('cfg/x', '{"on":true}', { qos: 1, retain: true, properties });
    await stop(h1);

    const h2 = await broker();
    const s = await mqttClient(h2, { protocolVersion: 5 });
    const got = new Promise<IPublishPacket>((resolve) =>
      s.once('message', (_t, _p, packet) => resolve(packet)),
    );
    await s.subscribeAsync('cfg/#', { qos: 1 });
    const packet = await got;
    expect(packet.retain).toBe(true);
    expectProperties(packet);
  });
});
