/**
 * `GET /api/clients` (Switchboard extension, docs/http-api.md): registered producers and
 * consumers per realm, each consumer's subscriptions with their options and durable backlog;
 * admin bearer when auth is on; off with `http_api.stats: false`.
 */
import { describe, expect, it } from 'vitest';
import { ClientsSchema, HttpPath } from '../../../shared/http-api';
import { produce, startBroker, subscribe } from '../../helpers/broker-harness';
import { waitUntil } from '../../helpers/wait';

describe('GET /api/clients', () => {
  it('lists producers, consumers and their subscriptions with the durable backlog', async () => {
    const h = await startBroker({ http_api: { enabled: true } });
    try {
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
});
