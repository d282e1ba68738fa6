/**
 * The limits an MQTT 5 client sets in its CONNECT, honoured on outbound traffic (issue 24;
 * outbound-limits.ts): its Maximum Packet Size ([MQTT-3.1.2-24/25]: an oversized PUBLISH is
 * discarded as if delivered, counted and logged once; acks lose their Reason String to fit), its
 * Receive Maximum ([MQTT-3.3.4-9]: further QoS 1/2 PUBLISHes wait, in order, one per ack), and
 * the Message Expiry Interval of what waits ([MQTT-3.3.2-5/6]: in that queue, in an offline
 * session's queue, as a retained message). Raw packets against a real broker, MQTT.js
 * publishers. Barriers instead of sleeps: a QoS 0 message after the QoS 1 ones (not held, so it
 * arrives once they were handled) and a PINGREQ after an ack (its PINGRESP follows the release).
 */
import type { IPubackPacket, IPublishPacket } from 'mqtt-packet';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parsePrometheusText,
  type PromExposition,
} from '../../../electron/services/prometheus-text';
import { wireSize } from '../../../broker/mqtt/mqtt5-options';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { startBroker, type Harness } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { rawConnected, rawMqtt, type RawMqtt } from '../../helpers/mqtt-raw';
import { waitUntil } from '../../helpers/wait';
import { captureLogs, type CapturedLog } from '../../support/log-capture';

let h: Harness | undefined;
let log: CapturedLog;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function broker(): Promise<Harness> {
  log = captureLogs('info');
  h = await startBroker(
    { http_api: { enabled: true, metrics_auth: false }, mqtt: { enabled: true, port: 0 } },
    { logger: log.logger },
  );
  return h;
}

const v5 = { protocolVersion: 5 as const };
const publishes = (raw: RawMqtt) => raw.of<IPublishPacket>('publish');
const texts = (raw: RawMqtt) => publishes(raw).map((p) => p.payload.toString());

async function subscribed(raw: RawMqtt, topic: string, qos: 0 | 1 | 2 = 1): Promise<void> {
  const before = raw.of('suback').length;
  raw.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic, qos }] });
  await raw.until((s) => s.filter((p) => p.cmd === 'suback').length > before, 'SUBACK');
}

/** Sends PINGREQ and waits for its PINGRESP: what the broker did before it is on the wire. */
async function ping(raw: RawMqtt): Promise<void> {
  const before = raw.of('pingresp').length;
  raw.send({ cmd: 'pingreq' });
  await raw.until((s) => s.filter((p) => p.cmd === 'pingresp').length > before, 'PINGRESP');
}

async function discarded(cmd: string): Promise<number> {
  const res = await fetch(`${h!.url}${HttpPath.METRICS}`);
  const m: PromExposition = parsePrometheusText(await res.text());
  const hit = m.samples.find(
    (s) => s.name === MetricName.MQTT_OVERSIZE_DISCARDED_TOTAL && s.labels.cmd === cmd,
  );
  return hit?.value ?? 0;
}

describe("the client's Maximum Packet Size", () => {
  const MAX = 120;
  /** A client PUBLISH to a `$` topic: PUBACK 0x87 with a Reason String (policy, see _Roles_). */
  const refused: IPublishPacket = {
    cmd: 'publish',
    topic: '$nope/x',
    payload: Buffer.from('p'),
    qos: 1,
    messageId: 7,
    dup: false,
    retain: false,
  };

  it('never sends a larger PUBLISH: discarded, counted, logged once per connection', async () => {
    const b = await broker();
    const raw = await rawConnected(b, 'small', { ...v5, properties: { maximumPacketSize: MAX } });
    await subscribed(raw, 'size/#');
    const pub = await mqttClient(b, v5);
    await pub.publishAsync('size/a', 'small-1', { qos: 1 });
    await pub.publishAsync('size/a', 'x'.repeat(200), { qos: 1 });
    await pub.publishAsync('size/a', 'y'.repeat(300), { qos: 0 });
    await pub.publishAsync('size/a', 'small-2', { qos: 1 });
    await raw.until((s) => s.filter((p) => p.cmd === 'publish').length >= 2, 'the small ones');
    for (const p of publishes(raw)) raw.send({ cmd: 'puback', messageId: p.messageId! });
    await ping(raw);
    expect(texts(raw)).toEqual(['small-1', 'small-2']);
    expect(raw.seen.every((p) => wireSize(p.length ?? 0) <= MAX)).toBe(true);
    expect(await discarded('publish')).toBe(2);
    const lines = log.lines.filter((l) => l.msg?.startsWith('MQTT packet over the client'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ mqttClient: 'small', cmd: 'publish', maximumPacketSize: MAX });
  });

  it('a discarded QoS 1 copy of a persistent session is not offered again on reconnect', async () => {
    const b = await broker();
    const session = { ...v5, clean: false, properties: { maximumPacketSize: MAX } };
    const withExpiry = {
      ...session,
      properties: { ...session.properties, sessionExpiryInterval: 300 },
    };
    const first = await rawConnected(b, 'keeper', withExpiry);
    await subscribed(first, 'keep/#');
    first.socket.destroy();
    await first.closed;
    const pub = await mqttClient(b, v5);
    await pub.publishAsync('keep/a', 'x'.repeat(200), { qos: 1 });
    await pub.publishAsync('keep/a', 'fits', { qos: 1 });
    await waitUntil(() => b.broker.status().connectionsCurrent === 1, 'keeper gone');
    const second = await rawConnected(b, 'keeper', withExpiry);
    await second.until((s) => s.some((p) => p.cmd === 'publish'), 'the queued one');
    await ping(second);
    expect(texts(second)).toEqual(['fits']);
    second.send({ cmd: 'puback', messageId: publishes(second)[0]!.messageId! });
    await ping(second);
    second.socket.destroy();
    await second.closed;
    await waitUntil(() => b.broker.status().connectionsCurrent === 1, 'keeper gone again');
    const third = await rawConnected(b, 'keeper', withExpiry);
    expect(third.seen[0]).toMatchObject({ cmd: 'connack', sessionPresent: true });
    await ping(third);
    expect(publishes(third)).toEqual([]);
    expect(await discarded('publish')).toBe(1);
  });

  it('an ack loses its Reason String when only that makes it fit', async () => {
    const b = await broker();
    // CONNACK (4 properties) 18 bytes; PUBACK 0x87 bare 6, with its Reason String over 24.
    const raw = await rawConnected(b, 'tiny', { ...v5, properties: { maximumPacketSize: 24 } });
    raw.send(refused);
    await raw.until((s) => s.some((p) => p.cmd === 'puback'), 'PUBACK');
    const [ack] = raw.of<IPubackPacket>('puback');
    expect(ack).toMatchObject({ messageId: 7, reasonCode: 0x87 });
    expect(ack!.properties?.reasonString).toBeUndefined();
    const roomy = await rawConnected(b, 'roomy', v5);
    roomy.send(refused);
    await roomy.until((s) => s.some((p) => p.cmd === 'puback'), 'PUBACK');
    expect(roomy.of<IPubackPacket>('puback')[0]!.properties?.reasonString).toBeTruthy();
  });

  it('a CONNACK that cannot fit is not sent: the connection is closed', async () => {
    const b = await broker();
    const raw = await rawMqtt(b, 5);
    raw.send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 5,
      clean: true,
      clientId: 'too-tiny',
      keepalive: 60,
      properties: { maximumPacketSize: 8 },
    });
    await raw.closed;
    expect(raw.seen).toEqual([]);
    expect(await discarded('connack')).toBe(1);
  });
});

describe("the client's Receive Maximum", () => {
  it('2 with PUBACKs withheld: 2 in flight, then one more per PUBACK, in order', async () => {
    const b = await broker();
    const raw = await rawConnected(b, 'slow', { ...v5, properties: { receiveMaximum: 2 } });
    await subscribed(raw, 'rm/#');
    const pub = await mqttClient(b, v5);
    for (let i = 1; i <= 5; i++) await pub.publishAsync('rm/t', `m${i}`, { qos: 1 });
    await pub.publishAsync('rm/t', 'barrier', { qos: 0 });
    await raw.until((s) => s.some((p) => p.cmd === 'publish' && p.qos === 0), 'the barrier');
    expect(texts(raw)).toEqual(['m1', 'm2', 'barrier']);
    const acked = new Set<number>();
    for (const expected of [['m3'], ['m4'], ['m5'], []]) {
      const before = texts(raw).length;
      const oldest = publishes(raw).find((p) => p.qos === 1 && !acked.has(p.messageId!));
      acked.add(oldest!.messageId!);
      raw.send({ cmd: 'puback', messageId: oldest!.messageId! });
      await ping(raw);
      expect(texts(raw).slice(before)).toEqual(expected);
    }
  });

  it('QoS 2: a PUBREC keeps the slot, the PUBCOMP frees it', async () => {
    const b = await broker();
    const raw = await rawConnected(b, 'slow2', { ...v5, properties: { receiveMaximum: 1 } });
    await subscribed(raw, 'rm2/#', 2);
    const pub = await mqttClient(b, v5);
    await pub.publishAsync('rm2/t', 'a', { qos: 2 });
    await pub.publishAsync('rm2/t', 'b', { qos: 2 });
    await pub.publishAsync('rm2/t', 'barrier', { qos: 0 });
    await raw.until((s) => s.some((p) => p.cmd === 'publish' && p.qos === 0), 'the barrier');
    expect(texts(raw)).toEqual(['a', 'barrier']);
    const id = publishes(raw)[0]!.messageId!;
    raw.send({ cmd: 'pubrec', messageId: id });
    await raw.until((s) => s.some((p) => p.cmd === 'pubrel'), 'PUBREL');
    await ping(raw);
    expect(texts(raw)).toEqual(['a', 'barrier']);
    raw.send({ cmd: 'pubcomp', messageId: id });
    await ping(raw);
    expect(texts(raw)).toEqual(['a', 'barrier', 'b']);
  });

  it('a copy that expires while it waits is dropped; a later one carries what is left', async () => {
    const b = await broker();
    const raw = await rawConnected(b, 'slow3', { ...v5, properties: { receiveMaximum: 1 } });
    await subscribed(raw, 'rm3/#');
    const pub = await mqttClient(b, v5);
    const sent = Date.now();
    await pub.publishAsync('rm3/t', 'first', { qos: 1 });
    const expiring = (s: number) => ({ qos: 1 as const, properties: { messageExpiryInterval: s } });
    await pub.publishAsync('rm3/t', 'short', expiring(1));
    await pub.publishAsync('rm3/t', 'long', expiring(10));
    await pub.publishAsync('rm3/t', 'barrier', { qos: 0 });
    await raw.until((s) => s.some((p) => p.cmd === 'publish' && p.qos === 0), 'the barrier');
    // The expiry is the point of the test: wait until 1 s of it has passed.
    await waitUntil(() => Date.now() - sent > 1_100, '1.1 s passed', 3_000);
    raw.send({ cmd: 'puback', messageId: publishes(raw)[0]!.messageId! });
    await ping(raw);
    expect(texts(raw)).toEqual(['first', 'barrier', 'long']);
    const interval = publishes(raw)[2]!.properties?.messageExpiryInterval;
    expect(interval).toBeGreaterThanOrEqual(8);
    expect(interval).toBeLessThanOrEqual(9);
  });
});
