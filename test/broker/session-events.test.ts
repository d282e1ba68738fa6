/**
 * Session-level events: `PING` (§3.7, reference test §20 item 9), `HELLO`, `DEBUG`, `QUIT`
 * (§3 table), and a live `ack` subscription without `durable` (Note 7-A: must not crash).
 * Durable storage, ACK replies, retry and DLQ (§9, §10) belong to a later issue.
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
  waitForServerDisconnect,
} from '../helpers/broker-harness';
import { delay, expectNothing, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();

describe('PING (§3.7)', () => {
  it('replies through the ack callback with a JSON string: request fields + pong:"PONG" + ISO timestamp (§20.9)', async () => {
    const s = await ctx.h.connect();
    const reply: unknown = await s
      .timeout(5_000)
      .emitWithAck(ClientEvent.PING, { app_id: 'test-app', n: 3 });
    // §3.7: "Keep the string form."
    expect(typeof reply).toBe('string');
    const parsed = JSON.parse(reply as string) as Record<string, unknown>;
    expect(parsed).toEqual({
      app_id: 'test-app',
      n: 3,
      pong: 'PONG',
      timestamp: expect.any(String),
    });
    const ts = parsed.timestamp as string;
    expect(new Date(ts).toISOString()).toBe(ts);
    expect(Math.abs(Date.parse(ts) - Date.now())).toBeLessThan(60_000); // sanity, not timing
  });

  it('answers before registration and with an empty object', async () => {
    const s = await ctx.h.connect();
    const reply: unknown = await s.timeout(5_000).emitWithAck(ClientEvent.PING, {});
    expect(JSON.parse(reply as string)).toEqual({ pong: 'PONG', timestamp: expect.any(String) });
  });

  it('sets pong and timestamp itself even when the request carries fields of those names', async () => {
    const s = await ctx.h.connect();
    const reply: unknown = await s
      .timeout(5_000)
      .emitWithAck(ClientEvent.PING, { pong: 'nope', timestamp: 'yesterday', app_id: 'a' });
    const parsed = JSON.parse(reply as string) as Record<string, unknown>;
    expect(parsed.pong).toBe('PONG');
    expect(parsed.app_id).toBe('a');
    expect(new Date(parsed.timestamp as string).toISOString()).toBe(parsed.timestamp);
  });

  it('does nothing without a callback (no event is emitted back)', async () => {
    const s = await ctx.h.connect();
    const rec = record(s);
    s.emit(ClientEvent.PING, { app_id: 'x' });
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
    expect(s.connected).toBe(true);
  });

  it('ignores a non-function where the callback would go (§19: call acks only when supplied)', async () => {
    const s = await ctx.h.connect();
    s.emit(ClientEvent.PING, { app_id: 'x' }, 'not-a-function');
    await delay(QUIET_MS);
    expect(s.connected).toBe(true);
    const reply: unknown = await s.timeout(5_000).emitWithAck(ClientEvent.PING, { again: true });
    expect(JSON.parse(reply as string)).toMatchObject({ again: true, pong: 'PONG' });
  });
});

describe('HELLO, DEBUG (§3 table: logged only)', () => {
  it('sends no reply and calls no ack callback', async () => {
    const s = await ctx.h.connect();
    const rec = record(s);
    let acks = 0;
    s.emit(ClientEvent.HELLO, { name: 'app', type: 'consumer' }, () => acks++);
    s.emit(ClientEvent.DEBUG, { anything: [1, 2, 3] }, () => acks++);
    s.emit(ClientEvent.DEBUG, 'a string');
    await sync(s);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
    expect(acks).toBe(0);
  });
});

describe('QUIT (§3 table)', () => {
  it('disconnects the caller when the payload is its own socket id', async () => {
    const s = await ctx.h.consumer('quitter');
    const gone = waitForServerDisconnect(s);
    s.emit(ClientEvent.QUIT, s.id);
    expect(await gone).toBe('io server disconnect');
  });

  it("does nothing when the id is someone else's or not a string", async () => {
    const victim = await ctx.h.consumer('victim');
    const s = await ctx.h.connect();
    s.emit(ClientEvent.QUIT, victim.id);
    s.emit(ClientEvent.QUIT, { id: s.id });
    s.emit(ClientEvent.QUIT, 12345);
    await sync(s);
    await delay(QUIET_MS);
    expect(victim.connected).toBe(true);
    expect(s.connected).toBe(true);
  });
});

describe('live ack subscription without durable (Note 7-A)', () => {
  it('does not crash the broker, delivers the message, and keeps serving', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('acker');
    await subscribe(consumer, 'acker', 'fleet', 'job', { ack: true });
    const bystander = await ctx.h.consumer('plain');
    await subscribe(bystander, 'plain', 'fleet', 'job');

    const delivered = waitFor<Record<string, unknown>>(consumer, exactConsumeEvent('fleet', 'job'));
    const plain = waitFor(bystander, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'j1');
    expect(await delivered).toMatchObject({ event: 'job', message: 'j1', from: 'fleet' });
    expect(await plain).toEqual({ event: 'job', message: 'j1', from: 'fleet' });

    // Still serving after the delivery that killed the reference.
    const next = waitFor(bystander, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'j2');
    expect(await next).toMatchObject({ message: 'j2' });
    const pong: unknown = await consumer.timeout(5_000).emitWithAck(ClientEvent.PING, {});
    expect(JSON.parse(pong as string)).toMatchObject({ pong: 'PONG' });
  });

  it('also survives manual_ack and a retry policy on a non-durable subscription', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('manual');
    await subscribe(consumer, 'manual', 'fleet', 'job', {
      manualAck: true,
      ackTimeout: '100ms',
      retry: { max_attempts: 2, delay: '50ms' },
    });
    const delivered = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'j1');
    expect(await delivered).toMatchObject({ message: 'j1' });
    await expectNothing(consumer, ServerEvent.ERROR);
    expect(consumer.connected).toBe(true);
  });

  // The reliable envelope (msgId/msg_id/delivery_attempt) of the Note 7-A fix is §10 work.
  it.todo(
    'Note 7-A fix: the ack delivery carries msgId = msg_id and delivery_attempt 1 (durable/ACK issue)',
  );
});
