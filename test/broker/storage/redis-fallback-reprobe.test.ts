/**
 * After a start-up fallback (spec/protocol-extensions.md §7.1 Note 7-A): a broker whose Redis
 * was down at start-up runs on its memory fallback and says so — `storage_fell_back: true` in
 * `/health` and `/api/stats`, `tyo_mq_storage_fallback 1`, the `storage_fell_back` alarm — and
 * keeps probing a real `redis-server`; once it is back the alarm turns critical and one error
 * line tells the operator, while the node stays on its fallback (no automatic migration).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerResources } from '../../../shared/broker-resources';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { parsePrometheusText } from '../../../electron/services/prometheus-text';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { waitUntil, waitUntilAsync } from '../../helpers/wait';
import { captureLogs } from '../../support/log-capture';
import { ADMIN_TOKEN, adminSettings, manager } from '../admin/management-client';

let h: Harness | undefined;
let redis: RedisServer | undefined;
afterEach(async () => {
  await h?.close();
  await redis?.stop();
  h = redis = undefined;
});

const bearer = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };

describe('Redis fallback re-probe (Note 7-A)', () => {
  it('reports the fallback, and tells once Redis answers again', async () => {
    redis = await startRedisServer();
    await redis.kill();
    const logs = captureLogs();
    h = await startBroker(
      adminSettings({
        http_api: { enabled: true },
        storage: 'redis',
        storage_options: {
          url: redis.url,
          fallback: 'memory',
          connect_timeout: 300,
          probe_timeout: 500,
          reprobe_interval_ms: 200,
        },
      }) as BrokerSettings,
      { logger: logs.logger },
    );
    expect(h.broker.store.backend).toBe('memory');

    const health = await (await fetch(`${h.url}${HttpPath.HEALTH}`)).json();
    expect(health).toMatchObject({ status: 'ok', storage_fell_back: true });
    const stats = await (await fetch(`${h.url}${HttpPath.STATS}`, bearer)).json();
    expect(stats.storage_fell_back).toBe(true);
    const metrics = parsePrometheusText(
      await (await fetch(`${h.url}${HttpPath.METRICS}`, bearer)).text(),
    );
    expect(metrics.samples.find((s) => s.name === MetricName.STORAGE_FALLBACK)?.value).toBe(1);

    const m = await manager(h);
    const alarm = async () => {
      const reply = await m.run({ command: 'resources' });
      return (reply.resources as BrokerResources).alarms.find((a) => a.id === 'storage_fell_back');
    };
    expect(await alarm()).toMatchObject({ level: 'warning' });

    // Redis comes back on the same port: the next probe sees it.
    await redis.restart();
    await waitUntil(
      () => logs.text().includes('Redis is reachable again'),
      'the re-probe reports Redis back',
    );
    await waitUntilAsync(
      async () => (await alarm())?.level === 'critical',
      'the alarm turns critical',
    );
    // No automatic migration: still the fallback store.
    expect(h.broker.store.backend).toBe('memory');
    expect(logs.text().match(/Redis is reachable again/g)).toHaveLength(1);
  });

  it('a broker on a reachable Redis reports no fallback', async () => {
    redis = await startRedisServer();
    h = await startBroker(
      adminSettings({
        http_api: { enabled: true },
        storage: 'redis',
        storage_options: { url: redis.url, fallback: 'memory' },
      }) as BrokerSettings,
    );
    const health = await (await fetch(`${h.url}${HttpPath.HEALTH}`)).json();
    expect(health).not.toHaveProperty('storage_fell_back');
    const metrics = parsePrometheusText(
      await (await fetch(`${h.url}${HttpPath.METRICS}`, bearer)).text(),
    );
    expect(metrics.samples.find((s) => s.name === MetricName.STORAGE_FALLBACK)?.value).toBe(0);
  });
});
