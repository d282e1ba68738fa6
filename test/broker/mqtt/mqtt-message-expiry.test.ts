/**
 * MQTT 5 Message Expiry Interval of messages that wait in the server (issue 24; MQTT 5.0
 * §3.3.2.3.3): a copy queued for an offline persistent session, and a retained message, whose
 * interval passes is not delivered ([MQTT-3.3.2-5]); one delivered later carries the received
 * interval minus the time it waited ([MQTT-3.3.2-6]) — across a broker restart too (the SQLite
 * store keeps aedes' absolute expiry time with the packet). The copy held by the client's
 * Receive Maximum is covered in mqtt-outbound-limits.test.ts. Real brokers on one SQLite file,
 * MQTT.js clients; the expiry itself is waited for (1.1 s), the rest by barriers.
 */
import { join } from 'node:path';
import type { IPublishPacket } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let dir: TempDir;
const open: Harness[] = [];

beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

async function broker(): Promise<Harness> {
  const h = await startBroker({
    storage: 'sqlite',
    storage_options: { filename: join(dir.path, 'expiry.sqlite') },
    mqtt: { enabled: true, port: 0 },
  } as BrokerSettings);
  open.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

const v5 = { protocolVersion: 5 as const };
const expiring = (s: number) => ({ qos: 1 as const, properties: { messageExpiryInterval: s } });
/** The point of these tests is the expiry: wait until 1.1 s of it has passed. */
const expiredSince = (t: number) => waitUntil(() => Date.now() - t > 1_100, '1.1 s', 3_000);

describe('Message Expiry Interval of waiting messages', () => {
  it('an offline session: the expired copy is dropped, the others carry what is left', async () => {
    const h1 = await broker();
    const opts = { ...v5, clientId: 'exp-keeper', clean: false };
    const session = { ...opts, properties: { sessionExpiryInterval: 3600 } };
    const first = await mqttClient(h1, session);
    await first.subscribeAsync('exp/#', { qos: 1 });
    await first.endAsync();
    const p = await mqttClient(h1, v5);
    const sent = Date.now();
    await p.publishAsync('exp/a', 'short', expiring(1));
    await p.publishAsync('exp/b', 'long', expiring(30));
    await p.publishAsync('exp/c', 'never', { qos: 1 });
    await stop(h1);
    await expiredSince(sent);

    const h2 = await broker();
    const again = mqttConnecting(h2, session);
    const got: IPublishPacket[] = [];
    again.on('message', (_t, _p, packet) => got.push(packet));
    expect(await sessionPresent(again)).toBe(true);
    // The backlog comes in order: once the last is here, an undropped first would be too.
    await waitUntil(() => got.some((m) => m.topic === 'exp/c'), 'the backlog');
    expect(got.map((m) => m.payload.toString())).toEqual(['long', 'never']);
    const interval = got[0]!.properties?.messageExpiryInterval ?? 0;
    expect(interval).toBeGreaterThanOrEqual(27);
    expect(interval).toBeLessThanOrEqual(29);
    expect(got[1]!.properties?.messageExpiryInterval).toBeUndefined();
  });

  it('a retained message: expired, not delivered; else with what is left', async () => {
    const h1 = await broker();
    const p = await mqttClient(h1, v5);
    const sent = Date.now();
    await p.publishAsync('cfg/a', 'short', { ...expiring(1), retain: true });
    await p.publishAsync('cfg/b', 'long', { ...expiring(30), retain: true });
    await stop(h1);
    await expiredSince(sent);

    const h2 = await broker();
    const s = await mqttClient(h2, v5);
    const got: IPublishPacket[] = [];
    s.on('message', (_t, _p, packet) => got.push(packet));
    await s.subscribeAsync('cfg/#', { qos: 1 });
    await waitUntil(() => got.some((m) => m.topic === 'cfg/b'), 'the live retained message');
    // A live message after the SUBACK: the retained ones were sent before it.
    const pub = await mqttClient(h2, v5);
    await pub.publishAsync('cfg/live', 'now', { qos: 1 });
    await waitUntil(() => got.some((m) => m.topic === 'cfg/live'), 'the live one');
    expect(got.map((m) => m.topic)).toEqual(['cfg/b', 'cfg/live']);
    const interval = got[0]!.properties?.messageExpiryInterval ?? 0;
    expect(interval).toBeGreaterThanOrEqual(27);
    expect(interval).toBeLessThanOrEqual(29);
  });
});
