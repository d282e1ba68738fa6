/**
 * Resuming a persistent session keeps its backlog (issue 24). MQTT 5.0 §3.1.2.4 / §3.1.2.11.2:
 * a CONNECT with Clean Start 0 resumes the session it names, and its Session Expiry Interval
 * only says when that session ends from now on — with 0, when *this* connection closes. So the
 * messages queued while the client was away are delivered even on a reconnect with Session
 * Expiry 0 (aedes 2.0.0-beta.1 discarded them; Mosquitto delivers them), and the session is gone
 * after that connection. MQTT 3.1.1 clean=false sessions keep theirs across every reconnect.
 * Memory and SQLite storage alike.
 */
import type { IClientOptions, MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { type MqttStorage, useRestartingBrokers } from '../../helpers/mqtt-restarts';
import { expectNothing, waitUntil } from '../../helpers/wait';

const brokers = useRestartingBrokers('resume.sqlite');
const broker = (storage: MqttStorage): Promise<Harness> => brokers.start(storage);
const stop = (h: Harness): Promise<void> => brokers.stop(h);

/** Ends `client` and resolves once the broker holds only `left` connections. */
async function leave(h: Harness, client: MqttClient, left: number): Promise<void> {
  await client.endAsync();
  await waitUntil(() => h.broker.status().connectionsCurrent === left, 'the client is gone');
}

/** Reconnects with `opts`; resolves with the CONNACK's session present and the texts received. */
async function reconnect(
  h: Harness,
  opts: IClientOptions,
): Promise<{ client: MqttClient; present: boolean; got: string[] }> {
  const client = mqttConnecting(h, opts);
  const got: string[] = [];
  client.on('message', (_t, payload) => got.push(payload.toString('utf8')));
  return { client, present: await sessionPresent(client), got };
}

describe.each<MqttStorage>(['memory', 'sqlite'])(
  'a resumed session keeps its backlog (%s)',
  (storage) => {
    it('MQTT 5: Clean Start 0 with Session Expiry 0 gets the backlog, then the session ends', async () => {
      const h = await broker(storage);
      const id = { protocolVersion: 5 as const, clientId: `v5-resume-${storage}`, clean: false };
      const first = await mqttClient(h, { ...id, properties: { sessionExpiryInterval: 3600 } });
      await first.subscribeAsync('jobs/#', { qos: 1 });
      const p = await mqttClient(h, { protocolVersion: 5 });
      await leave(h, first, 1);
      await p.publishAsync('jobs/1', 'one', { qos: 1 });
      await p.publishAsync('jobs/2', 'two', { qos: 1 });

      const again = await reconnect(h, { ...id, properties: { sessionExpiryInterval: 0 } });
      expect(again.present).toBe(true);
      await waitUntil(() => again.got.length >= 2, 'the backlog');
      expect(again.got).toEqual(['one', 'two']);
      await p.publishAsync('jobs/3', 'three', { qos: 1 });
      await waitUntil(() => again.got.length >= 3, 'the live message');
      expect(again.got).toEqual(['one', 'two', 'three']);

      // Expiry 0 applied from that CONNECT on: the session ended with its connection.
      await leave(h, again.client, 1);
      await p.publishAsync('jobs/4', 'four', { qos: 1 });
      const last = await reconnect(h, { ...id, properties: { sessionExpiryInterval: 0 } });
      expect(last.present).toBe(false);
      await expectNothing(last.client, 'message');
      expect(last.got).toEqual([]);
    });

    it('MQTT 5: Clean Start 1 still discards the backlog', async () => {
      const h = await broker(storage);
      const id = { protocolVersion: 5 as const, clientId: `v5-fresh-${storage}` };
      const first = await mqttClient(h, {
        ...id,
        clean: false,
        properties: { sessionExpiryInterval: 3600 },
      });
      await first.subscribeAsync('jobs/#', { qos: 1 });
      const p = await mqttClient(h, { protocolVersion: 5 });
      await leave(h, first, 1);
      await p.publishAsync('jobs/1', 'one', { qos: 1 });

      const again = await reconnect(h, { ...id, clean: true });
      expect(again.present).toBe(false);
      await expectNothing(again.client, 'message');
      expect(again.got).toEqual([]);
    });

    it('MQTT 3.1.1: a clean=false session keeps its backlog across reconnects', async () => {
      const h = await broker(storage);
      const id = { protocolVersion: 4 as const, clientId: `v4-resume-${storage}`, clean: false };
      const first = await mqttClient(h, id);
      await first.subscribeAsync('jobs/#', { qos: 1 });
      const p = await mqttClient(h);
      await leave(h, first, 1);
      await p.publishAsync('jobs/1', 'one', { qos: 1 });

      const second = await reconnect(h, id);
      expect(second.present).toBe(true);
      await waitUntil(() => second.got.length >= 1, 'the first backlog');
      expect(second.got).toEqual(['one']);
      await leave(h, second.client, 1);
      await p.publishAsync('jobs/2', 'two', { qos: 1 });
      await p.publishAsync('jobs/3', 'three', { qos: 1 });

      const third = await reconnect(h, id);
      expect(third.present).toBe(true);
      await waitUntil(() => third.got.length >= 2, 'the second backlog');
      expect(third.got).toEqual(['two', 'three']);
    });
  },
);

describe('a resumed session across a restart (sqlite)', () => {
  it('a restored backlog is delivered on a Session Expiry 0 resume; then the file forgets it', async () => {
    const id = { protocolVersion: 5 as const, clientId: 'v5-restart', clean: false };
    const h1 = await broker('sqlite');
    const first = await mqttClient(h1, { ...id, properties: { sessionExpiryInterval: 3600 } });
    await first.subscribeAsync('jobs/#', { qos: 1 });
    const p = await mqttClient(h1, { protocolVersion: 5 });
    await leave(h1, first, 1);
    await p.publishAsync('jobs/1', 'one', { qos: 1 });
    await stop(h1);

    const h2 = await broker('sqlite');
    const again = await reconnect(h2, { ...id, properties: { sessionExpiryInterval: 0 } });
    expect(again.present).toBe(true);
    await waitUntil(() => again.got.length >= 1, 'the restored backlog');
    expect(again.got).toEqual(['one']);
    await leave(h2, again.client, 0);
    await stop(h2);

    const h3 = await broker('sqlite');
    const last = await reconnect(h3, { ...id, properties: { sessionExpiryInterval: 0 } });
    expect(last.present).toBe(false);
    await expectNothing(last.client, 'message');
    expect(last.got).toEqual([]);
  });
});
