/**
 * Disconnect, reconnect and idle eviction (spec §5.1, §5.2, §15, Note 15-C, §18;
 * reference tests §20 items 7, 8, 10).
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, Protocol } from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  sync,
  useBroker,
  waitForConsumersOnline,
  waitForProducersOnline,
} from '../helpers/broker-harness';
import { consumerPayload, jsSubscribePayload } from '../helpers/stock-clients';
import { collect, delay, expectNothing, waitFor } from '../helpers/wait';

/** TTL of 50 ms as in reference test §20.8; the timer itself is kept out of the way. */
const EVICTION = { idle_eviction: { enabled: true, ttl_ms: 50, interval_ms: 3_600_000 } };

describe('reconnect (§15)', () => {
  const ctx = useBroker();

  it('delivers new messages to a consumer that disconnects, reconnects under the same name and resubscribes (§20.10)', async () => {
    const producer = await ctx.h.producer('fleet');
    const first = await ctx.h.consumer('worker');
    await subscribe(first, 'worker', 'fleet', 'job');
    first.disconnect();
    await waitForConsumersOnline(ctx.h, 0);

    const second = await ctx.h.consumer('worker');
    await subscribe(second, 'worker', 'fleet', 'job');
    const got = waitFor(second, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'after reconnect');
    expect(await got).toEqual({ event: 'job', message: 'after reconnect', from: 'fleet' });
  });

  it('keeps subscriptions across a disconnect: CONSUMER alone on a new socket resumes live traffic', async () => {
    const producer = await ctx.h.producer('fleet');
    const first = await ctx.h.consumer('worker');
    await subscribe(first, 'worker', 'fleet', 'job');
    first.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    expect(ctx.h.stats().consumers).toEqual({ total: 1, online: 0 });

    const second = await ctx.h.consumer('worker'); // no SUBSCRIBE
    const got = waitFor(second, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'resumed');
    expect(await got).toMatchObject({ message: 'resumed' });
  });

  it('resumes live traffic when a SUBSCRIBE for another key rebinds the consumer name (§5.1)', async () => {
    const producer = await ctx.h.producer('fleet');
    const first = await ctx.h.consumer('worker');
    await subscribe(first, 'worker', 'fleet', 'job');
    first.disconnect();
    await waitForConsumersOnline(ctx.h, 0);

    const second = await ctx.h.connect();
    await subscribe(second, 'worker', 'fleet', 'other');
    const got = waitFor(second, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'old key');
    expect(await got).toMatchObject({ message: 'old key' });
  });

  it('loses non-durable traffic sent while the consumer was offline, and delivers what follows', async () => {
    const producer = await ctx.h.producer('fleet');
    const first = await ctx.h.consumer('worker');
    await subscribe(first, 'worker', 'fleet', 'job');
    first.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    produce(producer, 'fleet', 'job', 'while offline');
    await sync(producer);

    const second = await ctx.h.connect();
    const got = collect<{ message: string }>(second, exactConsumeEvent('fleet', 'job'), 1);
    second.emit(ClientEvent.CONSUMER, consumerPayload('worker'));
    second.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('worker', 'fleet', 'job'));
    await sync(second);
    produce(producer, 'fleet', 'job', 'after');
    expect((await got).map((e) => e.message)).toEqual(['after']);
    await expectNothing(second, exactConsumeEvent('fleet', 'job'));
  });

  it('marks a disconnected producer offline and a returning one online again', async () => {
    const p1 = await ctx.h.producer('fleet');
    p1.disconnect();
    await waitForProducersOnline(ctx.h, 0);
    expect(ctx.h.stats().producers).toEqual({ total: 1, online: 0 });
    await ctx.h.producer('fleet');
    expect(ctx.h.stats().producers).toEqual({ total: 1, online: 1 });
  });

  it('leaves no phantom "TYO-MQ-ALL" producer after an any-producer subscriber comes and goes (Note 15-C fix)', async () => {
    const first = await ctx.h.consumer('any');
    await subscribe(first, 'any', Protocol.ALL_PUBLISHERS, 'tick');
    first.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    const second = await ctx.h.consumer('any');
    await subscribe(second, 'any', Protocol.ALL_PUBLISHERS, 'tick');
    second.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    expect(ctx.h.stats().producers.total).toBe(0);
  });

  it('keeps registry counts consistent under connect/register/disconnect churn', async () => {
    for (let round = 0; round < 3; round++) {
      const sockets = await Promise.all(
        Array.from({ length: 15 }, (_, i) => ctx.h.consumer(`churn-${i}`)),
      );
      await Promise.all(sockets.map((s, i) => subscribe(s, `churn-${i}`, 'fleet', 'job')));
      expect(ctx.h.stats().consumers).toEqual({ total: 15, online: 15 });
      for (const s of sockets) s.disconnect();
      await waitForConsumersOnline(ctx.h, 0);
    }
    expect(ctx.h.stats().consumers).toEqual({ total: 15, online: 0 });
    const producer = await ctx.h.producer('fleet');
    const back = await ctx.h.consumer('churn-7');
    const got = waitFor(back, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'after churn');
    expect(await got).toMatchObject({ message: 'after churn' });
  });

  it('reports connections_current from the server side', async () => {
    const a = await ctx.h.connect();
    await ctx.h.connect();
    expect(ctx.h.rawStats().connections_current).toBe(2);
    await ctx.h.disconnect(a);
    await sync(await ctx.h.connect());
    expect(ctx.h.rawStats().connections_current).toBe(2);
  });
});

describe('idle eviction (§15)', () => {
  const ctx = useBroker(EVICTION);

  it('never evicts a connected consumer, even past the TTL (§20.7)', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('worker');
    await subscribe(consumer, 'worker', 'fleet', 'job');
    await delay(150);
    expect(ctx.h.broker.sweepIdleRegistrations()).toBe(0);
    expect(ctx.h.stats().consumers).toEqual({ total: 1, online: 1 });
    expect(ctx.h.stats().producers).toEqual({ total: 1, online: 1 });
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'still here');
    expect(await got).toMatchObject({ message: 'still here' });
  });

  it('evicts a disconnected consumer after the TTL: consumers.total goes 1 → 0 (§20.8)', async () => {
    const consumer = await ctx.h.consumer('worker');
    expect(ctx.h.stats().consumers.total).toBe(1);
    consumer.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    await delay(120);
    expect(ctx.h.broker.sweepIdleRegistrations()).toBeGreaterThanOrEqual(1);
    expect(ctx.h.stats().consumers.total).toBe(0);
  });

  it('does not evict an offline consumer before its TTL has passed', async () => {
    // A separate broker whose TTL cannot pass during the test.
    const longTtl = await startBroker({
      idle_eviction: { enabled: true, ttl_ms: 3_600_000, interval_ms: 3_600_000 },
    });
    try {
      const c = await longTtl.consumer('worker');
      c.disconnect();
      await waitForConsumersOnline(longTtl, 0);
      await delay(120);
      expect(longTtl.broker.sweepIdleRegistrations()).toBe(0);
      expect(longTtl.stats().consumers).toEqual({ total: 1, online: 0 });
    } finally {
      await longTtl.close();
    }
  });

  it("deletes an evicted consumer's subscriptions: CONSUMER alone no longer resumes traffic", async () => {
    const producer = await ctx.h.producer('fleet');
    const first = await ctx.h.consumer('worker');
    await subscribe(first, 'worker', 'fleet', 'job');
    first.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    await delay(120);
    expect(ctx.h.broker.sweepIdleRegistrations()).toBeGreaterThanOrEqual(1);
    expect(ctx.h.stats().subscriptions).toBe(0);

    const second = await ctx.h.consumer('worker');
    const nothing = expectNothing(second, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'gone');
    await nothing;
    // …and the rebuilt consumer works once it resubscribes (§15).
    await subscribe(second, 'worker', 'fleet', 'job');
    const got = waitFor(second, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'back');
    expect(await got).toMatchObject({ message: 'back' });
  });

  it('evicts a disconnected producer after the TTL', async () => {
    const producer = await ctx.h.producer('fleet');
    producer.disconnect();
    await waitForProducersOnline(ctx.h, 0);
    await delay(120);
    expect(ctx.h.broker.sweepIdleRegistrations()).toBeGreaterThanOrEqual(1);
    expect(ctx.h.stats().producers.total).toBe(0);
  });

  // Switchboard departs from §15 here on purpose (see broker/routing/idle-eviction.ts): the
  // reference silently unsubscribes a *live* consumer whose producer was away for `ttl_ms`, so a
  // long-running worker stops receiving after its producer restarts. We evict the producer but
  // keep live consumers' subscriptions; offline consumers' non-durable ones still go.
  it('evicting a producer keeps live consumers’ subscriptions and drops offline ones', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('worker');
    await subscribe(consumer, 'worker', 'fleet', 'one');
    await subscribe(consumer, 'worker', 'fleet', 'two');
    const away = await ctx.h.consumer('away');
    await subscribe(away, 'away', 'fleet', 'one');
    producer.disconnect();
    away.disconnect();
    await waitForProducersOnline(ctx.h, 0);
    await waitForConsumersOnline(ctx.h, 1);
    await delay(120);
    // The producer and the offline consumer.
    expect(ctx.h.broker.sweepIdleRegistrations()).toBe(2);
    expect(ctx.h.stats().producers.total).toBe(0);
    expect(ctx.h.stats().consumers).toEqual({ total: 1, online: 1 });
    expect(ctx.h.stats().subscriptions).toBe(2); // worker's two keys (Note 5.3-A: both kept)
    const back = await ctx.h.producer('fleet');
    const both = collect(consumer, exactConsumeEvent('fleet', 'one'), 1);
    const two = collect(consumer, exactConsumeEvent('fleet', 'two'), 1);
    produce(back, 'fleet', 'one', 1);
    produce(back, 'fleet', 'two', 2);
    expect(await both).toMatchObject([{ message: 1 }]);
    expect(await two).toMatchObject([{ message: 2 }]);
  });

  it('returns the number of entries evicted by one pass', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('worker');
    await subscribe(consumer, 'worker', 'fleet', 'job');
    consumer.disconnect();
    producer.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    await waitForProducersOnline(ctx.h, 0);
    await delay(120);
    expect(ctx.h.broker.sweepIdleRegistrations()).toBe(2);
    expect(ctx.h.broker.sweepIdleRegistrations()).toBe(0);
    expect(ctx.h.stats()).toEqual({
      producers: { total: 0, online: 0 },
      consumers: { total: 0, online: 0 },
      subscriptions: 0,
    });
  });

  it('never evicts a placeholder producer that never connected', async () => {
    const consumer = await ctx.h.consumer('worker');
    await subscribe(consumer, 'worker', 'ghost', 'job'); // creates the placeholder (§5.1)
    const producersBefore = ctx.h.stats().producers;
    await delay(120);
    expect(ctx.h.broker.sweepIdleRegistrations()).toBe(0);
    expect(ctx.h.stats().producers).toEqual(producersBefore);
  });
});
