/**
 * `UNSUBSCRIBE` really unsubscribes (spec §3.4 and its Note 3.4 fix: a key string or
 * `{event, producer, consumer?}`; remove the key for the consumer names on this socket; drop the
 * topic-index entry when nobody is left; send no reply).
 */
import { describe, expect, it } from 'vitest';
import {
  allEventsKey,
  anyProducerKey,
  ClientEvent,
  consumeEvent,
  Protocol,
  subscriptionKey,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
  waitForConsumersOnline,
  type Socket,
} from '../helpers/broker-harness';
import { jsSubscribePayload } from '../helpers/stock-clients';
import { delay, expectNothing, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();

async function subscribedPair(): Promise<{ producer: Socket; consumer: Socket }> {
  const producer = await ctx.h.producer('fleet');
  const consumer = await ctx.h.consumer('worker');
  await subscribe(consumer, 'worker', 'fleet', 'Job');
  // Prove the subscription works before removing it.
  const first = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
  produce(producer, 'fleet', 'Job', 'before');
  await first;
  return { producer, consumer };
}

describe('UNSUBSCRIBE (Note 3.4 fix)', () => {
  it('stops delivery for a key string', async () => {
    const { producer, consumer } = await subscribedPair();
    consumer.emit(ClientEvent.UNSUBSCRIBE, subscriptionKey('fleet', 'Job'));
    await sync(consumer);
    const nothing = expectNothing(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'Job', 'after');
    await nothing;
  });

  it('stops delivery for the object form {event, producer}', async () => {
    const { producer, consumer } = await subscribedPair();
    consumer.emit(ClientEvent.UNSUBSCRIBE, { event: 'Job', producer: 'fleet' });
    await sync(consumer);
    const nothing = expectNothing(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'Job', 'after');
    await nothing;
  });

  it('stops delivery for the object form with consumer {event, producer, consumer}', async () => {
    const { producer, consumer } = await subscribedPair();
    consumer.emit(ClientEvent.UNSUBSCRIBE, { event: 'job', producer: 'fleet', consumer: 'worker' });
    await sync(consumer);
    const nothing = expectNothing(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'after');
    await nothing;
  });

  it('leaves no placeholder producer behind after subscribe/unsubscribe cycles with fresh names (issue 8 item 10)', async () => {
    const consumer = await ctx.h.consumer('worker');
    for (let i = 0; i < 300; i++) {
      const producer = `fresh-${i}`;
      consumer.emit(
        ClientEvent.SUBSCRIBE,
        jsSubscribePayload('worker', producer, 'job', { group: `g-${i}` }),
      );
      consumer.emit(ClientEvent.UNSUBSCRIBE, { event: 'job', producer });
    }
    await sync(consumer);
    expect(ctx.h.stats()).toMatchObject({ producers: { total: 0 }, subscriptions: 0 });
  });

  it('sends no reply and never calls an ack callback', async () => {
    const { consumer } = await subscribedPair();
    const rec = record(consumer);
    let acked = false;
    consumer.emit(ClientEvent.UNSUBSCRIBE, subscriptionKey('fleet', 'job'), () => {
      acked = true;
    });
    await sync(consumer);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
    expect(acked).toBe(false);
  });

  it("leaves the consumer's other subscriptions intact", async () => {
    const { producer, consumer } = await subscribedPair();
    await subscribe(consumer, 'worker', 'fleet', 'status');
    consumer.emit(ClientEvent.UNSUBSCRIBE, subscriptionKey('fleet', 'job'));
    await sync(consumer);
    const nothing = expectNothing(consumer, exactConsumeEvent('fleet', 'job'));
    const still = waitFor(consumer, exactConsumeEvent('fleet', 'status'));
    produce(producer, 'fleet', 'job', 1);
    produce(producer, 'fleet', 'status', 2);
    expect(await still).toMatchObject({ message: 2 });
    await nothing;
  });

  it('only removes subscriptions held by consumer names on the unsubscribing socket', async () => {
    const { producer, consumer } = await subscribedPair();
    const other = await ctx.h.consumer('other');
    await subscribe(other, 'other', 'fleet', 'job');
    // A third socket with no subscription of its own tries to remove the key.
    const stranger = await ctx.h.consumer('stranger');
    stranger.emit(ClientEvent.UNSUBSCRIBE, subscriptionKey('fleet', 'job'));
    await sync(stranger);
    // And `worker` unsubscribes only itself.
    consumer.emit(ClientEvent.UNSUBSCRIBE, subscriptionKey('fleet', 'job'));
    await sync(consumer);
    const stillOther = waitFor(other, exactConsumeEvent('fleet', 'job'));
    const nothing = expectNothing(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'x');
    expect(await stillOther).toMatchObject({ message: 'x' });
    await nothing;
  });

  it('removes an any-producer subscription by its key', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', Protocol.ALL_PUBLISHERS, 'tick');
    consumer.emit(ClientEvent.UNSUBSCRIBE, anyProducerKey('tick'));
    await sync(consumer);
    const nothing = expectNothing(consumer, consumeEvent(anyProducerKey('tick')));
    produce(producer, 'fleet', 'tick', 1);
    await nothing;
  });

  it('removes a topic subscription and its topic-index entry', async () => {
    const producer = await ctx.h.producer('sensor');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', Protocol.ALL_PUBLISHERS, 'plant/+/temp', { mode: 'topic' });
    const key = anyProducerKey('plant/+/temp');
    const first = waitFor(consumer, consumeEvent(key));
    produce(producer, 'sensor', 'plant/a/temp', 20);
    expect(await first).toMatchObject({ event: 'plant/a/temp' });

    consumer.emit(ClientEvent.UNSUBSCRIBE, {
      event: 'plant/+/temp',
      producer: Protocol.ALL_PUBLISHERS,
    });
    await sync(consumer);
    const rec = record(consumer);
    produce(producer, 'sensor', 'plant/b/temp', 21);
    await sync(producer);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
  });

  it('lets the consumer subscribe again after unsubscribing', async () => {
    const { producer, consumer } = await subscribedPair();
    consumer.emit(ClientEvent.UNSUBSCRIBE, subscriptionKey('fleet', 'job'));
    await sync(consumer);
    await subscribe(consumer, 'worker', 'fleet', 'job');
    const again = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'again');
    expect(await again).toMatchObject({ message: 'again' });
  });
  it('keeps the topic-index entry while another consumer still holds the topic key', async () => {
    const producer = await ctx.h.producer('sensor');
    const x = await ctx.h.consumer('x');
    const y = await ctx.h.consumer('y');
    await subscribe(x, 'x', Protocol.ALL_PUBLISHERS, 'plant/+', { mode: 'topic' });
    await subscribe(y, 'y', Protocol.ALL_PUBLISHERS, 'plant/+', { mode: 'topic' });
    x.emit(ClientEvent.UNSUBSCRIBE, anyProducerKey('plant/+'));
    await sync(x);
    const key = consumeEvent(anyProducerKey('plant/+'));
    const nothing = expectNothing(x, key);
    const got = waitFor(y, key);
    produce(producer, 'sensor', 'plant/7', 1);
    expect(await got).toMatchObject({ event: 'plant/7' });
    await nothing;
  });

  it('removes an all-events subscription by its key string and by {event:"TM-ALL", producer} (Note 2.3-A)', async () => {
    const producer = await ctx.h.producer('Fleet');
    const a = await ctx.h.consumer('a');
    const b = await ctx.h.consumer('b');
    await subscribe(a, 'a', 'Fleet', Protocol.EVENT_ALL, { scope: Protocol.SCOPE_ALL });
    await subscribe(b, 'b', 'Fleet', Protocol.EVENT_ALL, { scope: Protocol.SCOPE_ALL });
    a.emit(ClientEvent.UNSUBSCRIBE, allEventsKey('Fleet'));
    b.emit(ClientEvent.UNSUBSCRIBE, { event: Protocol.EVENT_ALL, producer: 'Fleet' });
    await sync(a, b);
    const event = consumeEvent(allEventsKey('Fleet'));
    const none = Promise.all([expectNothing(a, event), expectNothing(b, event)]);
    produce(producer, 'Fleet', 'job', 1);
    await none;
  });

  it('works from a new socket that re-registered the consumer name after a reconnect', async () => {
    const { producer, consumer } = await subscribedPair();
    consumer.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    const again = await ctx.h.consumer('worker');
    again.emit(ClientEvent.UNSUBSCRIBE, subscriptionKey('fleet', 'job'));
    await sync(again);
    const nothing = expectNothing(again, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'after');
    await nothing;
  });
});
