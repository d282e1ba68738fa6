/**
 * MQTT clients in metrics, limits and stats (issue 14): the connections gauges, the produced and
 * delivered counters and `/api/stats` count them; connection limits count MQTT and socket.io
 * connections together; an over-rate MQTT publisher is throttled (nothing lost, nothing closed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  parsePrometheusText,
  type PromExposition,
} from '../../../electron/services/prometheus-text';
import { HttpPath, type Stats } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { connackCode, mqttClient, nextMessage } from '../../helpers/mqtt-clients';
import { delay, waitUntil } from '../../helpers/wait';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function broker(extra: Record<string, unknown> = {}): Promise<Harness> {
  h = await startBroker({
    http_api: { enabled: true },
    mqtt: { enabled: true, port: 0 },
    ...extra,
  } as BrokerSettings);
  return h;
}

async function scrape(): Promise<PromExposition> {
  const res = await fetch(`${h!.url}${HttpPath.METRICS}`);
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text());
}

async function stats(): Promise<Stats> {
  const res = await fetch(`${h!.url}${HttpPath.STATS}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Stats;
}

function value(m: PromExposition, name: string, labels: Record<string, string> = {}): number {
  const hits = m.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return hits.length === 1 ? hits[0]!.value : Number.NaN;
}

describe('MQTT clients in metrics and stats', () => {
  it('counts connections by transport, produced and delivered messages, and per-realm clients', async () => {
    await broker();
    await h!.connect();
    const sub = await mqttClient(h!);
    const pub = await mqttClient(h!);
    await sub.subscribeAsync('room/#', { qos: 1 });
    const got = nextMessage(sub);
    await pub.publishAsync('room/1', 'hi', { qos: 1 });
    await got;

    const m = await scrape();
    expect(value(m, MetricName.CONNECTIONS_BY_TRANSPORT, { transport: 'mqtt' })).toBe(2);
    expect(value(m, MetricName.CONNECTIONS_BY_TRANSPORT, { transport: 'websocket' })).toBe(1);
    expect(value(m, MetricName.CONNECTIONS_CURRENT)).toBe(3);
    expect(value(m, MetricName.CONNECTIONS_TOTAL)).toBeGreaterThanOrEqual(2);
    const room = { event: 'room/1', realm: 'default' };
    expect(value(m, MetricName.MESSAGES_PRODUCED_TOTAL, room)).toBe(1);
    expect(value(m, MetricName.MESSAGES_DELIVERED_TOTAL, room)).toBe(1);

    const s = await stats();
    expect(s.connections_current).toBe(3);
    expect(s.realms.default?.mqtt_clients).toBe(2);
    expect(h!.broker.status().connectionsCurrent).toBe(3);

    await pub.endAsync();
    await waitUntil(() => h!.broker.getStats().realms.default?.mqtt_clients === 1, 'one left');
  });
});

describe('limits on MQTT clients', () => {
  it('max_connections_per_ip counts socket.io and MQTT connections together (CONNACK 3)', async () => {
    await broker({ limits: { max_connections_per_ip: 2 } });
    await h!.connect();
    const first = await mqttClient(h!);
    expect(await connackCode(h!)).toBe(3);
    await first.endAsync();
    await delay(100);
    expect(await connackCode(h!)).toBe(0);
    const m = await scrape();
    expect(value(m, MetricName.RATE_LIMITED_TOTAL, { reason: 'max_connections_per_ip' })).toBe(1);
  });

  it('max_connections_per_realm applies once the MQTT client is in its realm', async () => {
    await broker({ limits: { max_connections_per_realm: 1 } });
    await mqttClient(h!);
    expect(await connackCode(h!)).toBe(3);
  });

  it('throttles an over-rate MQTT publisher: every message arrives, in order, still connected', async () => {
    await broker({ limits: { messages_per_second: 20, message_burst: 1 } });
    const sub = await mqttClient(h!);
    await sub.subscribeAsync('t', { qos: 1 });
    const seen: string[] = [];
    sub.on('message', (_t, p) => seen.push(p.toString()));
    const pub = await mqttClient(h!);
    await Promise.all([1, 2, 3, 4, 5].map((i) => pub.publishAsync('t', String(i), { qos: 1 })));
    await waitUntil(() => seen.length === 5, 'five messages');
    expect(seen).toEqual(['1', '2', '3', '4', '5']);
    expect(pub.connected).toBe(true);
    const m = await scrape();
    expect(
      value(m, MetricName.RATE_LIMITED_TOTAL, { reason: 'messages_per_second' }),
    ).toBeGreaterThanOrEqual(1);
  });
});
