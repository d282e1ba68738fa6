/**
 * The rows of docs/mqtt.md "MQTT 5 feature support" that no other test pins, each against a
 * real listener over raw MQTT 5 packets: the CONNACK's properties, Assigned Client Identifier,
 * enhanced authentication refused (0x8C), Topic Alias out of range (0x94), no Response
 * Information, shared subscriptions granted at most QoS 1, session takeover (0x8E) and
 * shutdown (0x8B).
 */
import { describe, expect, it } from 'vitest';
import type { IConnackPacket, IDisconnectPacket, ISubackPacket, Packet } from 'mqtt-packet';
import { startBroker, useBroker } from '../../helpers/broker-harness';
import { rawConnected, rawMqtt } from '../../helpers/mqtt-raw';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } });

const connect = (clientId: string, properties: Record<string, unknown> = {}): Packet =>
  ({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 5,
    clean: true,
    clientId,
    keepalive: 60,
    properties,
  }) as Packet;

const connackOf = (seen: Packet[]) => seen.find((p) => p.cmd === 'connack') as IConnackPacket;
const disconnectOf = (seen: Packet[]) =>
  seen.find((p) => p.cmd === 'disconnect') as IDisconnectPacket | undefined;

describe('CONNACK [MQTT 5.0 §3.2.2.3]', () => {
  it('advertises the limits, assigns a client id to an empty one, sends no Response Information', async () => {
    const raw = await rawMqtt(ctx.h, 5);
    raw.send(connect('', { requestResponseInformation: true }));
    await raw.until((s) => s.some((p) => p.cmd === 'connack'), 'CONNACK');
    const ack = connackOf(raw.seen);
    expect(ack.reasonCode).toBe(0);
    expect(ack.properties).toMatchObject({
      receiveMaximum: 1000,
      topicAliasMaximum: 16,
      sharedSubscriptionAvailable: true,
    });
    // Maximum Packet Size is the whole packet: max_packet_size of remaining length + header.
    expect(ack.properties?.maximumPacketSize).toBeGreaterThan(1_048_576);
    expect(ack.properties?.assignedClientIdentifier).toMatch(/^aedes_[0-9a-f-]{36}$/);
    expect(ack.properties?.responseInformation).toBeUndefined();
    expect(ack.properties?.serverKeepAlive).toBeUndefined();
  });

  it('a CONNECT with an Authentication Method gets 0x8C, then the close', async () => {
    const raw = await rawMqtt(ctx.h, 5);
    raw.send(connect('scram', { authenticationMethod: 'SCRAM-SHA-1' }));
    await raw.closed;
    expect(connackOf(raw.seen)).toMatchObject({ reasonCode: 0x8c });
  });
});

describe('Topic Alias, client → server [MQTT 5.0 §3.3.2.3.4]', () => {
  it.each([0, 17])('alias %i gets DISCONNECT 0x94 "Topic Alias invalid"', async (topicAlias) => {
    const raw = await rawConnected(ctx.h, `alias-${topicAlias}`, { protocolVersion: 5 });
    raw.send({
      cmd: 'publish',
      topic: 'a/b',
      payload: Buffer.from('x'),
      qos: 0,
      retain: false,
      dup: false,
      properties: { topicAlias },
    } as Packet);
    await raw.closed;
    expect(disconnectOf(raw.seen)).toMatchObject({ reasonCode: 0x94 });
  });
});

describe('shared subscriptions [MQTT 5.0 §4.8.2]', () => {
  it('a QoS 2 $share filter is granted QoS 1', async () => {
    const raw = await rawConnected(ctx.h, 'share-q2', { protocolVersion: 5 });
    raw.send({
      cmd: 'subscribe',
      messageId: 7,
      subscriptions: [{ topic: '$share/g/ft/#', qos: 2, nl: false, rap: false, rh: 0 }],
    } as Packet);
    await raw.until((s) => s.some((p) => p.cmd === 'suback'), 'SUBACK');
    expect(raw.of<ISubackPacket>('suback')[0]?.granted).toEqual([1]);
  });
});

describe('server DISCONNECTs', () => {
  it('a second connection with the same client id takes over: 0x8E to the first', async () => {
    const first = await rawConnected(ctx.h, 'takeover', { protocolVersion: 5 });
    const second = await rawConnected(ctx.h, 'takeover', { protocolVersion: 5 });
    await first.closed;
    expect(disconnectOf(first.seen)).toMatchObject({ reasonCode: 0x8e });
    expect(connackOf(second.seen).reasonCode).toBe(0);
    expect(second.socket.destroyed).toBe(false);
  });

  it('closing the broker sends its MQTT 5 clients DISCONNECT 0x8B "Server shutting down"', async () => {
    const h = await startBroker({ mqtt: { enabled: true, port: 0 } });
    try {
      const raw = await rawConnected(h, 'bye', { protocolVersion: 5 });
      await h.broker.close();
      await raw.closed;
      expect(disconnectOf(raw.seen)).toMatchObject({ reasonCode: 0x8b });
    } finally {
      await h.close();
    }
  });
});
