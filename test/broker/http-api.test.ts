/**
 * The HTTP API on the broker's port (protocol-admin §10.1–§10.5): shapes validated with the
 * shared schemas, counters following real traffic, 403 for everything else.
 */
import { describe, expect, it } from 'vitest';
import { HealthSchema, HttpPath, StatsSchema, dlqPath } from '../../shared/http-api';
import { MetricName } from '../../shared/metric-names';
import { exactConsumeEvent, produce, startBroker, subscribe } from '../helpers/broker-harness';
import { collect } from '../helpers/wait';

const sample = (text: string, name: string, labels = ''): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels}`));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
};

describe('HTTP API', () => {
  it('serves health, stats and metrics that follow real traffic', async () => {
    const h = await startBroker({ http_api: { enabled: true } });
    try {
      const health = HealthSchema.parse(await (await fetch(`${h.url}${HttpPath.HEALTH}`)).json());
      expect(health).toMatchObject({ status: 'ok', node_id: null });
      expect((await fetch(`${h.url}${HttpPath.HEALTHZ}`)).status).toBe(200);

      const c = await h.consumer('w1');
      await subscribe(c, 'w1', 'fleet', 'job');
      await subscribe(c, 'w1', 'fleet', 'acked', {
        manualAck: true,
        ackTimeout: '50ms',
        retry: { max_attempts: 1 },
      });
      const p = await h.producer('fleet');
      const got = collect(c, exactConsumeEvent('fleet', 'job'), 3);
      for (let i = 0; i < 3; i++) produce(p, 'fleet', 'job', i);
      const dead = collect(c, exactConsumeEvent('fleet', 'acked'), 1);
      produce(p, 'fleet', 'acked', 'never-acked');
      await Promise.all([got, dead]);
      await new Promise((r) => setTimeout(r, 200));

      const stats = StatsSchema.parse(await (await fetch(`${h.url}${HttpPath.STATS}`)).json());
      expect(stats.realms.default).toEqual({
        producers: { total: 1, online: 1 },
        consumers: { total: 1, online: 1 },
        subscriptions: 2,
        // Added by Switchboard: the one ACK copy was dead-lettered, nothing is queued.
        queued: 0,
        queues: [],
      });
      expect(stats.connections_current).toBe(2);

      const res = await fetch(`${h.url}${HttpPath.METRICS}`);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(
        sample(text, MetricName.MESSAGES_PRODUCED_TOTAL, '{event="job",realm="default"}'),
      ).toBe(3);
      expect(
        sample(text, MetricName.MESSAGES_DELIVERED_TOTAL, '{event="job",realm="default"}'),
      ).toBe(3);
      expect(sample(text, MetricName.MESSAGES_QUEUED_TOTAL, '{realm="default"}')).toBe(1);
      expect(sample(text, MetricName.MESSAGES_DLQ_TOTAL, '{realm="default"}')).toBe(1);
      expect(sample(text, MetricName.ACK_TIMEOUT_TOTAL, '{realm="default"}')).toBe(1);
      expect(sample(text, MetricName.CONNECTIONS_TOTAL)).toBe(2);
      expect(sample(text, MetricName.CONNECTIONS_CURRENT)).toBe(2);

      // §10.6: the DLQ of a realm over HTTP, as the store holds it.
      const dlq = (await (await fetch(`${h.url}${dlqPath('default')}`)).json()) as {
        realm: string;
        entries: Array<{ reason: string; message: { message: unknown } }>;
      };
      expect(dlq.realm).toBe('default');
      expect(dlq.entries).toHaveLength(1);
      expect(dlq.entries[0]).toMatchObject({
        reason: 'ack timeout after 1 attempt(s)',
        message: { message: 'never-acked' },
      });
      const other = await (await fetch(`${h.url}${dlqPath('a/b c')}`)).json();
      expect(other).toEqual({ realm: 'a/b c', entries: [], next_cursor: null });
    } finally {
      await h.close();
    }
  });

  it('folds event labels past the per-realm cap into "other"', async () => {
    const h = await startBroker({
      http_api: { enabled: true },
      input_limits: { max_event_labels_per_realm: 3 },
    });
    try {
      const p = await h.producer('fleet');
      for (let i = 0; i < 10; i++) produce(p, 'fleet', `e${i}`, i);
      await new Promise((r) => setTimeout(r, 200));
      const text = await (await fetch(`${h.url}${HttpPath.METRICS}`)).text();
      const produced = text
        .split('\n')
        .filter((l) => l.startsWith(MetricName.MESSAGES_PRODUCED_TOTAL));
      expect(produced).toHaveLength(4);
      expect(
        sample(text, MetricName.MESSAGES_PRODUCED_TOTAL, '{event="other",realm="default"}'),
      ).toBe(7);
    } finally {
      await h.close();
    }
  });

  it('answers 403 with an empty body to anything else, and to everything when disabled', async () => {
    const on = await startBroker({ http_api: { enabled: true, stats: false } });
    const off = await startBroker({});
    try {
      for (const [url, init] of [
        [`${on.url}/nope`, {}],
        [`${on.url}${HttpPath.STATS}`, {}],
        [`${on.url}/api/realms/default/dlq`, {}],
        [`${on.url}${HttpPath.HEALTH}`, { method: 'POST' }],
        [`${on.url}/%E0%A4%A`, {}],
        [`${off.url}${HttpPath.HEALTH}`, {}],
      ] as const) {
        const res = await fetch(url, init);
        expect(res.status, url).toBe(403);
        expect(await res.text()).toBe('');
      }
    } finally {
      await on.close();
      await off.close();
    }
  });
});
