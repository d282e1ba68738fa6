/**
 * MQTT conformance fixes of issue 24 (replayed bug reports, Paho failures), each against a real
 * broker with MQTT on, over raw packets (test/helpers/mqtt-raw.ts) or MQTT.js:
 *   - an unknown protocol level gets CONNACK 0x01, then the close ([MQTT-3.1.2-2]);
 *   - a redelivered QoS 1 / QoS 2 PUBLISH carries DUP=1 ([MQTT-3.3.1-1], [MQTT-4.4.0-1]);
 *   - an MQTT 5 PUBREL of an unknown packet id gets PUBCOMP 0x92 (MQTT 5.0 §3.7.2.1);
 *   - Reason Strings on acks only with Request Problem Information ([MQTT-3.1.2-29]);
 *   - a will is published without CONNECT-only Will Properties (MQTT 5.0 §3.3.2.3).
 */
import { describe, expect, it } from 'vitest';
import type { IPubcompPacket, IPublishPacket, Packet } from 'mqtt-packet';
import { useBroker } from '../../helpers/broker-harness';
import { packet, str } from '../../helpers/mqtt-bytes';
import { mqttClient } from '../../helpers/mqtt-clients';
import { rawConnected, rawMqtt } from '../../helpers/mqtt-raw';
import { waitUntil } from '../../helpers/wait';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } });

/** A CONNECT (protocol name MQTT, clean session, keep alive 60 s) at protocol `level`. */
const connectAtLevel = (level: number) =>
  packet(0x10, Buffer.concat([str('MQTT'), Buffer.from([level, 0x02, 0, 60]), str('lvl')]));

describe('unknown protocol level [MQTT-3.1.2-2]', () => {
  it.each([6, 9, 0])('level %i gets CONNACK 0x01, then the connection is closed', async (level) => {
    const raw = await rawMqtt(ctx.h);
    raw.send(connectAtLevel(level));
    await raw.closed;
    expect(raw.seen).toHaveLength(1);
    expect(raw.seen[0]).toMatchObject({ cmd: 'connack', returnCode: 1, sessionPresent: false });
    // The broker goes on serving.
    const ok = await mqttClient(ctx.h, { protocolVersion: 5 });
    expect(ok.connected).toBe(true);
  });

  it('a CONNECT at level 6 pipelined with more packets still gets only the CONNACK', async () => {
    const raw = await rawMqtt(ctx.h);
    const publish = packet(0x30, Buffer.concat([str('t'), Buffer.from('x')]));
    raw.send(Buffer.concat([connectAtLevel(6), publish, publish]));
    await raw.closed;
    expect(raw.seen.map((p: Packet) => p.cmd)).toEqual(['connack']);
  });
});

describe('redelivery after a reconnect [MQTT-3.3.1-1], [MQTT-4.4.0-1]', () => {
  it.each([4, 5] as const)(
    'unacknowledged QoS 1 and QoS 2 PUBLISHes are sent again with DUP=1 and their ids (MQTT %i)',
    async (protocolVersion) => {
      const id = `dup-${protocolVersion}`;
      // MQTT 5: a session outlives its connection only with a Session Expiry Interval.
      const session = {
        protocolVersion,
        clean: false,
        ...(protocolVersion === 5 ? { properties: { sessionExpiryInterval: 60 } } : {}),
      };
      const first = await rawConnected(ctx.h, id, session);
      first.send({
        cmd: 'subscribe',
        messageId: 1,
        subscriptions: [
          { topic: 'dup/two', qos: 2 },
          { topic: 'dup/one', qos: 1 },
        ],
      } as Packet);
      await first.until((s) => s.some((p) => p.cmd === 'suback'), 'SUBACK');
      const pub = await mqttClient(ctx.h);
      await pub.publishAsync('dup/two', 'two', { qos: 2 });
      await pub.publishAsync('dup/one', 'one', { qos: 1 });
      // Received, never acknowledged (no PUBREC, no PUBACK), then the connection drops.
      await first.until((s) => s.filter((p) => p.cmd === 'publish').length === 2, 'both sent');
      const sent = first.of<IPublishPacket>('publish');
      expect(sent.map((p) => p.dup)).toEqual([false, false]);
      first.socket.destroy();
      await waitUntil(() => ctx.h.broker.status().connectionsCurrent === 1, 'the drop is seen');
      // Published while the client is away: queued, never sent, so a first delivery.
      await pub.publishAsync('dup/one', 'queued', { qos: 1 });

      const again = await rawConnected(ctx.h, id, session);
      await again.until((s) => s.filter((p) => p.cmd === 'publish').length === 3, 'resent');
      const resent = again.of<IPublishPacket>('publish');
      expect(
        resent.map((p) => ({
          topic: p.topic,
          text: p.payload.toString(),
          dup: p.dup,
          id: p.messageId,
        })),
      ).toEqual([
        { topic: 'dup/two', text: 'two', dup: true, id: sent[0]!.messageId },
        { topic: 'dup/one', text: 'one', dup: true, id: sent[1]!.messageId },
        { topic: 'dup/one', text: 'queued', dup: false, id: expect.any(Number) as number },
      ]);
    },
  );
});

describe('MQTT 5 PUBREL of an unknown packet id (MQTT 5.0 §3.7.2.1)', () => {
  it('gets PUBCOMP 0x92; a known one PUBCOMP 0x00, once', async () => {
    const raw = await rawConnected(ctx.h, 'releaser', { protocolVersion: 5 });
    raw.send({ cmd: 'pubrel', messageId: 77 } as Packet);
    raw.send({
      cmd: 'publish',
      topic: 'rel/t',
      qos: 2,
      messageId: 8,
      payload: Buffer.from('x'),
    } as Packet);
    await raw.until((s) => s.some((p) => p.cmd === 'pubrec'), 'PUBREC 8');
    raw.send({ cmd: 'pubrel', messageId: 8 } as Packet);
    await raw.until((s) => s.filter((p) => p.cmd === 'pubcomp').length === 2, 'two PUBCOMPs');
    // Released: the same id again is unknown now.
    raw.send({ cmd: 'pubrel', messageId: 8 } as Packet);
    await raw.until((s) => s.filter((p) => p.cmd === 'pubcomp').length === 3, 'three PUBCOMPs');
    const comps = raw.of<IPubcompPacket>('pubcomp');
    expect(comps.map((p) => [p.messageId, p.reasonCode ?? 0])).toEqual([
      [77, 0x92],
      [8, 0x00],
      [8, 0x92],
    ]);
    // The connection stays up.
    raw.send({ cmd: 'pingreq' } as Packet);
    await raw.until((s) => s.some((p) => p.cmd === 'pingresp'), 'PINGRESP');
  });

  it('an MQTT 3.1.1 PUBREL of an unknown id still gets PUBCOMP [MQTT-4.3.3-2]', async () => {
    const raw = await rawConnected(ctx.h, 'releaser-311');
    raw.send({ cmd: 'pubrel', messageId: 5 } as Packet);
    await raw.until((s) => s.some((p) => p.cmd === 'pubcomp'), 'PUBCOMP');
    expect(raw.of<IPubcompPacket>('pubcomp')[0]?.messageId).toBe(5);
  });
});

describe('Request Problem Information [MQTT-3.1.2-29]', () => {
  /** PUBLISHes to a `$` topic (refused by policy) at QoS 1 and 2 and a `$share` SUBSCRIBE with an invalid ShareName. */
  async function refusals(properties: Record<string, unknown>): Promise<Packet[]> {
    const raw = await rawConnected(ctx.h, 'rpi', { protocolVersion: 5, properties });
    const publish = { cmd: 'publish', topic: '$x/y', payload: Buffer.from('p') };
    raw.send({ ...publish, qos: 1, messageId: 3 } as Packet);
    raw.send({ ...publish, qos: 2, messageId: 4 } as Packet);
    raw.send({
      cmd: 'subscribe',
      messageId: 5,
      subscriptions: [{ topic: '$share/g+/t', qos: 1 }],
    } as Packet);
    raw.send({ cmd: 'pingreq' } as Packet);
    await raw.until((s) => s.some((p) => p.cmd === 'pingresp'), 'PINGRESP');
    await raw.until((s) => s.length === 5, 'every answer');
    return raw.seen.filter((p) => p.cmd !== 'connack' && p.cmd !== 'pingresp');
  }

  it('by default (1): the $-topic refusals carry their Reason String', async () => {
    const acks = await refusals({});
    expect(acks).toMatchObject([
      { cmd: 'puback', reasonCode: 0x87, properties: { reasonString: '$ topics are reserved' } },
      { cmd: 'pubrec', reasonCode: 0x87, properties: { reasonString: '$ topics are reserved' } },
      { cmd: 'suback', granted: [0x8f] },
    ]);
  });

  it('0: the same refusals, with no Reason String nor User Property', async () => {
    const acks = await refusals({ requestProblemInformation: false });
    expect(acks.map((p) => [p.cmd, 'reasonCode' in p ? p.reasonCode : undefined])).toEqual([
      ['puback', 0x87],
      ['pubrec', 0x87],
      ['suback', undefined],
    ]);
    for (const ack of acks) expect((ack as { properties?: unknown }).properties).toBeUndefined();
  });
});

describe('PUBLISH properties only (MQTT 5.0 §3.3.2.3)', () => {
  it.each([
    [30, 0],
    [1, 10],
  ])(
    'a will (delay %i s, session expiry %i s) is published without its Will Delay Interval',
    async (willDelayInterval, sessionExpiryInterval) => {
      const sub = await rawConnected(ctx.h, 'will-watcher', { protocolVersion: 5 });
      sub.send({
        cmd: 'subscribe',
        messageId: 1,
        subscriptions: [{ topic: 'will/#', qos: 1 }],
      } as Packet);
      await sub.until((s) => s.some((p) => p.cmd === 'suback'), 'SUBACK');
      const leaver = await rawMqtt(ctx.h, 5);
      leaver.send({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 5,
        clean: true,
        clientId: 'will-leaver',
        keepalive: 60,
        // The will is due at the earlier of its delay and the end of the session (§3.1.3.2.2).
        properties: { sessionExpiryInterval },
        will: {
          topic: 'will/t',
          payload: Buffer.from('bye'),
          qos: 1,
          retain: false,
          properties: {
            willDelayInterval,
            contentType: 'text/plain',
            payloadFormatIndicator: true,
            userProperties: { k: 'v' },
          },
        },
      } as Packet);
      await leaver.until((s) => s.some((p) => p.cmd === 'connack'), 'CONNACK');
      leaver.socket.destroy();
      await sub.until((s) => s.some((p) => p.cmd === 'publish'), 'the will');
      const will = sub.of<IPublishPacket>('publish')[0]!;
      expect(will.payload.toString()).toBe('bye');
      expect(will.properties).toEqual({
        contentType: 'text/plain',
        payloadFormatIndicator: true,
        userProperties: { k: 'v' },
      });
    },
  );

  it('a CONNECT-only property in a client PUBLISH is not forwarded', async () => {
    const sub = await mqttClient(ctx.h, { protocolVersion: 5 });
    await sub.subscribeAsync('props/t');
    const got = new Promise<Record<string, unknown> | undefined>((resolve) =>
      sub.once('message', (_t, _p, pk) => resolve(pk.properties as Record<string, unknown>)),
    );
    const raw = await rawConnected(ctx.h, 'props-pub', { protocolVersion: 5 });
    raw.send({
      cmd: 'publish',
      topic: 'props/t',
      qos: 0,
      payload: Buffer.from('x'),
      // Not a PUBLISH property (mqtt-packet writes it anyway).
      properties: { sessionExpiryInterval: 5, contentType: 'a/b' },
    } as unknown as Packet);
    expect(await got).toEqual({ contentType: 'a/b' });
  });
});
