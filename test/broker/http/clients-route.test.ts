/**
 * `GET /api/clients` (Switchboard extension, docs/http-api.md): registered producers and
 * consumers per realm, each consumer's subscriptions with their options and durable backlog;
 * connected MQTT clients per realm (issue 14) with their filters and QoS; admin bearer when auth
 * is on; off with `http_api.stats: false`; each connected client's message counters (issue 27).
 */
import { describe, expect, it } from 'vitest';
import { ClientsSchema, HttpPath } from '../../../shared/http-api';
import { produce, startBroker, subscribe, type Harness } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { ClientEvent, consumeEvent, subscriptionKey } from '../../../shared/protocol-events';
import { delay, waitUntil, waitUntilAsync } from '../../helpers/wait';

describe('GET /api/clients', () => {
  it('lists producers, consumers and their subscriptions with the durable backlog', async () => {
    const h = await startBroker({ http_api: { enabled: true }, mqtt: { enabled: true, port: 0 } });
    try {
      const device = await mqttClient(h, { clientId: 'sensor-7' });
      await device.subscribeAsync('fleet/job', { qos: 1 });
      const worker = await h.consumer('worker');
      await subscribe(worker, 'worker', 'fleet', 'job', {
        durable: true,
        ack: true,
        ackTimeout: '1500ms',
        group: 'pool',
      });
      const fleet = await h.producer('fleet');
      // An offline durable consumer keeps its subscription; copies then queue for it.
      worker.disconnect();
      await waitUntil(() => h.stats().consumers.online === 0, 'worker offline');
      produce(fleet, 'fleet', 'job', { n: 1 });
      produce(fleet, 'fleet', 'job', { n: 2 });
      await waitUntil(() => h.broker.getStats().realms.default?.queued === 2, 'two copies queued');

      const res = await fetch(`${h.url}${HttpPath.CLIENTS}`);
      expect(res.status).toBe(200);
      const body = ClientsSchema.parse(await res.json());
      const realm = body.realms.default!;
      expect(realm.producers).toEqual([
        expect.objectContaining({
          name: 'fleet',
          online: true,
          placeholder: false,
          subscribers: 1,
        }),
      ]);
      expect(realm.consumers).toHaveLength(1);
      const consumer = realm.consumers[0]!;
      expect(consumer).toMatchObject({ name: 'worker', online: false });
      expect(consumer.offline_since).toEqual(expect.any(Number));
      expect(consumer.subscriptions).toEqual([
        expect.objectContaining({
          key: 'fleet-job',
          producer: 'fleet',
          mode: null,
          group: 'pool',
          durable: true,
          ack_required: true,
          ack_timeout_ms: 1500,
          consumer_id: 'worker',
          backlog: 2,
        }),
      ]);
      // MQTT clients are listed next to the socket.io registrations (auth off: no username).
      expect(realm.mqtt).toEqual([
        expect.objectContaining({
          client_id: 'sensor-7',
          username: null,
          role: 'both',
          authenticated: false,
          transport: 'mqtt',
          clean: true,
          subscriptions: [{ filter: 'fleet/job', qos: 1 }],
        }),
      ]);
    } finally {
      await h.close();
    }
  });

  it("counts a producer's MQTT subscribers and says which ids are socket ids", async () => {
    const h = await startBroker({ http_api: { enabled: true }, mqtt: { enabled: true, port: 0 } });
    try {
      const device = await mqttClient(h, { clientId: 'panel-1' });
      await device.subscribeAsync('trucks/+/speed', { qos: 0 });
      const other = await mqttClient(h, { clientId: 'panel-2' });
      await other.subscribeAsync('boats/#', { qos: 0 });
      // A producer with no id of its own (the broker uses its socket id), and one with an id.
      const truck = await h.producer('truck-7');
      produce(truck, 'truck-7', 'trucks/7/speed', { kmh: 80 });
      produce(truck, 'truck-7', 'trucks/7/fuel', { pct: 40 });
      const named = await h.connect();
      named.emit(ClientEvent.PRODUCER, { name: 'depot', id: 'depot-id-1' });
      await waitUntil(() => h.stats().producers.online === 2, 'two producers online');
      const list = async () => {
        const res = await fetch(`${h.url}${HttpPath.CLIENTS}`);
        return ClientsSchema.parse(await res.json()).realms.default!;
      };
      await waitUntilAsync(
        async () =>
          (await list()).producers.find((p) => p.name === 'truck-7')?.events?.length === 2,
        'events recorded',
      );
      const realm = await list();
      const truckEntry = realm.producers.find((p) => p.name === 'truck-7');
      expect(truckEntry).toMatchObject({
        subscribers: 0,
        id_from_socket: true,
        events: ['trucks/7/speed', 'trucks/7/fuel'],
        // panel-1's filter matches trucks/7/speed; panel-2's matches nothing of it.
        mqtt_subscribers: 1,
      });
      expect(realm.producers.find((p) => p.name === 'depot')).toMatchObject({
        id: 'depot-id-1',
        id_from_socket: false,
        events: [],
        mqtt_subscribers: 0,
      });
    } finally {
      await h.close();
    }
  });

  it("gives each connection's message counters: in from a producer, out to a consumer", async () => {
    const h = await startBroker({ http_api: { enabled: true }, mqtt: { enabled: true, port: 0 } });
    try {
      const worker = await h.consumer('worker');
      await subscribe(worker, 'worker', 'fleet', 'job');
      let received = 0;
      worker.on(consumeEvent(subscriptionKey('fleet', 'job')), () => (received += 1));
      const fleet = await h.producer('fleet');
      const device = await mqttClient(h, { clientId: 'sensor-9' });
      const list = async () => {
        const res = await fetch(`${h.url}${HttpPath.CLIENTS}`);
        return ClientsSchema.parse(await res.json()).realms.default!;
      };
      const counters = async () => {
        const realm = await list();
        const pick = (c?: { messages_in?: number; messages_out?: number }) => ({
          in: c?.messages_in,
          out: c?.messages_out,
        });
        return {
          fleet: pick(realm.producers.find((p) => p.name === 'fleet')),
          worker: pick(realm.consumers.find((c) => c.name === 'worker')),
          device: pick(realm.mqtt?.find((m) => m.client_id === 'sensor-9')),
        };
      };
      const before = await counters();
      for (const n of [1, 2, 3]) produce(fleet, 'fleet', 'job', { n });
      await device.publishAsync('sensors/9/temp', '21.5');
      await device.publishAsync('sensors/9/temp', '21.6');
      await waitUntil(() => received === 3, 'three deliveries');
      await waitUntilAsync(
        async () => (await counters()).device.in === before.device.in! + 2,
        'MQTT publishes counted',
      );
      const after = await counters();
      expect(after.fleet.in! - before.fleet.in!).toBe(3);
      expect(after.worker.out! - before.worker.out!).toBe(3);
      expect(after.device.in! - before.device.in!).toBe(2);

      // Offline: no connection, no counters.
      worker.disconnect();
      await waitUntil(() => h.stats().consumers.online === 0, 'worker offline');
      const gone = (await list()).consumers.find((c) => c.name === 'worker');
      expect(gone).toMatchObject({ online: false, socket_id: null });
      expect(gone).not.toHaveProperty('messages_in');
    } finally {
      await h.close();
    }
  });

  it('needs the admin bearer with auth on, and is off with http_api.stats: false', async () => {
    const token = 'clients-route-admin-token-0123456789';
    const h = await startBroker({
      http_api: { enabled: true },
      auth: { enabled: true, tokens: [{ token, realm: '*', role: 'admin' }] },
    });
    try {
      expect((await fetch(`${h.url}${HttpPath.CLIENTS}`)).status).toBe(401);
      const ok = await fetch(`${h.url}${HttpPath.CLIENTS}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.status).toBe(200);
      expect(ClientsSchema.parse(await ok.json())).toEqual({ realms: {} });
    } finally {
      await h.close();
    }
    const off = await startBroker({ http_api: { enabled: true, stats: false } });
    try {
      expect((await fetch(`${off.url}${HttpPath.CLIENTS}`)).status).toBe(403);
    } finally {
      await off.close();
    }
  });

  it('lists connected MQTT clients in their own realm, with filters and QoS, until they leave', async () => {
    const admin = 'clients-route-admin-token-0123456789';
    const h = await startBroker({
      http_api: { enabled: true },
      mqtt: { enabled: true, port: 0 },
      auth: {
        enabled: true,
        realms: { alpha: {}, beta: {} },
        tokens: [
          { token: admin, realm: '*', role: 'admin' },
          { token: 'alpha-both-token', realm: 'alpha', role: 'both' },
          { token: 'beta-both-token', realm: 'beta', role: 'both' },
        ],
      },
    });
    const list = async (harness: Harness) => {
      const res = await fetch(`${harness.url}${HttpPath.CLIENTS}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(res.status).toBe(200);
      return ClientsSchema.parse(await res.json());
    };
    try {
      const device = await mqttClient(h, {
        username: 'alpha',
        password: 'alpha-both-token',
        clientId: 'dev-1',
        clean: false,
      });
      await device.subscribeAsync({ 'sensors/+/temp': { qos: 1 }, 'alerts/#': { qos: 0 } });
      const other = await mqttClient(h, {
        protocolVersion: 5,
        username: 'beta',
        password: 'beta-both-token',
        clientId: 'dev-1',
      });
      await other.subscribeAsync('fleet/#', { qos: 0 });

      const body = await list(h);
      expect(body.realms.alpha!.mqtt).toEqual([
        {
          client_id: 'dev-1',
          protocol_version: 4,
          username: 'alpha',
          role: 'both',
          authenticated: true,
          transport: 'mqtt',
          clean: false,
          connected_since: expect.any(Number),
          subscriptions: [
            { filter: 'alerts/#', qos: 0 },
            { filter: 'sensors/+/temp', qos: 1 },
          ],
          messages_in: 0,
          messages_out: 0,
        },
      ]);
      expect(body.realms.beta!.mqtt).toEqual([
        expect.objectContaining({
          client_id: 'dev-1',
          protocol_version: 5,
          username: 'beta',
          clean: true,
          subscriptions: [{ filter: 'fleet/#', qos: 0 }],
        }),
      ]);
      expect(body.realms.beta!.producers).toEqual([]);
      expect(body.realms.beta!.consumers).toEqual([]);

      await device.endAsync();
      let after = await list(h);
      for (let i = 0; i < 100 && after.realms.alpha; i++) {
        await delay(20);
        after = await list(h);
      }
      expect(after.realms.alpha).toBeUndefined();
      expect(after.realms.beta!.mqtt).toHaveLength(1);

      // Back on its persistent session: listed again with its restored subscriptions.
      await mqttClient(h, {
        username: 'alpha',
        password: 'alpha-both-token',
        clientId: 'dev-1',
        clean: false,
      });
      expect((await list(h)).realms.alpha!.mqtt).toEqual([
        expect.objectContaining({
          client_id: 'dev-1',
          clean: false,
          subscriptions: [
            { filter: 'alerts/#', qos: 0 },
            { filter: 'sensors/+/temp', qos: 1 },
          ],
        }),
      ]);
    } finally {
      await h.close();
    }
  });
});
