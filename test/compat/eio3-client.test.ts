/**
 * socket.io v2-era clients (Engine.IO v3) interoperate (spec §1.1: the stock launcher passes
 * `allowEIO3: true`, "older Engine.IO v3 / socket.io v2 clients may connect").
 *
 * `socket.io-client` v4 cannot connect with EIO=3, and no v2 client package is installed, so the
 * test speaks the v3 wire protocol itself over `ws` (test/helpers/eio3-client.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  Protocol,
  ServerEvent,
  subscribeToEvent,
  subscriptionKey,
} from '../../shared/protocol-events';
import { exactConsumeEvent, produce, subscribe, useBroker } from '../helpers/broker-harness';
import { Eio3Client } from '../helpers/eio3-client';
import { consumerPayload, jsSubscribePayload, producePayload } from '../helpers/stock-clients';
import { collect, waitFor } from '../helpers/wait';

const ctx = useBroker();

async function eio3(): Promise<Eio3Client> {
  const c = await Eio3Client.connect(ctx.h.port);
  ctx.h.onClose(() => c.close());
  return c;
}

describe('Engine.IO v3 / socket.io v2 clients (§1.1 allowEIO3)', () => {
  it('completes the v3 handshake', async () => {
    const c = await eio3();
    expect(c.connected).toBe(true);
    expect(c.sid).not.toBe('');
  });

  it('accepts the v3 polling handshake as well (socket.io v2 clients start with polling)', async () => {
    const res = await fetch(`${ctx.h.url}/socket.io/?EIO=3&transport=polling`, {
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(200);
    // EIO3 polling payload: `<length>:<packet>`…, starting with the open packet `0{"sid":…}`.
    expect(await res.text()).toMatch(/^\d+:0\{"sid":"[^"]+"/);
  });

  it('answers PING through a v2 ack with the JSON string reply (§3.7)', async () => {
    const c = await eio3();
    const reply = await c.emitWithAck(ClientEvent.PING, { app_id: 'v2-app' });
    expect(typeof reply).toBe('string');
    expect(JSON.parse(reply as string)).toEqual({
      app_id: 'v2-app',
      pong: Protocol.PONG,
      timestamp: expect.any(String),
    });
  });

  it('delivers from a v4 producer to a v2 consumer', async () => {
    const producer = await ctx.h.producer('fleet');
    const c = await eio3();
    c.emit(ClientEvent.CONSUMER, consumerPayload('legacy'));
    c.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('legacy', 'fleet', 'Job'));
    await c.emitWithAck(ClientEvent.PING, {}); // barrier
    const got = collect(c, exactConsumeEvent('fleet', 'job'), 2);
    produce(producer, 'fleet', 'Job', { n: 1 });
    produce(producer, 'fleet', 'Job', 'two');
    expect(await got).toEqual([
      { event: 'Job', message: { n: 1 }, from: 'fleet' },
      { event: 'Job', message: 'two', from: 'fleet' },
    ]);
  });

  it('delivers from a v2 producer to a v4 consumer, and notifies the v2 producer on SUBSCRIBE-TO-<its id>', async () => {
    const p = await eio3();
    p.emit(ClientEvent.PRODUCER, { name: 'old-producer' });
    await p.emitWithAck(ClientEvent.PING, {});
    const consumer = await ctx.h.consumer('modern');
    const notice = waitFor(p, subscribeToEvent(p.sid));
    await subscribe(consumer, 'modern', 'old-producer', 'tick');
    expect(await notice).toMatchObject({
      name: 'modern',
      events: [subscriptionKey('old-producer', 'tick')],
      online: true,
    });

    const got = waitFor(consumer, exactConsumeEvent('old-producer', 'tick'));
    p.emit(ClientEvent.PRODUCE, producePayload('tick', 7, { from: 'old-producer' }));
    expect(await got).toEqual({ event: 'tick', message: 7, from: 'old-producer' });
  });

  it('delivers a chunked message to a v2 consumer as CONSUME_CHUNK frames (§14.2)', async () => {
    const producer = await ctx.h.producer('fleet');
    const c = await eio3();
    c.emit(ClientEvent.CONSUMER, consumerPayload('legacy'));
    c.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('legacy', 'fleet', 'big'));
    await c.emitWithAck(ClientEvent.PING, {});
    const message = 'z'.repeat(300 * 1024);
    const frames = collect<{ index: number; total: number; data: string; event: string }>(
      c,
      ServerEvent.CONSUME_CHUNK,
      2,
    );
    produce(producer, 'fleet', 'big', message);
    const got = await frames;
    expect(got.map((f) => [f.index, f.total, f.event])).toEqual([
      [0, 2, exactConsumeEvent('fleet', 'big')],
      [1, 2, exactConsumeEvent('fleet', 'big')],
    ]);
    expect(JSON.parse(got.map((f) => f.data).join(''))).toEqual({
      event: 'big',
      message,
      from: 'fleet',
    });
  });
});
