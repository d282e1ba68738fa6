/**
 * The operations ConsoleApi against a real local broker (auth on, SQLite): metric history
 * following a real producer, a copy dead-lettered by a real consumer (ACK timeout, retries
 * exhausted) listed with its origin, replayed to that consumer, dead-lettered again (flagged by
 * its replay count) and discarded; paging; the clients listing with the subscription options.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import type { MetricPointEvent } from '../../shared/console-api-operations';
import { ClientEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import { exactConsumeEvent } from '../helpers/broker-harness';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { localConsoleFixture } from '../support/local-console-fixture';

const connectionId = LOCAL_CONNECTION_ID;

describe('operations ConsoleApi', () => {
  const fx = localConsoleFixture({ pollIntervalMs: 200 });

  it('records the produced rate of a real producer and pushes each point', async () => {
    const points: MetricPointEvent[] = [];
    const stop = fx.local.service.on('metricsPoint', (event) => points.push(event));
    const producer = await fx.client();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('load'));
    const timer = setInterval(
      () => producer.emit(ClientEvent.PRODUCE, producePayload('tick', { n: 1 }, { from: 'load' })),
      10,
    );
    try {
      await expect
        .poll(
          async () => {
            const history = await fx.local.service.getMetricsHistory({ connectionId, range: '5m' });
            return history.points.at(-1)?.rates?.produced ?? 0;
          },
          { timeout: 10_000 },
        )
        .toBeGreaterThan(10);
    } finally {
      clearInterval(timer);
      stop();
    }
    expect(points.length).toBeGreaterThan(0);
    expect(points.every((p) => p.connectionId === connectionId)).toBe(true);
    const last = points.at(-1)!.point;
    expect(last.up).toBe(true);
    expect(last.totals!.produced).toBeGreaterThan(0);
    expect(last.realms.default).toBeDefined();
    const all = await fx.local.service.getMetricsHistory({ connectionId, range: 'all' });
    expect(all.points.length).toBeGreaterThan(0);
    await expect(
      fx.local.service.getMetricsHistory({ connectionId: 'nope', range: '5m' }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_NOT_FOUND' });
  });

  it('lists, replays and discards a copy dead-lettered by a real consumer', async () => {
    const consumer = await fx.client();
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('slow-worker'));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('slow-worker', 'fleet', 'job', {
        durable: true,
        manualAck: true,
        ackTimeout: '100ms',
        retry: { max_attempts: 1 },
      }),
    );
    const producer = await fx.client();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
    const received: DeliveryEnvelope[] = [];
    consumer.on(exactConsumeEvent('fleet', 'job'), (env: DeliveryEnvelope) => received.push(env));
    await new Promise((resolve) => setTimeout(resolve, 200));
    producer.emit(ClientEvent.PRODUCE, producePayload('job', { order: 42 }, { from: 'fleet' }));

    const listed = async () =>
      (await fx.local.service.listDeadLetters({ connectionId, realm: 'default' })).entries;
    await expect.poll(async () => (await listed()).length, { timeout: 10_000 }).toBe(1);
    const [entry] = await listed();
    expect(entry).toMatchObject({
      realm: 'default',
      consumer: 'slow-worker',
      origin: { producer: 'fleet', event: 'job', key: 'fleet-job' },
      replayCount: 0,
      payload: '{"order":42}',
      payloadTruncated: false,
    });
    expect(entry!.reason).toContain('ack timeout');
    expect(entry!.deadLetteredAt).toEqual(expect.any(Number));

    const before = received.length;
    const replay = await fx.local.service.replayDeadLetters({
      connectionId,
      realm: 'default',
      ids: [entry!.id, 'msg-unknown'],
    });
    expect(replay).toEqual({ connectionId, done: [entry!.id], notFound: ['msg-unknown'] });
    // Received again by that consumer, which again does not ACK: dead-lettered again, flagged.
    await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(received.at(-1)!.message).toEqual({ order: 42 });
    await expect
      .poll(async () => (await listed())[0]?.replayCount ?? 0, { timeout: 10_000 })
      .toBe(1);

    // The replayed copy had a new id (minted by the broker), so it is dead-lettered under it.
    const [again] = await listed();
    expect(again!.id).not.toBe(entry!.id);
    const discard = await fx.local.service.discardDeadLetters({ connectionId, ids: [again!.id] });
    expect(discard.done).toEqual([again!.id]);
    expect(await listed()).toEqual([]);
    consumer.close();
  });

  it('pages the DLQ with a cursor', async () => {
    const consumer = await fx.client();
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('pager'));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('pager', 'batch', 'item', {
        manualAck: true,
        ackTimeout: '50ms',
        retry: { max_attempts: 1 },
      }),
    );
    const producer = await fx.client();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('batch'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 5; i++) {
      producer.emit(ClientEvent.PRODUCE, producePayload('item', { i }, { from: 'batch' }));
    }
    const page = (cursor?: string | null) =>
      fx.local.service.listDeadLetters({ connectionId, realm: 'default', limit: 2, cursor });
    await expect.poll(async () => (await page()).total, { timeout: 10_000 }).toBe(5);
    const ids: string[] = [];
    let cursor: string | null | undefined;
    do {
      const next = await page(cursor);
      ids.push(...next.entries.map((e) => e.id));
      cursor = next.nextCursor;
    } while (cursor);
    expect(new Set(ids).size).toBe(5);
    const cleared = await fx.local.service.discardDeadLetters({ connectionId, ids });
    expect(cleared.done).toHaveLength(5);
    consumer.close();
  });

  it('lists connected clients with their subscriptions', async () => {
    const consumer = await fx.client();
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('lister'));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('lister', 'sensors', 'reading', { durable: true, ack: true, group: 'g1' }),
    );
    await expect
      .poll(
        async () => {
          const list = await fx.local.service.listClients({ connectionId });
          const realm = list.realms.find((r) => r.name === 'default');
          return realm?.consumers.find((c) => c.name === 'lister' && c.online)?.subscriptions;
        },
        { timeout: 10_000 },
      )
      .toEqual([
        expect.objectContaining({
          key: 'sensors-reading',
          producer: 'sensors',
          group: 'g1',
          durable: true,
          ack_required: true,
          backlog: 0,
        }),
      ]);
  });
});
