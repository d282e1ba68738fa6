/**
 * A persistent MQTT subscriber that reconnects while a publisher's QoS 1 messages are still
 * being routed (issue 14; found by a newcomer trial): aedes acknowledges a QoS 1 PUBLISH before
 * routing it, so routing overlaps the reconnect. The backlog must still arrive once each, in
 * publish order, and nothing acknowledged may come back on the next reconnect — on the SQLite
 * store, whose commits take longer than aedes' in-memory persistence.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { delay } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let dir: TempDir;
let h: Harness;

const settings = (): BrokerSettings =>
  ({
    storage: 'sqlite',
    storage_options: { filename: join(dir.path, 'race.sqlite') },
    mqtt: { enabled: true, port: 0 },
  }) as BrokerSettings;

beforeEach(async () => {
  dir = await makeTempDir();
  h = await startBroker(settings());
});
afterEach(async () => {
  await h.close();
  await dir.remove();
});

const N = 10;

describe('persistent session reconnecting during routing (SQLite)', () => {
  it.each([4, 5] as const)(
    'MQTT %i: each backlog message once, in order; nothing comes back after its PUBACK',
    async (protocolVersion) => {
      for (let round = 0; round < 6; round++) {
        const session = {
          protocolVersion,
          clientId: `race-${protocolVersion}-${round}`,
          clean: false,
          ...(protocolVersion === 5 && { properties: { sessionExpiryInterval: 600 } }),
        };
        const first = await mqttClient(h, session);
        await first.subscribeAsync(`race/${round}/#`, { qos: 1 });
        await first.endAsync();

        const pub = await mqttClient(h, { protocolVersion });
        const acks: Promise<unknown>[] = [];
        for (let i = 0; i < N; i++) {
          acks.push(pub.publishAsync(`race/${round}/x`, String(i), { qos: 1 }));
        }
        await Promise.all(acks);

        const again = mqttConnecting(h, session);
        const got: string[] = [];
        again.on('message', (_t, p) => got.push(p.toString()));
        expect(await sessionPresent(again)).toBe(true);
        for (let i = 0; i < 100 && got.length < N; i++) await delay(20);
        await delay(150);
        expect(got, `round ${round}`).toEqual(Array.from({ length: N }, (_, i) => String(i)));
        await again.endAsync();

        const third = mqttConnecting(h, session);
        const after: string[] = [];
        third.on('message', (_t, p) => after.push(p.toString()));
        await sessionPresent(third);
        await delay(150);
        expect(after, `round ${round}, after PUBACKs`).toEqual([]);
        await third.endAsync();
      }
    },
    60_000,
  );
});

describe('a retained message in a persistent session queue', () => {
  it.each([4, 5] as const)(
    'MQTT %i: keeps its place before later messages, across a restart, with RETAIN 0',
    async (protocolVersion) => {
      const session = {
        protocolVersion,
        clientId: `keeper-${protocolVersion}`,
        clean: false,
        ...(protocolVersion === 5 && { properties: { sessionExpiryInterval: 600 } }),
      };
      const first = await mqttClient(h, session);
      await first.subscribeAsync('cfg/#', { qos: 1 });
      await first.endAsync();
      const pub = await mqttClient(h, { protocolVersion });
      await Promise.all([
        pub.publishAsync('cfg/mode', 'R', { qos: 1, retain: true }),
        ...[0, 1, 2].map((i) => pub.publishAsync('cfg/x', `m${i}`, { qos: 1 })),
      ]);
      await pub.endAsync();
      await delay(100);
      await h.close();
      h = await startBroker(settings());

      const again = mqttConnecting(h, session);
      const got: string[] = [];
      again.on('message', (_t, p, packet) =>
        got.push(`${p.toString()}${packet.retain ? '*' : ''}`),
      );
      expect(await sessionPresent(again)).toBe(true);
      for (let i = 0; i < 100 && got.length < 4; i++) await delay(20);
      expect(got).toEqual(['R', 'm0', 'm1', 'm2']);
    },
  );

  it('MQTT 5 with Retain As Published: the queued copy keeps RETAIN 1', async () => {
    const session = {
      protocolVersion: 5 as const,
      clientId: 'keeper-rap',
      clean: false,
      properties: { sessionExpiryInterval: 600 },
    };
    const first = await mqttClient(h, session);
    await first.subscribeAsync('cfg/#', { qos: 1, rap: true });
    await first.endAsync();
    const pub = await mqttClient(h, { protocolVersion: 5 });
    await pub.publishAsync('cfg/mode', 'R', { qos: 1, retain: true });
    const again = mqttConnecting(h, session);
    const got: string[] = [];
    again.on('message', (_t, p, packet) => got.push(`${p.toString()}${packet.retain ? '*' : ''}`));
    expect(await sessionPresent(again)).toBe(true);
    for (let i = 0; i < 100 && got.length < 1; i++) await delay(20);
    expect(got).toEqual(['R*']);
  });
});
