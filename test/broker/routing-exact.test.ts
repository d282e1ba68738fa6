/**
 * Exact `(producer, event)` routing (spec §2.2, §2.3, §3.5, §5.1, §6.1, §7;
 * reference tests §20 items 1, 2).
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  connectEvent,
  consumeEvent,
  Protocol,
  subscribeToEvent,
  subscriptionKey,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
} from '../helpers/broker-harness';
import {
  asJsonString,
  consumerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { collect, delay, expectNothing, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();

describe('basic delivery (§7)', () => {
  it('delivers "hello" to a consumer subscribed to (producer, "test-event") (§20.1)', async () => {
    const producer = await ctx.h.producer('producer-1');
    const consumer = await ctx.h.consumer('consumer-1');
    await subscribe(consumer, 'consumer-1', 'producer-1', 'test-event');
    const got = waitFor(consumer, exactConsumeEvent('producer-1', 'test-event'));
    produce(producer, 'producer-1', 'test-event', 'hello');
    expect(await got).toEqual({ event: 'test-event', message: 'hello', from: 'producer-1' });
  });

  it('delivers to each of two consumers with different names (§20.2)', async () => {
    const producer = await ctx.h.producer('p');
    const a = await ctx.h.consumer('a');
    const b = await ctx.h.consumer('b');
    await subscribe(a, 'a', 'p', 'ev');
    await subscribe(b, 'b', 'p', 'ev');
    const gotA = waitFor(a, exactConsumeEvent('p', 'ev'));
    const gotB = waitFor(b, exactConsumeEvent('p', 'ev'));
    produce(producer, 'p', 'ev', { n: 1 });
    expect(await gotA).toEqual({ event: 'ev', message: { n: 1 }, from: 'p' });
    expect(await gotB).toEqual({ event: 'ev', message: { n: 1 }, from: 'p' });
  });

  it('does not deliver other events of the same producer', async () => {
    const producer = await ctx.h.producer('p');
    const consumer = await ctx.h.consumer('c');
    const rec = record(consumer);
    await subscribe(consumer, 'c', 'p', 'wanted');
    produce(producer, 'p', 'unwanted', 1);
    await sync(producer);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
  });

  it('delivers a PRODUCE from a socket that never sent PRODUCER (§3.5 side effect, §5.1)', async () => {
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'silent', 'ev');
    const raw = await ctx.h.connect();
    const got = waitFor(consumer, exactConsumeEvent('silent', 'ev'));
    produce(raw, 'silent', 'ev', 'x');
    expect(await got).toEqual({ event: 'ev', message: 'x', from: 'silent' });
  });

  it('lets a consumer subscribe before the producer exists (§5.1 placeholder)', async () => {
    const consumer = await ctx.h.consumer('early');
    await subscribe(consumer, 'early', 'later', 'ev');
    const producer = await ctx.h.producer('later');
    const got = waitFor(consumer, exactConsumeEvent('later', 'ev'));
    produce(producer, 'later', 'ev', 1);
    expect(await got).toMatchObject({ message: 1, from: 'later' });
  });

  it('registers the consumer through SUBSCRIBE alone when it has no live socket (§5.1)', async () => {
    const producer = await ctx.h.producer('p');
    const consumer = await ctx.h.connect();
    await subscribe(consumer, 'sub-only', 'p', 'ev');
    expect(ctx.h.stats().consumers.online).toBe(1);
    const got = waitFor(consumer, exactConsumeEvent('p', 'ev'));
    produce(producer, 'p', 'ev', 1);
    expect(await got).toMatchObject({ message: 1 });
  });
});

describe('case rules (§2.2, Note 2.3-B)', () => {
  it("matches events case-insensitively; the key is lowercase; the envelope keeps the producer's case", async () => {
    const producer = await ctx.h.producer('Fleet');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'Fleet', 'myevent');
    const key = subscriptionKey('Fleet', 'myevent');
    expect(key).toBe('fleet-myevent');
    const got = waitFor(consumer, consumeEvent(key));
    produce(producer, 'Fleet', 'MyEvent', 'm');
    expect(await got).toEqual({ event: 'MyEvent', message: 'm', from: 'Fleet' });
  });

  it('lowercases an uppercase subscription event into the key', async () => {
    const producer = await ctx.h.producer('Fleet');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'Fleet', 'JOB/Start');
    const got = waitFor(consumer, consumeEvent('fleet-job/start')); // §2.2 table example
    produce(producer, 'Fleet', 'Job/Start', 1);
    expect(await got).toEqual({ event: 'Job/Start', message: 1, from: 'Fleet' });
  });

  it('compares producer names exactly: a subscription to "fleet" gets nothing from "Fleet" (Note 2.3-B, keep)', async () => {
    const producer = await ctx.h.producer('Fleet');
    const lower = await ctx.h.consumer('lower');
    const exact = await ctx.h.consumer('exact');
    await subscribe(lower, 'lower', 'fleet', 'job');
    await subscribe(exact, 'exact', 'Fleet', 'job');
    const key = consumeEvent(subscriptionKey('Fleet', 'job'));
    const nothing = expectNothing(lower, key);
    const got = waitFor(exact, key);
    produce(producer, 'Fleet', 'job', 1);
    expect(await got).toMatchObject({ from: 'Fleet' });
    await nothing;
  });

  it('does not cross-deliver on hyphen collisions: producer "a-b" event "c" vs producer "a" event "b-c" (Note 2.3-C)', async () => {
    const ab = await ctx.h.producer('a-b');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'a', 'b-c');
    expect(subscriptionKey('a', 'b-c')).toBe(subscriptionKey('a-b', 'c'));
    const nothing = expectNothing(consumer, consumeEvent(subscriptionKey('a', 'b-c')));
    produce(ab, 'a-b', 'c', 'wrong producer');
    await nothing;
  });
});

describe('subscription records (§6.1, §7)', () => {
  it('overwrites a repeated SUBSCRIBE for the same key: still one copy per message', async () => {
    const producer = await ctx.h.producer('p');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'p', 'ev');
    await subscribe(consumer, 'c', 'p', 'EV');
    const rec = record(consumer);
    produce(producer, 'p', 'ev', 1);
    await waitFor(consumer, exactConsumeEvent('p', 'ev'));
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([exactConsumeEvent('p', 'ev')]);
  });

  it('treats different keys as independent subscriptions on their own events', async () => {
    const producer = await ctx.h.producer('p');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'p', 'one');
    await subscribe(consumer, 'c', 'p', 'two');
    const one = waitFor(consumer, exactConsumeEvent('p', 'one'));
    const two = waitFor(consumer, exactConsumeEvent('p', 'two'));
    produce(producer, 'p', 'two', 2);
    produce(producer, 'p', 'one', 1);
    expect(await one).toMatchObject({ message: 1 });
    expect(await two).toMatchObject({ message: 2 });
  });

  it('accepts an event given as an object with a string .event (§2.2, §19)', async () => {
    const producer = await ctx.h.producer('p');
    const consumer = await ctx.h.consumer('c');
    consumer.emit(ClientEvent.SUBSCRIBE, {
      ...jsSubscribePayload('c', 'p', 'x'),
      event: { event: 'Obj' },
    });
    await sync(consumer);
    const got = waitFor(consumer, exactConsumeEvent('p', 'obj'));
    producer.emit(ClientEvent.PRODUCE, producePayload({ event: 'Obj' }, 'o', { from: 'p' }));
    expect(await got).toMatchObject({ message: 'o', from: 'p' });
  });
});

describe('JSON-string payloads, as the C# client sends them (§1.2)', () => {
  it('routes CONSUMER, PRODUCER, SUBSCRIBE and PRODUCE given as JSON strings', async () => {
    const producer = await ctx.h.connect();
    producer.emit(ClientEvent.PRODUCER, asJsonString({ name: 'cs-p' }));
    const consumer = await ctx.h.connect();
    consumer.emit(ClientEvent.CONSUMER, asJsonString(consumerPayload('cs-c')));
    consumer.emit(ClientEvent.SUBSCRIBE, asJsonString(jsSubscribePayload('cs-c', 'cs-p', 'Tick')));
    await sync(producer, consumer);
    const got = collect(consumer, exactConsumeEvent('cs-p', 'tick'), 2);
    producer.emit(
      ClientEvent.PRODUCE,
      asJsonString(producePayload('Tick', { n: 1 }, { from: 'cs-p' })),
    );
    producer.emit(
      ClientEvent.PRODUCE,
      asJsonString(producePayload('Tick', 'two', { from: 'cs-p' })),
    );
    expect(await got).toEqual([
      { event: 'Tick', message: { n: 1 }, from: 'cs-p' },
      { event: 'Tick', message: 'two', from: 'cs-p' },
    ]);
  });
});

describe('producer identity (§3.5, §5.1, Note 7-B)', () => {
  it('binds a silent producer without notifications: no CONNECT- to its subscribers (§3.5 side effect)', async () => {
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'silent', 'ev');
    const raw = await ctx.h.connect();
    const noConnect = expectNothing(consumer, connectEvent('c'));
    const got = waitFor(consumer, exactConsumeEvent('silent', 'ev'));
    produce(raw, 'silent', 'ev', 1);
    await got;
    await noConnect;
    expect(ctx.h.stats().producers.online).toBe(1);
  });

  it("delivers a PRODUCE that asserts a live producer's name from another socket, without rebinding the name (keep)", async () => {
    const owner = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'fleet', 'job');
    const impostor = await ctx.h.connect();
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(impostor, 'fleet', 'job', 'asserted');
    expect(await got).toEqual({ event: 'job', message: 'asserted', from: 'fleet' });
    expect(ctx.h.stats().producers).toEqual({ total: 1, online: 1 });
    // The name still belongs to the owner: the next SUBSCRIBE is announced to the owner's socket.
    const notice = waitFor(owner, subscribeToEvent(owner.id ?? ''));
    await subscribe(consumer, 'c', 'fleet', 'other');
    expect(await notice).toMatchObject({ events: [subscriptionKey('fleet', 'other')] });
  });

  it('keeps PRODUCE options out of the envelope (lifespan, ttl, guaranteed, id, method, group)', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'fleet', 'job');
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    producer.emit(ClientEvent.PRODUCE, {
      event: 'job',
      message: 'm',
      from: 'fleet',
      lifespan: -1, // the JS publisher always sends this
      ttl: 3600,
      guaranteed: true,
      id: 'http-id',
      method: 'unicast',
      group: 'not-a-broadcast',
    });
    // §8: a live non-ack delivery is exactly {event, message, from}: no msgId even when guaranteed.
    expect(await got).toEqual({ event: 'job', message: 'm', from: 'fleet' });
  });
});

describe('defaults and unusual names (§3.3, §3.5)', () => {
  it('defaults a missing SUBSCRIBE producer/consumer and PRODUCE from to ANONYMOUS', async () => {
    const consumer = await ctx.h.connect();
    consumer.emit(ClientEvent.SUBSCRIBE, { event: 'Bare' });
    await sync(consumer);
    const raw = await ctx.h.connect(); // unregistered: no registered name to default to (Note 7-B)
    const got = waitFor(consumer, exactConsumeEvent(Protocol.ANONYMOUS, 'bare'));
    raw.emit(ClientEvent.PRODUCE, { event: 'Bare', message: 'm' });
    expect(await got).toEqual({ event: 'Bare', message: 'm', from: Protocol.ANONYMOUS });
  });

  it('lowercases non-ASCII event names the same way on both sides (JavaScript toLowerCase)', async () => {
    const producer = await ctx.h.producer('Fabrik');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'Fabrik', 'ÄÖÜ-Straße/ΣΊΣΥΦΟΣ');
    const got = waitFor(consumer, exactConsumeEvent('Fabrik', 'äöü-straße/σίσυφος'));
    produce(producer, 'Fabrik', 'äÖü-Straße/σίσυφος', 'ü');
    expect(await got).toMatchObject({ message: 'ü', from: 'Fabrik' });
  });
});
