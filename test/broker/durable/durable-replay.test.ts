/**
 * Durable subscriptions, guaranteed messages, TTL and replay (spec §9, §20 items 15–23),
 * against the memory store (the SQLite store runs the same paths in sqlite-durable.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, anyProducerKey, consumeEvent } from '../../../shared/protocol-events';
import type { DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  subscribe,
  sync,
  useBroker,
} from '../../helpers/broker-harness';
import { collect, delay, expectNothing, waitFor } from '../../helpers/wait';

const ctx = useBroker({ default_ttl: 60 });
const JOB = exactConsumeEvent('fleet', 'job');

/** A consumer that subscribes, goes away, and whose name stays registered offline. */
async function offlineConsumer(name: string, producer: string, event: string, opts = {}) {
  const c = await ctx.h.consumer(name);
  await subscribe(c, name, producer, event, opts);
  await ctx.h.disconnect(c);
}

describe('durable delivery (§9)', () => {
  it('replays to a durable subscriber what was produced while it was offline, oldest first, once', async () => {
    await offlineConsumer('w1', 'fleet', 'job', { durable: true });
    const p = await ctx.h.producer('fleet');
    for (let i = 0; i < 5; i++) produce(p, 'fleet', 'job', i);
    await sync(p);
    const c = await ctx.h.consumer('w1');
    const got = collect<DeliveryEnvelope>(c, JOB, 5);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
    const envelopes = await got;
    expect(envelopes.map((e) => e.message)).toEqual([0, 1, 2, 3, 4]);
    expect(envelopes[0]).toEqual({ event: 'job', message: 0, from: 'fleet' });
    // Legacy replay is at most once: the copies are gone (§20 items 21–22).
    c.disconnect();
    const again = await ctx.h.consumer('w1');
    const none = expectNothing(again, JOB);
    await subscribe(again, 'w1', 'fleet', 'job', { durable: true });
    await none;
  });

  it('replays to an any-producer durable subscriber (§20 item 16)', async () => {
    await offlineConsumer('w1', 'TYO-MQ-ALL', 'job', { durable: true });
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'job', 'offline');
    await sync(p);
    const c = await ctx.h.consumer('w1');
    const got = waitFor<DeliveryEnvelope>(c, consumeEvent(anyProducerKey('job')));
    await subscribe(c, 'w1', 'TYO-MQ-ALL', 'job', { durable: true });
    expect((await got).message).toBe('offline');
  });

  it('does not replay to a non-durable subscriber (§20 item 17)', async () => {
    await offlineConsumer('w1', 'fleet', 'job');
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'job', 'lost');
    await sync(p);
    const c = await ctx.h.consumer('w1');
    const none = expectNothing(c, JOB, 400);
    await subscribe(c, 'w1', 'fleet', 'job');
    await none;
  });

  it('stores a guaranteed message for a non-durable offline subscriber (§9.2, §20 item 18)', async () => {
    await offlineConsumer('w1', 'fleet', 'job');
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'job', 'kept', { guaranteed: true });
    await sync(p);
    const c = await ctx.h.consumer('w1');
    const got = waitFor<DeliveryEnvelope>(c, JOB);
    await subscribe(c, 'w1', 'fleet', 'job');
    expect((await got).message).toBe('kept');
  });

  it('does not replay an expired message: ttl on the message, or the producer default_ttl (§9.3)', async () => {
    await offlineConsumer('w1', 'fleet', 'job', { durable: true });
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'job', 'short', { ttl: 0.2 });
    produce(p, 'fleet', 'job', 'long', { ttl: 60 });
    await sync(p);
    const q = await ctx.h.connect();
    q.emit(ClientEvent.PRODUCER, { name: 'brief', default_ttl: 0.2 });
    await offlineConsumer('w2', 'brief', 'job', { durable: true });
    q.emit(ClientEvent.PRODUCE, { event: 'job', message: 'brief', from: 'brief' });
    // A string TTL uses the duration grammar (Note 9.3-A): "200ms".
    p.emit(ClientEvent.PRODUCE, {
      event: 'job',
      message: 'string-ttl',
      from: 'fleet',
      ttl: '200ms',
    });
    await ctx.h.settle(p, q);
    await delay(400); // past the 200 ms TTLs (a slower machine only makes it later)
    const c = await ctx.h.consumer('w1');
    const got = collect<DeliveryEnvelope>(c, JOB, 1);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
    expect((await got).map((e) => e.message)).toEqual(['long']);
    const extra = expectNothing(c, JOB, 300);
    const c2 = await ctx.h.consumer('w2');
    const none = expectNothing(c2, exactConsumeEvent('brief', 'job'));
    await subscribe(c2, 'w2', 'brief', 'job', { durable: true });
    await Promise.all([none, extra]);
  });

  it('replays with msgId to an ACK subscriber and stops once ACKed (§20 item 23)', async () => {
    await offlineConsumer('w1', 'fleet', 'job', { durable: true, ack: true });
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'job', 'acked');
    await sync(p);
    const c = await ctx.h.consumer('w1');
    const got = waitFor<DeliveryEnvelope>(c, JOB);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true, ack: true });
    const env = await got;
    expect(env.msgId).toMatch(/^msg-/);
    expect(env.msg_id).toBe(env.msgId);
    expect(env.delivery_attempt).toBe(1);
    const ok = waitFor<{ ok: boolean; msgId: string }>(c, 'ACK_OK');
    c.emit(ClientEvent.ACK, { msgId: env.msgId });
    expect(await ok).toEqual({ ok: true, msgId: env.msgId });
    c.disconnect();
    const again = await ctx.h.consumer('w1');
    const none = expectNothing(again, JOB);
    await subscribe(again, 'w1', 'fleet', 'job', { durable: true, ack: true });
    await none;
  });

  it('does not send a copy already awaiting this socket’s ACK twice when it subscribes again (Note 9.4-A)', async () => {
    await offlineConsumer('w1', 'fleet', 'job', { durable: true, ack: true });
    const p = await ctx.h.producer('fleet');
    produce(p, 'fleet', 'job', 'once');
    await sync(p);
    const c = await ctx.h.consumer('w1');
    const first = waitFor<DeliveryEnvelope>(c, JOB);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true, ack: true });
    await first;
    const none = expectNothing(c, JOB, 400);
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true, ack: true });
    await none;
  });
});
