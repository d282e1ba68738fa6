/**
 * Producer-side wildcards: any-producer `TYO-MQ-ALL` subscriptions and all-events `TM-ALL`
 * subscriptions (spec §2.1, §2.2, Note 2.3-A fix, §7 steps 2–4).
 */
import { describe, expect, it } from 'vitest';
import {
  allEventsKey,
  anyProducerKey,
  ClientEvent,
  consumeEvent,
  Protocol,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
} from '../helpers/broker-harness';
import { pySubscribePayload } from '../helpers/stock-clients';
import { collect, delay, expectNothing, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();

describe('any-producer subscription TYO-MQ-ALL (§2.2, §7 step 4)', () => {
  it('delivers the event from every producer on CONSUME-tyo-mq-all-<lc(E)>', async () => {
    const p1 = await ctx.h.producer('alpha');
    const p2 = await ctx.h.producer('Beta');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', Protocol.ALL_PUBLISHERS, 'Tick');
    const event = consumeEvent(anyProducerKey('Tick'));
    expect(event).toBe(consumeEvent('tyo-mq-all-tick'));
    const got = collect(consumer, event, 2);
    produce(p1, 'alpha', 'tick', 1);
    await sync(p1);
    produce(p2, 'Beta', 'TICK', 2);
    expect(await got).toEqual([
      { event: 'tick', message: 1, from: 'alpha' },
      { event: 'TICK', message: 2, from: 'Beta' },
    ]);
  });

  it('does not deliver other events', async () => {
    const p = await ctx.h.producer('alpha');
    const consumer = await ctx.h.consumer('c');
    const rec = record(consumer);
    await subscribe(consumer, 'c', Protocol.ALL_PUBLISHERS, 'tick');
    produce(p, 'alpha', 'tock', 1);
    await sync(p);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
  });

  it('gives one copy per matching key when a consumer holds an exact and an any-producer subscription (§7)', async () => {
    const p = await ctx.h.producer('alpha');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', 'alpha', 'tick');
    await subscribe(consumer, 'c', Protocol.ALL_PUBLISHERS, 'tick');
    const rec = record(consumer);
    const exact = waitFor(consumer, exactConsumeEvent('alpha', 'tick'));
    const any = waitFor(consumer, consumeEvent(anyProducerKey('tick')));
    produce(p, 'alpha', 'tick', 'once');
    expect(await exact).toEqual({ event: 'tick', message: 'once', from: 'alpha' });
    expect(await any).toEqual({ event: 'tick', message: 'once', from: 'alpha' });
    await delay(QUIET_MS);
    expect(rec.names().sort()).toEqual(
      [exactConsumeEvent('alpha', 'tick'), consumeEvent(anyProducerKey('tick'))].sort(),
    );
  });
});

describe('all-events subscription (Note 2.3-A fix)', () => {
  it('delivers every event of P on CONSUME-<lc(P)>-TM-ALL for the Python form {event:"TM-ALL", scope:"all"}', async () => {
    const producer = await ctx.h.producer('Fleet');
    const other = await ctx.h.producer('other');
    const consumer = await ctx.h.consumer('watcher');
    consumer.emit(ClientEvent.SUBSCRIBE, pySubscribePayload('watcher', 'Fleet', null));
    await sync(consumer);

    const event = consumeEvent(allEventsKey('Fleet')); // §2.2 table: key `fleet-TM-ALL`
    const got = collect(consumer, event, 3);
    const wrongKey = expectNothing(consumer, consumeEvent(allEventsKey('Fleet').toLowerCase()));
    produce(other, 'other', 'job', 'not mine');
    produce(producer, 'Fleet', 'Job', 1);
    produce(producer, 'Fleet', 'status/OK', { s: 2 });
    produce(producer, 'Fleet', Protocol.EVENT_DEFAULT, 'three');
    expect(await got).toEqual([
      { event: 'Job', message: 1, from: 'Fleet' },
      { event: 'status/OK', message: { s: 2 }, from: 'Fleet' },
      { event: Protocol.EVENT_DEFAULT, message: 'three', from: 'Fleet' },
    ]);
    await wrongKey;
  });

  it('keys scope:"all" as all-events whatever `event` says', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('w');
    consumer.emit(ClientEvent.SUBSCRIBE, {
      ...pySubscribePayload('w', 'fleet', 'ignored-event'),
      scope: Protocol.SCOPE_ALL,
    });
    await sync(consumer);
    const got = waitFor(consumer, consumeEvent(allEventsKey('fleet')));
    produce(producer, 'fleet', 'anything', 1);
    expect(await got).toEqual({ event: 'anything', message: 1, from: 'fleet' });
  });

  it('keys event "tm-all" (any case) as all-events even without scope', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', 'fleet', Protocol.EVENT_ALL.toLowerCase());
    const got = waitFor(consumer, consumeEvent(allEventsKey('fleet')));
    produce(producer, 'fleet', 'x', 'y');
    expect(await got).toEqual({ event: 'x', message: 'y', from: 'fleet' });
  });

  it('still checks the producer name exactly (Note 2.3-B): all-events of "fleet" gets nothing from "Fleet"', async () => {
    const producer = await ctx.h.producer('Fleet');
    const consumer = await ctx.h.consumer('w');
    consumer.emit(ClientEvent.SUBSCRIBE, pySubscribePayload('w', 'fleet', null));
    await sync(consumer);
    const nothing = expectNothing(consumer, consumeEvent(allEventsKey('fleet')));
    produce(producer, 'Fleet', 'job', 1);
    await nothing;
  });

  it('delivers alongside an exact subscription of the same consumer: one copy per key', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('w');
    consumer.emit(ClientEvent.SUBSCRIBE, pySubscribePayload('w', 'fleet', null));
    consumer.emit(ClientEvent.SUBSCRIBE, pySubscribePayload('w', 'fleet', 'job'));
    await sync(consumer);
    const rec = record(consumer);
    produce(producer, 'fleet', 'job', 1);
    await waitFor(consumer, consumeEvent(allEventsKey('fleet')));
    await delay(QUIET_MS);
    expect(rec.names().sort()).toEqual(
      [consumeEvent(allEventsKey('fleet')), exactConsumeEvent('fleet', 'job')].sort(),
    );
  });
});
