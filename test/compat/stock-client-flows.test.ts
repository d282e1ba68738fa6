/**
 * End-to-end sessions shaped exactly like the stock clients (spec §1.1, §1.3): the JS `Factory`
 * (default polling-then-upgrade transport, automatic reconnect that re-identifies and replays its
 * subscriptions), the Python client (UUID producer id, `scope`, `method:"unicast"`) and the C#
 * client (JSON-string payloads).
 */
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import {
  allEventsKey,
  ClientEvent,
  connectEvent,
  consumeEvent,
  subscribeToEvent,
  subscriptionKey,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  subscribe,
  sync,
  useBroker,
  waitForConsumersOnline,
} from '../helpers/broker-harness';
import {
  asJsonString,
  consumerPayload,
  jsSubscribePayload,
  producePayload,
  pyProducerPayload,
  pySubscribePayload,
} from '../helpers/stock-clients';
import { collect, waitFor } from '../helpers/wait';

const ctx = useBroker();

describe('JS Factory client (§1.1, §1.3)', () => {
  it("works over socket.io's default polling-then-upgrade transport", async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.connect({ transport: 'polling-upgrade' });
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('poller'));
    consumer.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('poller', 'fleet', 'job'));
    await sync(consumer);
    const got = collect(consumer, exactConsumeEvent('fleet', 'job'), 2);
    produce(producer, 'fleet', 'job', 1);
    const engine = consumer.io.engine;
    if (engine.transport.name !== 'websocket') {
      await new Promise<void>((resolve) => engine.once('upgrade', () => resolve()));
    }
    expect(consumer.io.engine.transport.name).toBe('websocket');
    produce(producer, 'fleet', 'job', 2);
    expect(await got).toEqual([
      { event: 'job', message: 1, from: 'fleet' },
      { event: 'job', message: 2, from: 'fleet' },
    ]);
  });

  it('re-identifies and replays SUBSCRIBE on every automatic reconnect, and traffic resumes', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer: Socket = io(ctx.h.url, {
      forceNew: true,
      reconnectionDelay: 50,
      reconnectionDelayMax: 100,
    });
    ctx.h.onClose(() => {
      consumer.disconnect();
    });
    let connects = 0;
    // lib/socket.js + lib/subscriber.js: identify, then replay subscriptions, on each 'connect'.
    consumer.on('connect', () => {
      connects++;
      consumer.emit(ClientEvent.CONSUMER, consumerPayload('stock'));
      consumer.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('stock', 'fleet', 'job'));
    });
    await waitFor(consumer, 'connect');
    await sync(consumer);
    const first = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'before');
    expect(await first).toMatchObject({ message: 'before' });

    const producerId = producer.id ?? '';
    const back = waitFor(producer, connectEvent(producerId));
    const reconnected = waitFor(consumer, 'connect', 10_000);
    consumer.io.engine.close(); // network blip: the client reconnects by itself
    await reconnected;
    await sync(consumer);
    expect(connects).toBe(2);
    expect(await back).toMatchObject({ consumer: 'stock', id: 'stock', socket: consumer.id });
    await waitForConsumersOnline(ctx.h, 1);

    const after = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'after');
    expect(await after).toMatchObject({ message: 'after' });
  });
});

describe('Python client (§1.3, §3.5, Note 2.3-A)', () => {
  it('gets SUBSCRIBE-TO-<its UUID id> as a producer and routes method:"unicast" PRODUCEs', async () => {
    const id = randomUUID();
    const producer = await ctx.h.connect();
    producer.emit(ClientEvent.PRODUCER, pyProducerPayload('py-fleet', id));
    await sync(producer);
    const consumer = await ctx.h.consumer('py-worker');
    const notice = waitFor(producer, subscribeToEvent(id));
    consumer.emit(ClientEvent.SUBSCRIBE, pySubscribePayload('py-worker', 'py-fleet', 'Job'));
    expect(await notice).toMatchObject({
      name: 'py-worker',
      events: [subscriptionKey('py-fleet', 'Job')],
    });

    const got = waitFor(consumer, exactConsumeEvent('py-fleet', 'job'));
    producer.emit(
      ClientEvent.PRODUCE,
      producePayload('Job', { x: 1 }, { from: 'py-fleet', method: 'unicast' }),
    );
    expect(await got).toEqual({ event: 'Job', message: { x: 1 }, from: 'py-fleet' });
  });

  it('receives all events of a producer with subscribe(who, None) on CONSUME-<lc(P)>-TM-ALL', async () => {
    const producer = await ctx.h.producer('PyFleet');
    const consumer = await ctx.h.consumer('py-all');
    consumer.emit(ClientEvent.SUBSCRIBE, pySubscribePayload('py-all', 'PyFleet', null));
    await sync(consumer);
    const got = collect(consumer, consumeEvent(allEventsKey('PyFleet')), 2);
    produce(producer, 'PyFleet', 'a', 1, { method: 'unicast' });
    produce(producer, 'PyFleet', 'b', 2, { method: 'unicast' });
    expect(await got).toEqual([
      { event: 'a', message: 1, from: 'PyFleet' },
      { event: 'b', message: 2, from: 'PyFleet' },
    ]);
  });
});

describe('C# client (§1.2)', () => {
  it('runs a whole session on JSON-string payloads', async () => {
    const producer = await ctx.h.connect();
    producer.emit(ClientEvent.PRODUCER, asJsonString({ name: 'cs' }));
    const consumer = await ctx.h.connect();
    consumer.emit(ClientEvent.CONSUMER, asJsonString(consumerPayload('cs-worker')));
    await sync(producer, consumer);
    const notice = waitFor(producer, subscribeToEvent(producer.id ?? ''));
    consumer.emit(
      ClientEvent.SUBSCRIBE,
      asJsonString(jsSubscribePayload('cs-worker', 'cs', 'Order/New')),
    );
    expect(await notice).toMatchObject({ events: [subscriptionKey('cs', 'Order/New')] });
    const got = waitFor(consumer, exactConsumeEvent('cs', 'order/new'));
    producer.emit(
      ClientEvent.PRODUCE,
      asJsonString(
        producePayload('Order/New', { id: 7 }, { from: 'cs', contentType: 'application/json' }),
      ),
    );
    expect(await got).toEqual({
      event: 'Order/New',
      message: { id: 7 },
      from: 'cs',
      content_type: 'application/json',
    });
    await subscribe(consumer, 'cs-worker', 'cs', 'other'); // object form still fine on the same socket
  });
});
