/**
 * Transport-level requirements (spec §1.1): both transports, the 50 MiB `maxHttpBufferSize`, and
 * `403` for plain HTTP requests no enabled HTTP feature handles.
 */
import { describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { ClientEvent } from '../../shared/protocol-events';
import { exactConsumeEvent, produce, subscribe, sync, useBroker } from '../helpers/broker-harness';
import { collectChunked } from '../helpers/chunks';
import { consumerPayload, jsSubscribePayload } from '../helpers/stock-clients';
import { waitFor } from '../helpers/wait';

const ctx = useBroker();

describe('transports (§1.1)', () => {
  it('serves a polling-only client end to end', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = io(ctx.h.url, {
      forceNew: true,
      reconnection: false,
      transports: ['polling'],
    });
    ctx.h.onClose(() => {
      consumer.disconnect();
    });
    await waitFor(consumer, 'connect');
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('poll-only'));
    consumer.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('poll-only', 'fleet', 'job'));
    await sync(consumer);
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'over polling');
    expect(await got).toEqual({ event: 'job', message: 'over polling', from: 'fleet' });
    expect(consumer.io.engine.transport.name).toBe('polling');
  });

  it("accepts an unchunked 3 MB PRODUCE (maxHttpBufferSize is 50 MiB, not socket.io's 1 MB default)", async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', 'fleet', 'big');
    const message = 'q'.repeat(3 * 1024 * 1024);
    const chunked = collectChunked<{ message: string }>(
      consumer,
      exactConsumeEvent('fleet', 'big'),
      30_000,
    );
    produce(producer, 'fleet', 'big', message);
    expect((await chunked).envelope.message === message).toBe(true);
    expect(producer.connected).toBe(true);
  }, 60_000);
});

describe('plain HTTP (§1.1)', () => {
  it('answers a request no enabled HTTP feature handles with 403', async () => {
    const res = await fetch(`${ctx.h.url}/`, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(403);
    const other = await fetch(`${ctx.h.url}/some/other/path`, {
      signal: AbortSignal.timeout(5_000),
    });
    expect(other.status).toBe(403);
  });
});
