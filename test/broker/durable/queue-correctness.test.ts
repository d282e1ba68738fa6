/**
 * Durable-queue correctness (issue 7 items 1–3, issue 8 items 6–7; ARCHITECTURE §4): exact
 * queue caps under concurrency, redeliveries marked across connections and restarts, one
 * owner per stored copy, publish order per durable subscription, group hand-over in a retry
 * delay. Memory and SQLite stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientEvent, type DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  sync,
  type BrokerOptions,
  type Harness,
} from '../../helpers/broker-harness';
import { collect, delay, expectNothing, waitFor, waitUntil } from '../../helpers/wait';

const JOB = exactConsumeEvent('fleet', 'job');
const open: Harness[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function broker(
  settings: Record<string, unknown> = {},
  options: BrokerOptions = {},
): Promise<Harness> {
  const h = await startBroker(settings, options);
  open.push(h);
  return h;
}

function sqliteSettings(extra: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'swb-queue-'));
  dirs.push(dir);
  return {
    storage: 'sqlite',
    storage_options: { filename: join(dir, 'q.sqlite'), ...extra },
  };
}

/** A consumer subscribed with `opts`, then gone; its name stays registered offline. */
async function goOffline(h: Harness, name: string, opts: Record<string, unknown>) {
  const c = await h.consumer(name);
  await subscribe(c, name, 'fleet', 'job', opts);
  await h.disconnect(c);
}

const MANUAL = { durable: true, manualAck: true, ackTimeout: '30s' };

describe.each([
  ['memory', () => ({})],
  ['sqlite', () => sqliteSettings()],
])('durable queue correctness (%s)', (_name, settings) => {
  it('caps a realm exactly under a burst of concurrent PRODUCEs (issue 7.1)', async () => {
    const h = await broker({ ...settings(), limits: { max_queued_per_realm: 2 } });
    await goOffline(h, 'w1', { durable: true });
    const p = await h.producer('fleet');
    // Publisher confirms: each answer comes once its copy is stored or refused.
    const burst = async (from: number) =>
      (
        await Promise.all(
          [0, 1, 2, 3, 4].map((i) =>
            p.timeout(5_000).emitWithAck(ClientEvent.PRODUCE, {
              event: 'job',
              message: from + i,
              from: 'fleet',
            }),
          ),
        )
      ).map((r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code));
    expect((await burst(0)).sort()).toEqual([
      'SWB_ERR_QUEUE_FULL',
      'SWB_ERR_QUEUE_FULL',
      'SWB_ERR_QUEUE_FULL',
      'ok',
      'ok',
    ]);
    await h.settle(p);
    expect(await h.broker.store.countQueued('default')).toBe(2);
    // Once the consumer drained its queue, there is room again.
    const c = await h.consumer('w1');
    const got = collect<DeliveryEnvelope>(c, JOB, 2);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
    expect((await got).map((e) => e.message)).toEqual([0, 1]);
    await h.disconnect(c);
    for (let i = 5; i < 8; i++) produce(p, 'fleet', 'job', i);
    await h.settle(p);
    expect(await h.broker.store.countQueued('default')).toBe(2);
  });

  it('marks a re-send after a reconnect as delivery_attempt 2 (issue 7.2)', async () => {
    const h = await broker(settings());
    const c = await h.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', MANUAL);
    const p = await h.producer('fleet');
    const first = waitFor<DeliveryEnvelope>(c, JOB);
    produce(p, 'fleet', 'job', 'M');
    expect((await first).delivery_attempt).toBe(1);
    await h.disconnect(c);
    const again = await h.consumer('w1');
    const second = waitFor<DeliveryEnvelope>(again, JOB);
    await subscribe(again, 'w1', 'fleet', 'job', MANUAL);
    const env = await second;
    expect(env).toMatchObject({ message: 'M', delivery_attempt: 2 });
    expect(env.msgId).toBe((await h.broker.store.dequeue('default', 'fleet-job', 'w1'))[0]?.id);
  });

  it('counts the retry budget across connections, then dead-letters (issue 7.2)', async () => {
    const h = await broker(settings());
    const opts = { ...MANUAL, retry: { max_attempts: 2 } };
    const c = await h.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', opts);
    const p = await h.producer('fleet');
    const first = waitFor<DeliveryEnvelope>(c, JOB);
    produce(p, 'fleet', 'job', 'budget');
    await first;
    await h.disconnect(c);
    const c2 = await h.consumer('w1');
    const second = waitFor<DeliveryEnvelope>(c2, JOB);
    await subscribe(c2, 'w1', 'fleet', 'job', opts);
    expect((await second).delivery_attempt).toBe(2);
    await h.disconnect(c2);
    const c3 = await h.consumer('w1');
    const none = expectNothing(c3, JOB, 300);
    await subscribe(c3, 'w1', 'fleet', 'job', opts);
    await none;
    await waitForDlq(h, 1);
    expect((await h.broker.store.listDlq('default'))[0]).toMatchObject({
      reason: 'ack timeout after 2 attempt(s)',
      attempts: 2,
    });
  });

  it('delivers a live copy still in the commit batch once when a SUBSCRIBE replays (issue 8.6)', async () => {
    const h = await broker(
      _name === 'sqlite' ? sqliteSettings({ commit_delay_ms: 300 }) : settings(),
    );
    const c = await h.consumer('w1');
    const opts = { ...MANUAL, retry: { max_attempts: 1 } };
    await subscribe(c, 'w1', 'fleet', 'job', opts);
    const p = await h.producer('fleet');
    const got: DeliveryEnvelope[] = [];
    c.on(JOB, (e: DeliveryEnvelope) => got.push(e));
    for (let i = 0; i < 20; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    c.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'fleet',
      consumer: 'w1',
      consumer_id: 'w1',
      durable: true,
      ack: true,
      manual_ack: true,
      ack_timeout: '30s',
      retry: { max_attempts: 1 },
    });
    await waitUntil(() => got.length >= 20, '20 deliveries');
    // No duplicate on its way: the replay and the batch commit settled, then a PING round trip
    // on the consumer's socket comes back after anything the broker sent it before.
    await h.settle(p);
    await h.settle(c);
    expect(got.map((e) => e.message)).toEqual([...Array(20).keys()]);
    expect(got.every((e) => e.delivery_attempt === 1)).toBe(true);
  });

  it('drains the backlog before newer copies, in publish order (issue 7.3)', async () => {
    const h = await broker(settings());
    await goOffline(h, 'w1', MANUAL);
    const p = await h.producer('fleet');
    for (let i = 0; i < 100; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    // CONSUMER, then live traffic, then SUBSCRIBE 200 ms later.
    const c = await h.consumer('w1');
    const got: number[] = [];
    c.on(JOB, (e: DeliveryEnvelope) => {
      got.push(e.message as number);
      c.emit(ClientEvent.ACK, { msgId: e.msgId });
    });
    for (let i = 100; i < 110; i++) produce(p, 'fleet', 'job', i);
    await delay(200);
    c.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'fleet',
      consumer: 'w1',
      consumer_id: 'w1',
      durable: true,
      ack: true,
      manual_ack: true,
      ack_timeout: '30s',
    });
    // Live traffic during the replay, then after it.
    for (let i = 110; i < 150; i++) produce(p, 'fleet', 'job', i);
    await waitUntil(() => got.length >= 150, '150 deliveries', 10_000);
    for (let i = 150; i < 160; i++) produce(p, 'fleet', 'job', i);
    await waitUntil(() => got.length >= 160, '160 deliveries', 10_000);
    expect(got).toEqual([...Array(160).keys()]);
    await waitUntil(() => h.broker.getStats().realms.default?.queued === 0, 'all ACKed');
  });

  it('keeps publish order for a durable subscription without ACK (issue 7.3)', async () => {
    const h = await broker(settings());
    await goOffline(h, 'w1', { durable: true });
    const p = await h.producer('fleet');
    for (let i = 0; i < 30; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    const c = await h.consumer('w1');
    const got: number[] = [];
    c.on(JOB, (e: DeliveryEnvelope) => got.push(e.message as number));
    for (let i = 30; i < 40; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
    for (let i = 40; i < 50; i++) produce(p, 'fleet', 'job', i);
    await waitUntil(() => got.length >= 50, '50 deliveries');
    expect(got).toEqual([...Array(50).keys()]);
  });

  it('hands a group copy waiting for a retry to another member when its member leaves (issue 8.7)', async () => {
    const h = await broker(settings());
    const opts = {
      ack: true,
      manualAck: true,
      ackTimeout: '100ms',
      group: 'g',
      retry: { max_attempts: 3, delay: '10s' },
    };
    const a = await h.consumer('a');
    await subscribe(a, 'a', 'fleet', 'job', opts);
    const b = await h.consumer('b');
    await subscribe(b, 'b', 'fleet', 'job', opts);
    const p = await h.producer('fleet');
    const toA = waitFor<DeliveryEnvelope>(a, JOB);
    produce(p, 'fleet', 'job', 'stranded?');
    const first = await toA;
    await delay(250); // ACK timeout passed: the copy now waits 10 s for its retry
    const toB = waitFor<DeliveryEnvelope>(b, JOB, 2_000);
    a.disconnect();
    const moved = await toB;
    expect(moved).toMatchObject({ msgId: first.msgId, delivery_attempt: 2 });
    expect(await b.timeout(2000).emitWithAck(ClientEvent.ACK, { msgId: moved.msgId })).toEqual({
      ok: true,
      msgId: moved.msgId,
    });
  });
});

async function waitForDlq(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await h.broker.store.listDlq('default')).length === n) return;
    await delay(10);
  }
  throw new Error(`DLQ never held ${n} entries`);
}

describe('attempt count across a broker restart (issue 7.2)', () => {
  it('re-sends after a restart with delivery_attempt 2', async () => {
    const s = sqliteSettings();
    const h1 = await startBroker(s);
    const c = await h1.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', MANUAL);
    const p = await h1.producer('fleet');
    const first = waitFor<DeliveryEnvelope>(c, JOB);
    produce(p, 'fleet', 'job', 'across');
    expect((await first).delivery_attempt).toBe(1);
    await h1.close();
    const h2 = await broker(s);
    const c2 = await h2.consumer('w1');
    const again = waitFor<DeliveryEnvelope>(c2, JOB);
    await subscribe(c2, 'w1', 'fleet', 'job', MANUAL);
    expect(await again).toMatchObject({ message: 'across', delivery_attempt: 2 });
  });
});

describe('redelivery marking after a takeover or churn (issue 7.2)', () => {
  it('marks copies re-sent after churn during a replay as redeliveries', async () => {
    const h = await broker(sqliteSettings());
    await goOffline(h, 'w1', MANUAL);
    const p = await h.producer('fleet');
    for (let i = 0; i < 50; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    const c = await h.consumer('w1');
    const firstId = c.id ?? '';
    const first: DeliveryEnvelope[] = [];
    c.on(JOB, (e: DeliveryEnvelope) => {
      first.push(e);
      if (first.length === 10) c.disconnect(); // churn mid-replay
    });
    await subscribe(c, 'w1', 'fleet', 'job', MANUAL).catch(() => undefined);
    await h.dropped(firstId);
    const seen = new Set(first.map((e) => e.msgId));
    const c2 = await h.consumer('w1');
    const second = collect<DeliveryEnvelope>(c2, JOB, 50);
    await subscribe(c2, 'w1', 'fleet', 'job', MANUAL);
    const got = await second;
    expect(got.map((e) => e.message)).toEqual([...Array(50).keys()]);
    // Whatever the first session received comes back marked; copies the broker sent but the
    // client never read are marked too (the broker cannot tell), never the reverse.
    for (const e of got) {
      if (seen.has(e.msgId)) expect(e.delivery_attempt, `message ${String(e.message)}`).toBe(2);
      else expect(e.delivery_attempt).toBeGreaterThanOrEqual(1);
    }
    expect(seen.size).toBeGreaterThanOrEqual(10);
  });

  it('marks a copy re-sent after a half-open takeover as a redelivery', async () => {
    // A 300 ms heartbeat and a 1.5 s margin (defaults 5 s and 2 s): half-open after 1.8 s of
    // silence, not 7 s (issue 26); pingTimeout 10 s keeps the frozen socket registered.
    const h = await broker(
      { ping_interval: 300, ping_timeout: 10_000 },
      { halfOpenMarginMs: 1_500 },
    );
    const old = await h.consumer('w1');
    await subscribe(old, 'w1', 'fleet', 'job', MANUAL);
    const p = await h.producer('fleet');
    const first = waitFor<DeliveryEnvelope>(old, JOB);
    produce(p, 'fleet', 'job', 'M');
    expect((await first).delivery_attempt).toBe(1);
    h.freeze(old); // alive to the server, answering nothing
    await delay(2_300); // past pingInterval + margin (1.8 s): the newcomer takes over
    const fresh = await h.consumer('w1');
    const again = waitFor<DeliveryEnvelope>(fresh, JOB);
    await subscribe(fresh, 'w1', 'fleet', 'job', MANUAL);
    expect(await again).toMatchObject({ message: 'M', delivery_attempt: 2 });
  }, 30_000);
});
