/**
 * Past the inbound QoS 2 cap (`mqtt.max_inflight_inbound`, the CONNACK's Receive Maximum) the
 * broker sends the PUBRECs it owes for the messages it accepted, then DISCONNECT 0x93 "Receive
 * Maximum exceeded" (MQTT 5.0 §3.3.4, §4.9; Paho `test_flow_control2`), and closes; an MQTT
 * 3.1.1 client gets its PUBRECs and the close (receive-maximum-guard.ts). Raw packets over TCP
 * against a real broker; the refused messages reach nobody, the accepted ones are delivered.
 */
import { generate, type IPubrecPacket } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { startBroker, useBroker, type BrokerSettings } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { rawConnected, type RawMqtt } from '../../helpers/mqtt-raw';
import { waitUntil } from '../../helpers/wait';

const LIMIT = 5;
const ctx = useBroker({ mqtt: { enabled: true, port: 0, max_inflight_inbound: LIMIT } });

const qos2 = (messageId: number, protocolVersion: 4 | 5): Buffer =>
  generate(
    {
      cmd: 'publish',
      topic: 'flow/t',
      payload: Buffer.from(`m${messageId}`),
      qos: 2,
      messageId,
      dup: false,
      retain: false,
    },
    { protocolVersion },
  );

/** Messages on `flow/t`, as a QoS 2 subscriber receives them. */
async function watcher(): Promise<string[]> {
  const sub = await mqttClient(ctx.h);
  await sub.subscribeAsync('flow/t', { qos: 2 });
  const got: string[] = [];
  sub.on('message', (_t, p) => got.push(p.toString()));
  return got;
}

const cmds = (raw: RawMqtt) => raw.seen.filter((p) => p.cmd !== 'connack').map((p) => p.cmd);
const pubrecIds = (raw: RawMqtt) => raw.of<IPubrecPacket>('pubrec').map((p) => p.messageId);
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('inbound QoS 2 past the Receive Maximum', () => {
  it('MQTT 5, one burst: the owed PUBRECs, then DISCONNECT 0x93, then the close', async () => {
    const got = await watcher();
    const raw = await rawConnected(ctx.h, 'flood5', { protocolVersion: 5 });
    expect(raw.seen[0]).toMatchObject({ properties: { receiveMaximum: LIMIT } });
    raw.send(Buffer.concat(ids(1, LIMIT + 3).map((id) => qos2(id, 5))));
    await raw.closed;
    expect(cmds(raw)).toEqual([...ids(1, LIMIT).map(() => 'pubrec'), 'disconnect']);
    expect(pubrecIds(raw)).toEqual(ids(1, LIMIT));
    expect(raw.of<IPubrecPacket>('pubrec').every((p) => (p.reasonCode ?? 0) === 0)).toBe(true);
    expect(raw.of('disconnect')[0]).toMatchObject({ reasonCode: 0x93 });
    await waitUntil(() => got.length === LIMIT, 'the accepted messages are delivered');
    expect(got).toEqual(ids(1, LIMIT).map((id) => `m${id}`));
  });

  it('MQTT 5, one over after the PUBRECs: DISCONNECT 0x93, and the will is published', async () => {
    const willWatcher = await mqttClient(ctx.h);
    await willWatcher.subscribeAsync('flow/will');
    const will = new Promise<string>((resolve) =>
      willWatcher.once('message', (_t, p) => resolve(p.toString())),
    );
    const flood = await rawConnected(ctx.h, 'slow5', {
      protocolVersion: 5,
      will: { topic: 'flow/will', payload: Buffer.from('gone'), qos: 0, retain: false },
    });
    flood.send(Buffer.concat(ids(1, LIMIT).map((id) => qos2(id, 5))));
    await flood.until((s) => s.filter((p) => p.cmd === 'pubrec').length === LIMIT, 'PUBRECs');
    flood.send(qos2(LIMIT + 1, 5));
    await flood.closed;
    expect(cmds(flood)).toEqual([...ids(1, LIMIT).map(() => 'pubrec'), 'disconnect']);
    expect(flood.of('disconnect')[0]).toMatchObject({ reasonCode: 0x93 });
    expect(await will).toBe('gone');
  });

  it('MQTT 3.1.1, one burst: the owed PUBRECs, then the close', async () => {
    const got = await watcher();
    const raw = await rawConnected(ctx.h, 'flood4');
    raw.send(Buffer.concat(ids(1, LIMIT * 4).map((id) => qos2(id, 4))));
    await raw.closed;
    expect(cmds(raw)).toEqual(ids(1, LIMIT).map(() => 'pubrec'));
    expect(pubrecIds(raw)).toEqual(ids(1, LIMIT));
    await waitUntil(() => got.length === LIMIT, 'the accepted messages are delivered');
    // The broker goes on serving.
    const after = await mqttClient(ctx.h);
    expect(after.connected).toBe(true);
  });

  it('MQTT 5, the default cap (1,000) and 1,001 in one burst: 1,000 PUBRECs, then 0x93', async () => {
    // Paho's test_flow_control2. A thousand PUBRECs are more than the socket writes at once:
    // they must all be flushed before the DISCONNECT and the close.
    const h = await startBroker({ mqtt: { enabled: true, port: 0 } } as BrokerSettings);
    try {
      const raw = await rawConnected(h, 'paho-flow', { protocolVersion: 5 });
      expect(raw.seen[0]).toMatchObject({ properties: { receiveMaximum: 1000 } });
      raw.send(Buffer.concat(ids(1, 1001).map((id) => qos2(id, 5))));
      await raw.closed;
      expect(pubrecIds(raw)).toEqual(ids(1, 1000));
      expect(cmds(raw).at(-1)).toBe('disconnect');
      expect(raw.of('disconnect')[0]).toMatchObject({ reasonCode: 0x93 });
    } finally {
      await h.close();
    }
  });
});
