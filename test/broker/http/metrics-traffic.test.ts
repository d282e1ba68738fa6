/**
 * `/api/metrics` after real traffic (`spec/protocol-admin.md` §10.4 and issue 11 "Metrics an
 * operator needs"): parsed as Prometheus text, counters and gauges equal to the traffic sent.
 * A real broker on the SQLite store (temp dir), real socket.io clients, real HTTP scrapes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  parsePrometheusText,
  type PromExposition,
} from '../../../electron/services/prometheus-text';
import { HttpPath } from '../../../shared/http-api';
import { ADMIN_TOKEN, authenticate, startAuthBroker } from '../../helpers/auth-clients';
import { MetricName } from '../../../shared/metric-names';
import { ClientEvent, ServerEvent, type DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  sync,
  type Harness,
} from '../../helpers/broker-harness';
import { collect, delay } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const N = 300;
const JOB = exactConsumeEvent('fleet', 'job');

let h: Harness | undefined;
let dir: TempDir | undefined;
afterEach(async () => {
  await h?.close();
  await dir?.remove();
  h = dir = undefined;
});

async function scrape(): Promise<PromExposition> {
  const res = await fetch(`${h!.url}${HttpPath.METRICS}`);
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text());
}

/** Scrapes every 20 ms until the realm's queue depth reads `depth` (5 s at most). */
async function depthReaches(depth: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (value(await scrape(), MetricName.QUEUE_DEPTH, { realm: 'default' }) !== depth) {
    if (Date.now() > deadline) throw new Error(`queue depth never reached ${depth}`);
    await delay(20);
  }
}

/** The value of the one sample of `name` whose labels include `labels` (NaN when absent). */
function value(m: PromExposition, name: string, labels: Record<string, string> = {}): number {
  const hits = m.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return hits.length === 1 ? hits[0]!.value : Number.NaN;
}

describe('metrics after real traffic', () => {
  it('queue depth 300 for an offline durable consumer, then latencies once it drains with ACKs', async () => {
    dir = await makeTempDir();
    h = await startBroker(
      {
        http_api: { enabled: true },
        storage: 'sqlite',
        storage_options: { filename: `${dir.path}/store.db` },
      } as never,
      { dataDir: dir.path },
    );
    const c = await h.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true, manualAck: true });
    await h.disconnect(c);
    const p = await h.producer('fleet');
    for (let i = 0; i < N; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    await depthReaches(N);

    const before = await scrape();
    expect(before.types[MetricName.QUEUE_DEPTH]).toBe('gauge');
    expect(value(before, MetricName.QUEUE_DEPTH, { realm: 'default' })).toBe(N);
    expect(
      value(before, MetricName.SUBSCRIPTION_QUEUE_DEPTH, { realm: 'default', consumer_id: 'w1' }),
    ).toBe(N);
    expect(
      value(before, MetricName.MESSAGES_PRODUCED_TOTAL, { event: 'job', realm: 'default' }),
    ).toBe(N);
    expect(value(before, MetricName.MESSAGES_QUEUED_TOTAL, { realm: 'default' })).toBe(N);
    expect(value(before, MetricName.CONNECTIONS_TOTAL)).toBe(2);
    // Only the producer is connected now, over websocket.
    expect(value(before, MetricName.CONNECTIONS_CURRENT)).toBe(1);
    expect(value(before, MetricName.CONNECTIONS_BY_TRANSPORT, { transport: 'websocket' })).toBe(1);
    expect(value(before, MetricName.CONNECTIONS_BY_TRANSPORT, { transport: 'polling' })).toBe(0);
    // Group commit: at least one batch, never more batches than writes.
    const batches = value(before, `${MetricName.STORAGE_COMMIT_SECONDS}_count`);
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(N + 10);
    expect(before.types[MetricName.STORAGE_COMMIT_SECONDS]).toBe('histogram');
    // Nothing delivered yet: the live path never ran.
    expect(value(before, `${MetricName.PUBLISH_DELIVER_SECONDS}_count`)).toBe(0);
    expect(value(before, `${MetricName.ACK_LATENCY_SECONDS}_count`)).toBe(0);

    // The consumer comes back, is replayed all 300 and ACKs each.
    const back = await h.consumer('w1');
    const got = collect<DeliveryEnvelope>(back, JOB, N);
    back.on(JOB, (env: DeliveryEnvelope) => back.emit(ClientEvent.ACK, { msgId: env.msgId }));
    await subscribe(back, 'w1', 'fleet', 'job', { durable: true, manualAck: true });
    expect((await got).map((e) => e.message)).toEqual([...Array(N).keys()]);
    await depthReaches(0);

    const after = await scrape();
    expect(
      value(after, MetricName.MESSAGES_DELIVERED_TOTAL, { event: 'job', realm: 'default' }),
    ).toBe(N);
    expect(value(after, `${MetricName.PUBLISH_DELIVER_SECONDS}_count`)).toBe(N);
    expect(value(after, `${MetricName.ACK_LATENCY_SECONDS}_count`)).toBe(N);
    expect(value(after, `${MetricName.ACK_LATENCY_SECONDS}_bucket`, { le: '+Inf' })).toBe(N);
    expect(value(after, MetricName.CONNECTIONS_BY_TRANSPORT, { transport: 'websocket' })).toBe(2);
    // The §10.4 families keep their types.
    expect(after.types[MetricName.MESSAGES_PRODUCED_TOTAL]).toBe('counter');
    expect(after.types[MetricName.CONNECTIONS_CURRENT]).toBe('gauge');
  });

  it('counts live plain fan-outs once per key in publish→deliver', async () => {
    h = await startBroker({ http_api: { enabled: true } });
    const a = await h.consumer('a');
    const b = await h.consumer('b');
    await subscribe(a, 'a', 'fleet', 'job');
    await subscribe(b, 'b', 'fleet', 'job');
    const p = await h.producer('fleet');
    const got = Promise.all([collect(a, JOB, 10), collect(b, JOB, 10)]);
    for (let i = 0; i < 10; i++) produce(p, 'fleet', 'job', i);
    await got;
    const m = await scrape();
    expect(value(m, MetricName.MESSAGES_DELIVERED_TOTAL, { event: 'job', realm: 'default' })).toBe(
      20,
    );
    expect(value(m, `${MetricName.PUBLISH_DELIVER_SECONDS}_count`)).toBe(10);
  });

  it('counts every AUTH_FAIL as an unauthorized rejected input', async () => {
    h = await startAuthBroker(
      { tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }] },
      { http_api: { enabled: true, metrics_auth: false } },
    );
    let fails = 0;
    for (const token of ['nope', 'also-wrong']) {
      const s = await h.connect();
      expect((await authenticate(s, { token })).event).toBe('AUTH_FAIL');
      fails++;
    }
    // An event before AUTHENTICATION: refused by the gate unless §3.4 admits it implicitly.
    const early = await h.connect();
    const refused = new Promise<boolean>((resolve) => {
      early.once(ServerEvent.AUTH_FAIL, () => resolve(true));
      setTimeout(() => resolve(false), 500);
    });
    early.emit(ClientEvent.SUBSCRIBE, { event: 'job', producer: 'fleet', consumer: 'x' });
    if (await refused) fails++;
    const m = await scrape();
    expect(fails).toBeGreaterThanOrEqual(2);
    expect(value(m, MetricName.REJECTED_INPUTS_TOTAL, { reason: 'unauthorized' })).toBe(fails);
  });

  it('tyo_mq_dlq_depth follows the DLQ per realm, on the memory and the SQLite store', async () => {
    for (const storage of ['memory', 'sqlite'] as const) {
      dir = await makeTempDir();
      h = await startBroker(
        {
          http_api: { enabled: true },
          storage,
          storage_options: { filename: `${dir.path}/store.db` },
        } as never,
        { dataDir: dir.path },
      );
      const c = await h.consumer('w1');
      await subscribe(c, 'w1', 'fleet', 'job', {
        manualAck: true,
        ackTimeout: '50ms',
        retry: { max_attempts: 1 },
      });
      const p = await h.producer('fleet');
      const got = collect(c, JOB, 3);
      for (let i = 0; i < 3; i++) produce(p, 'fleet', 'job', i);
      await got;
      const deadline = Date.now() + 5_000;
      while ((await h.broker.store.listDlq('default')).length < 3 && Date.now() < deadline) {
        await delay(20);
      }
      const m = await scrape();
      expect(m.types[MetricName.DLQ_DEPTH]).toBe('gauge');
      expect(value(m, MetricName.DLQ_DEPTH, { realm: 'default' })).toBe(3);
      expect(value(m, MetricName.MESSAGES_DLQ_TOTAL, { realm: 'default' })).toBe(3);
      const [first] = await h.broker.store.listDlq('default');
      await h.broker.store.discardDlq(first!.id);
      expect(value(await scrape(), MetricName.DLQ_DEPTH, { realm: 'default' })).toBe(2);
      await h.close();
      await dir.remove();
      h = dir = undefined;
    }
  });
});
