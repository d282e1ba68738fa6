/**
 * `resources` (issue 27; docs/management.md "Resources and alarms") on a real broker with the
 * SQLite store and stock socket.io clients: the reading names the store's files with their
 * sizes, the durable queues and the oldest ready copy's age, free disk, memory and open file
 * descriptors; a stale queue and dead-lettered messages raise their alarms, which
 * `/api/metrics` shows too (`tyo_mq_alarm_active`), beside prom-client's process metrics.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrokerResources } from '../../../shared/broker-resources';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { parsePrometheusText } from '../../../electron/services/prometheus-text';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  sync,
  type BrokerSettings,
  type Harness,
} from '../../helpers/broker-harness';
import { collect, waitUntilAsync } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { ADMIN_TOKEN, adminSettings, manager, type Manager } from './management-client';

const ALPHA_KEY = 'alpha-manager-key-9d21';

let dir: TempDir;
let h: Harness;
let m: Manager;
let dbFile: string;

beforeEach(async () => {
  dir = await makeTempDir();
  dbFile = join(dir.path, 'res.sqlite');
  const settings = adminSettings(
    {
      storage: 'sqlite',
      storage_options: { filename: dbFile },
      http_api: { enabled: true },
      // A queue is stale once its oldest ready copy is 50 ms old; any DLQ entry alarms.
      alarms: { queue_oldest_age_ms: 50, dlq_growth: 1 },
    },
    { realms: { default: { required: false }, alpha: { manager_key: ALPHA_KEY } } },
  );
  h = await startBroker(settings as BrokerSettings, { dataDir: dir.path });
  m = await manager(h);
});

afterEach(async () => {
  await h.close();
  await dir.remove();
});

async function resources(): Promise<BrokerResources> {
  const reply = await m.run({ command: 'resources' });
  expect(reply.ok).toBe(true);
  return reply.resources as BrokerResources;
}

const ids = (r: BrokerResources) => r.alarms.map((a) => a.id).sort();

describe('resources', () => {
  it('reads the store, queues, disk and process, and raises queue_stale for an offline queue', async () => {
    const before = await resources();
    expect(before.store.backend).toBe('sqlite');
    expect(before.store.files.map((f) => f.name)).toEqual(['messages', 'messages-wal']);
    expect(before.store.files[0]!.path).toBe(dbFile);
    expect(before.store.queues).toBe(0);
    expect(before.store.oldest_ready_age_ms).toBeNull();
    expect(before.memory.rss_bytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(before.memory.heap_used_bytes).toBeGreaterThan(0);
    expect(before.open_fds).toBeGreaterThan(3);
    expect(before.disk?.free_bytes).toBeGreaterThan(0);
    expect(ids(before)).toEqual([]);

    // An offline durable consumer: 5 copies stored, none delivered.
    const worker = await h.consumer('worker');
    await subscribe(worker, 'worker', 'fleet', 'job', { durable: true });
    await h.disconnect(worker);
    const producer = await h.producer('fleet');
    for (let i = 0; i < 5; i++) produce(producer, 'fleet', 'job', { n: i, text: 'x'.repeat(500) });
    await sync(producer);
    // Readings are cached for 2 s: wait for one that sees the queue.
    let stale = before;
    await waitUntilAsync(async () => {
      stale = await resources();
      return stale.store.queues === 1 && ids(stale).includes('queue_stale');
    }, 'the stale queue is seen');
    expect(stale.store.oldest_ready_age_ms).toBeGreaterThan(50);
    const alarm = stale.alarms.find((a) => a.id === 'queue_stale')!;
    expect(alarm).toMatchObject({ level: 'warning', unit: 'ms', threshold: 50 });
    expect(alarm.message).toMatch(/oldest ready message is \d+ s old/);
    const messages = stale.store.files.find((f) => f.name === 'messages')!;
    const wal = stale.store.files.find((f) => f.name === 'messages-wal')!;
    expect(messages.bytes + wal.bytes).toBeGreaterThan(2_500);
    expect(messages.bytes).toBe(statSync(dbFile).size);

    // The same on /api/metrics (admin bearer), with prom-client's process metrics.
    const res = await fetch(`${h.url}${HttpPath.METRICS}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const metrics = parsePrometheusText(text);
    const sample = (name: string, labels: Record<string, string> = {}) =>
      metrics.samples.find(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      )?.value;
    expect(sample(MetricName.ALARM_ACTIVE, { alarm: 'queue_stale' })).toBe(1);
    expect(sample(MetricName.ALARM_ACTIVE, { alarm: 'memory' })).toBe(0);
    expect(sample(MetricName.STORE_FILE_BYTES, { file: 'messages' })).toBeGreaterThan(0);
    expect(sample(MetricName.QUEUE_OLDEST_READY_AGE)).toBeGreaterThan(0.05);
    expect(sample('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('raises dlq_growing once messages are dead-lettered, and keeps its first-seen time', async () => {
    expect(ids(await resources())).toEqual([]);
    const c = await h.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', {
      manualAck: true,
      ackTimeout: '50ms',
      retry: { max_attempts: 1 },
    });
    const p = await h.producer('fleet');
    const got = collect(c, exactConsumeEvent('fleet', 'job'), 3);
    for (let i = 0; i < 3; i++) produce(p, 'fleet', 'job', i);
    await got;
    await waitUntilAsync(
      async () => (await h.broker.store.listDlq('default')).length === 3,
      'three entries dead-lettered',
    );
    let first: BrokerResources | null = null;
    await waitUntilAsync(async () => {
      first = await resources();
      return ids(first).includes('dlq_growing');
    }, 'dlq_growing raised');
    expect(first!.store.dlq_entries).toBe(3);
    const alarm = first!.alarms.find((a) => a.id === 'dlq_growing')!;
    expect(alarm).toMatchObject({ value: 3, threshold: 1, unit: 'entries', level: 'warning' });
    // A later reading keeps the alarm's first-seen time.
    let later: BrokerResources | null = null;
    await waitUntilAsync(async () => {
      later = await resources();
      return later.at > first!.at;
    }, 'a fresh reading');
    expect(later!.alarms.find((a) => a.id === 'dlq_growing')?.since).toBe(alarm.since);

    // Discarding entries shrinks the DLQ, not what was dead-lettered in the window (a newcomer
    // trial read "2 dead-lettered" after 5, since 3 had been replayed or discarded).
    const [one, two] = await h.broker.store.listDlq('default');
    expect(await h.broker.store.discardDlq(one!.id, 'default')).toBe(true);
    expect(await h.broker.store.discardDlq(two!.id, 'default')).toBe(true);
    let after: BrokerResources | null = null;
    await waitUntilAsync(async () => {
      after = await resources();
      return after.at > later!.at && after.store.dlq_entries === 1;
    }, 'a reading after the discards');
    expect(after!.alarms.find((a) => a.id === 'dlq_growing')).toMatchObject({ value: 3 });
  });

  it('is admin only: a realm manager key is refused', async () => {
    // The key is valid for its realm's own commands, but `resources` describes the whole broker.
    const own = await m.run({ command: 'list_queues', realm: 'alpha' }, ALPHA_KEY);
    expect(own).toMatchObject({ ok: true, realm: 'alpha' });
    const reply = await m.run({ command: 'resources', realm: 'alpha' }, ALPHA_KEY);
    expect(reply).toMatchObject({ ok: false, code: 401 });
    expect(reply).not.toHaveProperty('resources');
  });
});
