/**
 * Producer/consumer notifications (spec §4, §5.2 step 4, §5.3 step 4, §5.4, §15;
 * Notes 5.3-A, 5.3-C, 15-A, 15-B; reference test §20 item 47).
 */
import { describe, expect, it } from 'vitest';
import {
  anyProducerKey,
  ClientEvent,
  connectEvent,
  disconnectEvent,
  Protocol,
  ServerEvent,
  subscribeToEvent,
  subscriptionKey,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  PeerNoticeKind,
  produce,
  subscribe,
  sync,
  useBroker,
  waitForConsumersOnline,
  waitForProducersOnline,
} from '../helpers/broker-harness';
import { consumerPayload, jsProducerPayload, jsSubscribePayload } from '../helpers/stock-clients';
import { expectNothing, waitFor } from '../helpers/wait';

const ctx = useBroker();

/** The socket id of a connected socket (socket.io v4: identical on both sides). */
function idOf(s: { id: string | undefined }): string {
  if (!s.id) throw new Error('socket has no id');
  return s.id;
}

describe('SUBSCRIBE-TO-<producerId> (§5.3, §5.4)', () => {
  it('is sent to an online producer on SUBSCRIBE with {name, id, socket, events:[key], online:true}', async () => {
    const producer = await ctx.h.producer('Fleet');
    const consumer = await ctx.h.connect();
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('worker-01'));
    const notice = waitFor(producer, subscribeToEvent(idOf(producer)));
    await subscribe(consumer, 'worker-01', 'Fleet', 'Job');
    expect(await notice).toEqual({
      name: 'worker-01',
      id: 'worker-01',
      socket: idOf(consumer),
      events: [subscriptionKey('Fleet', 'Job')],
      online: true,
    });
  });

  it('uses the consumer id from CONSUMER, not the name, as `id` (§5.2 step 3)', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('worker', { consumerId: 'worker-id-7' });
    const notice = waitFor(producer, subscribeToEvent(idOf(producer)));
    await subscribe(consumer, 'worker', 'fleet', 'job', { consumerId: 'worker-id-7' });
    expect(await notice).toMatchObject({ name: 'worker', id: 'worker-id-7' });
  });

  it('is sent again on a repeated SUBSCRIBE (§5.4: "including repeats")', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('w');
    const first = waitFor(producer, subscribeToEvent(idOf(producer)));
    await subscribe(consumer, 'w', 'fleet', 'job');
    await first;
    const second = waitFor(producer, subscribeToEvent(idOf(producer)));
    await subscribe(consumer, 'w', 'fleet', 'job');
    expect(await second).toMatchObject({ events: [subscriptionKey('fleet', 'job')] });
  });

  it('announces every subscription key when the producer registers later (Note 5.3-A fix) and sends the consumer CONNECT-<consumerId>', async () => {
    const consumer = await ctx.h.consumer('worker-01');
    await subscribe(consumer, 'worker-01', 'fleet', 'MyEvent');
    await subscribe(consumer, 'worker-01', 'fleet', 'Second');

    const producer = await ctx.h.connect();
    const notice = waitFor<{ events: string[] }>(producer, subscribeToEvent(idOf(producer)));
    const online = waitFor(consumer, connectEvent('worker-01'));
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));

    const n = await notice;
    expect(n).toMatchObject({
      name: 'worker-01',
      id: 'worker-01',
      socket: idOf(consumer),
      online: true,
    });
    expect([...n.events].sort()).toEqual(
      [subscriptionKey('fleet', 'MyEvent'), subscriptionKey('fleet', 'Second')].sort(),
    );
    // §4 table: exactly {event, socket:<producer socket id>, producer:<name>}.
    expect(await online).toEqual({
      event: PeerNoticeKind.CONNECT,
      socket: idOf(producer),
      producer: 'fleet',
    });
  });

  it('re-announces every key to a producer that re-registers on a new socket ("resend all", §5.3 step 2)', async () => {
    const first = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', 'fleet', 'one');
    await subscribe(consumer, 'w', 'fleet', 'two');
    first.disconnect();
    await waitForProducersOnline(ctx.h, 0);
    const second = await ctx.h.connect();
    const notice = waitFor<{ events: string[]; online: boolean }>(
      second,
      subscribeToEvent(idOf(second)),
    );
    second.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
    const n = await notice;
    expect([...n.events].sort()).toEqual(
      [subscriptionKey('fleet', 'one'), subscriptionKey('fleet', 'two')].sort(),
    );
    expect(n.online).toBe(true);
  });

  it('reports online:false for a subscribed consumer that is offline when the producer registers (§5.3 step 4)', async () => {
    const consumer = await ctx.h.consumer('sleeper');
    await subscribe(consumer, 'sleeper', 'fleet', 'job');
    consumer.disconnect();
    await waitForConsumersOnline(ctx.h, 0);
    const producer = await ctx.h.connect();
    const notice = waitFor(producer, subscribeToEvent(idOf(producer)));
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
    // `socket` is not pinned down for an offline consumer (§5.1 sets it to null); check the rest.
    expect(await notice).toMatchObject({
      name: 'sleeper',
      id: 'sleeper',
      events: [subscriptionKey('fleet', 'job')],
      online: false,
    });
  });

  it('uses the SUBSCRIBE `id` when SUBSCRIBE is what registers the consumer (§3.3, §5.1)', async () => {
    const producer = await ctx.h.producer('fleet');
    const s = await ctx.h.connect();
    const notice = waitFor(producer, subscribeToEvent(idOf(producer)));
    s.emit(ClientEvent.SUBSCRIBE, {
      ...jsSubscribePayload('implicit', 'fleet', 'job'),
      id: 'implicit-id',
    });
    expect(await notice).toMatchObject({ name: 'implicit', id: 'implicit-id', socket: idOf(s) });
    const gone = waitFor(s, disconnectEvent('implicit-id'));
    producer.disconnect();
    expect(await gone).toMatchObject({ producer: 'fleet' });
  });

  it("goes to every online producer except the consumer's own name for TYO-MQ-ALL (§5.4)", async () => {
    const p1 = await ctx.h.producer('alpha');
    const p2 = await ctx.h.producer('beta');
    const self = await ctx.h.producer('watcher'); // same name as the consumer below
    const consumer = await ctx.h.consumer('watcher');
    const n1 = waitFor(p1, subscribeToEvent(idOf(p1)));
    const n2 = waitFor(p2, subscribeToEvent(idOf(p2)));
    const nSelf = expectNothing(self, subscribeToEvent(idOf(self)));
    await subscribe(consumer, 'watcher', Protocol.ALL_PUBLISHERS, 'tick');
    const expected = { events: [anyProducerKey('tick')], online: true, name: 'watcher' };
    expect(await n1).toMatchObject(expected);
    expect(await n2).toMatchObject(expected);
    await nSelf;
  });

  it('is not sent for a TYO-MQ-ALL subscription when a producer registers later (Note 5.3-C, keep)', async () => {
    const consumer = await ctx.h.consumer('any-c');
    await subscribe(consumer, 'any-c', Protocol.ALL_PUBLISHERS, 'tick');
    const producer = await ctx.h.connect();
    const none = expectNothing(producer, subscribeToEvent(idOf(producer)));
    const noConnect = expectNothing(consumer, connectEvent('any-c'));
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('late'));
    await Promise.all([none, noConnect]);
  });
});

describe('CONNECT-/DISCONNECT- notifications (§4, §5.2, §15)', () => {
  it('tells the producer CONNECT-<producerId> {event, socket, id, consumer} when a subscribed consumer comes back', async () => {
    const producer = await ctx.h.producer('fleet');
    const first = await ctx.h.consumer('worker-01');
    await subscribe(first, 'worker-01', 'fleet', 'job');
    first.disconnect();
    await waitForConsumersOnline(ctx.h, 0);

    const second = await ctx.h.connect();
    const back = waitFor(producer, connectEvent(idOf(producer)));
    second.emit(ClientEvent.CONSUMER, consumerPayload('worker-01'));
    expect(await back).toEqual({
      event: PeerNoticeKind.CONNECT,
      socket: idOf(second),
      id: 'worker-01',
      consumer: 'worker-01',
    });
  });

  it('tells the producer DISCONNECT-<producerId> with exactly {event, socket, consumer} when a consumer leaves', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('worker-01');
    await subscribe(consumer, 'worker-01', 'fleet', 'job');
    const consumerSocketId = idOf(consumer);
    const lost = waitFor(producer, disconnectEvent(idOf(producer)));
    consumer.disconnect();
    expect(await lost).toEqual({
      event: PeerNoticeKind.DISCONNECT,
      socket: consumerSocketId,
      consumer: 'worker-01',
    });
  });

  it('tells the consumer DISCONNECT-<consumerId> with exactly {event, socket, producer} when a producer leaves', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('worker-01');
    await subscribe(consumer, 'worker-01', 'fleet', 'job');
    const producerSocketId = idOf(producer);
    const lost = waitFor(consumer, disconnectEvent('worker-01'));
    producer.disconnect();
    expect(await lost).toEqual({
      event: PeerNoticeKind.DISCONNECT,
      socket: producerSocketId,
      producer: 'fleet',
    });
  });

  it('builds separate payloads for a socket that is both producer and consumer (Note 15-B fix)', async () => {
    const upstream = await ctx.h.producer('upstream');
    const downstream = await ctx.h.consumer('down');
    const both = await ctx.h.connect();
    both.emit(ClientEvent.PRODUCER, jsProducerPayload('relay'));
    both.emit(ClientEvent.CONSUMER, consumerPayload('relay-c'));
    await sync(both);
    await subscribe(both, 'relay-c', 'upstream', 'raw');
    await subscribe(downstream, 'down', 'relay', 'cooked');
    const bothId = idOf(both);

    const toUpstream = waitFor(upstream, disconnectEvent(idOf(upstream)));
    const toDownstream = waitFor(downstream, disconnectEvent('down'));
    both.disconnect();
    expect(await toUpstream).toEqual({
      event: PeerNoticeKind.DISCONNECT,
      socket: bothId,
      consumer: 'relay-c',
    });
    expect(await toDownstream).toEqual({
      event: PeerNoticeKind.DISCONNECT,
      socket: bothId,
      producer: 'relay',
    });
  });

  it('cleans up every consumer name bound to a socket on disconnect (Note 15-A fix)', async () => {
    const multi = await ctx.h.connect();
    multi.emit(ClientEvent.CONSUMER, consumerPayload('name-a'));
    multi.emit(ClientEvent.CONSUMER, consumerPayload('name-b'));
    await sync(multi);
    expect(ctx.h.stats().consumers.online).toBe(2);
    multi.disconnect();
    await waitForConsumersOnline(ctx.h, 0);

    // name-b must now be free: a newcomer takes it without a duplicate error.
    const fresh = await ctx.h.connect();
    const noError = expectNothing(fresh, ServerEvent.ERROR);
    fresh.emit(ClientEvent.CONSUMER, consumerPayload('name-b'));
    await noError;
    expect(fresh.connected).toBe(true);
  });
});

describe('any-producer subscribers and producer notifications (§5.4, §15)', () => {
  it('tells a TYO-MQ-ALL subscriber DISCONNECT-<consumerId> when a producer it was announced to leaves', async () => {
    const producer = await ctx.h.producer('alpha');
    const consumer = await ctx.h.consumer('any');
    await subscribe(consumer, 'any', Protocol.ALL_PUBLISHERS, 'tick');
    const producerSocketId = idOf(producer);
    const lost = waitFor(consumer, disconnectEvent('any'));
    producer.disconnect();
    expect(await lost).toEqual({
      event: PeerNoticeKind.DISCONNECT,
      socket: producerSocketId,
      producer: 'alpha',
    });
  });
});

describe('legacy smoke flow (§20.47)', () => {
  it("delivers the default event and a second event, and fires the producer's DISCONNECT-<socket id>", async () => {
    const producer = await ctx.h.producer('smoke');
    const consumer = await ctx.h.consumer('smoke-c');
    await subscribe(consumer, 'smoke-c', 'smoke', Protocol.EVENT_DEFAULT);
    await subscribe(consumer, 'smoke-c', 'smoke', 'event2');

    const d1 = waitFor(consumer, exactConsumeEvent('smoke', Protocol.EVENT_DEFAULT));
    const d2 = waitFor(consumer, exactConsumeEvent('smoke', 'event2'));
    produce(producer, 'smoke', Protocol.EVENT_DEFAULT, 'test text from default event');
    produce(producer, 'smoke', 'event2', { data: 'test text from event2' });
    expect(await d1).toEqual({
      event: Protocol.EVENT_DEFAULT,
      message: 'test text from default event',
      from: 'smoke',
    });
    expect(await d2).toEqual({
      event: 'event2',
      message: { data: 'test text from event2' },
      from: 'smoke',
    });

    const lost = waitFor(producer, disconnectEvent(idOf(producer)));
    consumer.disconnect();
    expect(await lost).toMatchObject({ event: PeerNoticeKind.DISCONNECT, consumer: 'smoke-c' });
  });
});
