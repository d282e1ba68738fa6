/**
 * Visible, bounded durable queues (issue 7 item 4, issue 8 item 9): depth gauges and
 * `/api/stats` numbers per realm and per durable queue, `limits.max_queued_per_consumer`
 * (refuse new), refusals counted and logged at most once a second per realm, the opt-in
 * expiry of abandoned durable subscriptions, and expired copies purged on a timer.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { io } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createBroker } from '../../../broker/index';
import { HttpPath } from '../../../shared/http-api';
import { ClientEvent, type DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  sync,
  type Harness,
} from '../../helpers/broker-harness';
import { collect, waitUntil } from '../../helpers/wait';

type Confirm = { ok: boolean; code?: string };
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function broker(settings: Record<string, unknown> = {}): Promise<Harness> {
  const h = await startBroker(settings);
  open.push(h);
  return h;
}

async function goOffline(h: Harness, name: string, event: string, opts = {}) {
  const c = await h.consumer(name);
  await subscribe(c, name, 'fleet', event, { durable: true, ...opts });
  await h.disconnect(c);
}

const metricsText = async (h: Harness) => (await fetch(`${h.url}${HttpPath.METRICS}`)).text();

describe('queue depth (issue 7.4)', () => {
  it('shows depth per realm and per durable queue in /api/stats and /api/metrics, going down on ACK', async () => {
    const h = await broker({ http_api: { enabled: true } });
    await goOffline(h, 'w1', 'job', { ack: true });
    const p = await h.producer('fleet');
    for (let i = 0; i < 3; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    const stats = (await (await fetch(`${h.url}${HttpPath.STATS}`)).json()) as {
      realms: Record<string, { queued: number; queues: unknown[]; subscriptions: number }>;
    };
    expect(stats.realms.default).toMatchObject({
      subscriptions: 1,
      queued: 3,
      queues: [{ key: 'fleet-job', consumer_id: 'w1', queued: 3 }],
    });
    let text = await metricsText(h);
    expect(text).toContain('tyo_mq_queue_depth{realm="default"} 3');
    expect(text).toContain(
      'tyo_mq_subscription_queue_depth{realm="default",key="fleet-job",consumer_id="w1"} 3',
    );
    const c = await h.consumer('w1');
    c.on(exactConsumeEvent('fleet', 'job'), (e: DeliveryEnvelope) =>
      c.emit(ClientEvent.ACK, { msgId: e.msgId }),
    );
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true, ack: true });
    await waitUntil(() => h.broker.getStats().realms.default?.queued === 0, 'queue drained');
    text = await metricsText(h);
    expect(text).toContain('tyo_mq_queue_depth{realm="default"} 0');
    expect(text).not.toContain('tyo_mq_subscription_queue_depth{');
  });

  it('purges expired copies on a timer, without any read', async () => {
    const h = await broker();
    await goOffline(h, 'w1', 'job');
    const p = await h.producer('fleet');
    for (let i = 0; i < 5; i++) produce(p, 'fleet', 'job', i, { ttl: 0.05 });
    await sync(p);
    expect(h.broker.getStats().realms.default?.queued).toBe(5);
    await waitUntil(
      () => h.broker.getStats().realms.default?.queued === 0,
      'expired copies purged',
      3_000,
    );
  });
});

describe('limits.max_queued_per_consumer (issue 7.4)', () => {
  it('refuses new copies past the cap across the consumer’s queues, counting each refusal', async () => {
    const h = await broker({ http_api: { enabled: true }, limits: { max_queued_per_consumer: 2 } });
    await goOffline(h, 'w1', 'job');
    await goOffline(h, 'w1', 'other');
    await goOffline(h, 'w2', 'job');
    const p = await h.producer('fleet');
    const send = (event: string, m: number) =>
      p.timeout(3000).emitWithAck(ClientEvent.PRODUCE, {
        event,
        message: m,
        from: 'fleet',
      }) as Promise<Confirm>;
    expect((await send('job', 1)).ok).toBe(true); // w1 1, w2 1
    expect((await send('other', 2)).ok).toBe(true); // w1 2
    expect(await send('other', 3)).toMatchObject({ ok: false, code: 'SWB_ERR_QUEUE_FULL' });
    const refused = await send('job', 4); // w1 refused, w2 stored
    expect(refused).toMatchObject({ ok: false, code: 'SWB_ERR_QUEUE_FULL' });
    expect(await h.broker.store.dequeue('default', 'fleet-job', 'w2')).toHaveLength(2);
    expect(await h.broker.store.countQueued('default')).toBe(4);
    expect(await metricsText(h)).toContain(
      'tyo_mq_queue_refused_total{realm="default",cap="consumer"} 2',
    );
  });
});

describe('refusal logging (issue 7.4)', () => {
  it('logs a flood of refusals at most once a second per realm', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const b = await createBroker(
      { limits: { max_queued_per_realm: 1 } },
      { logger: pino({ level: 'info' }, sink) },
    );
    open.push(b);
    const { port } = await b.listen(0, '127.0.0.1');
    const socket = (name: string, kind: 'CONSUMER' | 'PRODUCER') =>
      new Promise<ReturnType<typeof io>>((resolve) => {
        const s = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], forceNew: true });
        open.push({ close: async () => void s.close() });
        s.once('connect', () => {
          s.emit(kind, { name, id: name });
          resolve(s);
        });
      });
    const c = await socket('w1', 'CONSUMER');
    c.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'fleet',
      consumer: 'w1',
      durable: true,
    });
    await sync(c);
    const cid = c.id ?? '';
    c.disconnect();
    await waitUntil(() => b.bufferedBytes(cid) === null, 'w1 dropped');
    await b.settled();
    const p = await socket('fleet', 'PRODUCER');
    for (let i = 0; i < 200; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    await b.settled();
    const refusals = lines.filter((l) => l.includes('queue cap reached'));
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect(lines.filter((l) => l.includes('durable copy not stored'))).toEqual([]);
  });
});

describe('limits.expire_durable_after_ms (issue 7.4)', () => {
  it('is off by default', async () => {
    const h = await broker();
    await goOffline(h, 'w1', 'job');
    expect(await h.broker.expireDurableSubscriptions(Date.now() + 365 * 86_400_000)).toBe(0);
    expect(h.stats().subscriptions).toBe(1);
  });

  it('removes a durable subscription whose consumer is away too long, with its copies', async () => {
    const h = await broker({ limits: { expire_durable_after_ms: 60_000 } });
    await goOffline(h, 'gone', 'job');
    const live = await h.consumer('here');
    await subscribe(live, 'here', 'fleet', 'job', { durable: true, ack: true });
    const p = await h.producer('fleet');
    const got = collect<DeliveryEnvelope>(live, exactConsumeEvent('fleet', 'job'), 2);
    produce(p, 'fleet', 'job', 1);
    produce(p, 'fleet', 'job', 2);
    await got;
    expect(await h.broker.expireDurableSubscriptions(Date.now() + 30_000)).toBe(0);
    expect(await h.broker.expireDurableSubscriptions(Date.now() + 61_000)).toBe(1);
    expect(h.stats().subscriptions).toBe(1); // `here` keeps fleet-job
    expect(await h.broker.store.dequeue('default', 'fleet-job', 'gone')).toEqual([]);
    expect(await h.broker.store.dequeue('default', 'fleet-job', 'here')).toHaveLength(2);
    expect(h.broker.getStats().realms.default?.queues).toEqual([
      { key: 'fleet-job', consumer_id: 'here', queued: 2 },
    ]);
    // No longer subscribed: new messages are not stored for it.
    produce(p, 'fleet', 'job', 3);
    await sync(p);
    expect(await h.broker.store.dequeue('default', 'fleet-job', 'gone')).toEqual([]);
  });
});
