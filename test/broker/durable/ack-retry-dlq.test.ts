/**
 * ACK, retry with backoff and the dead-letter queue (spec §3.6, §10, §20 items 24–26;
 * Notes 7-A and 10.4-A). Timing assertions use generous windows, never exact times.
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  ServerEvent,
  type AckReply,
  type DeliveryEnvelope,
} from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  subscribe,
  sync,
  useBroker,
} from '../../helpers/broker-harness';
import { collect, delay, expectNothing, waitFor, waitUntil } from '../../helpers/wait';

const ctx = useBroker();
const JOB = exactConsumeEvent('fleet', 'job');

async function liveAckConsumer(name: string, opts: Record<string, unknown>) {
  const c = await ctx.h.consumer(name);
  await subscribe(c, name, 'fleet', 'job', { ack: true, ...opts });
  return c;
}

describe('reliable delivery (§10)', () => {
  it('delivers an ACK subscription without durable reliably instead of crashing (Note 7-A)', async () => {
    const c = await liveAckConsumer('w1', {});
    const p = await ctx.h.producer('fleet');
    const got = waitFor<DeliveryEnvelope>(c, JOB);
    produce(p, 'fleet', 'job', 'x');
    const env = await got;
    expect(env).toMatchObject({ event: 'job', message: 'x', from: 'fleet', delivery_attempt: 1 });
    expect(env.msgId).toMatch(/^msg-[0-9a-z]+-[0-9a-f]{12}$/);
    const reply = await c.timeout(2000).emitWithAck(ClientEvent.ACK, { msg_id: env.msgId });
    expect(reply).toEqual({ ok: true, msgId: env.msgId });
    expect(await ctx.h.broker.store.get(env.msgId!)).toBeNull();
  });

  it('retries an unACKed copy and stops at the ACK of the second delivery (§20 item 24)', async () => {
    const c = await liveAckConsumer('w1', {
      manualAck: true,
      ackTimeout: '100ms',
      retry: { max_attempts: 3, delay: '50ms' },
    });
    const p = await ctx.h.producer('fleet');
    const two = collect<DeliveryEnvelope>(c, JOB, 2);
    produce(p, 'fleet', 'job', 'retry-me');
    const [first, second] = await two;
    expect(second!.msgId).toBe(first!.msgId);
    expect([first!.delivery_attempt, second!.delivery_attempt]).toEqual([1, 2]);
    c.emit(ClientEvent.ACK, { msgId: second!.msgId });
    await expectNothing(c, JOB, 400);
  });

  it('dead-letters after max_attempts with the reference reason (§20 item 25)', async () => {
    const c = await liveAckConsumer('w1', {
      manualAck: true,
      ackTimeout: '80ms',
      retry: { max_attempts: 2, delay: '40ms' },
    });
    const p = await ctx.h.producer('fleet');
    const two = collect<DeliveryEnvelope>(c, JOB, 2);
    produce(p, 'fleet', 'job', 'doomed');
    await two;
    await expectNothing(c, JOB, 300);
    const dlq = await ctx.h.broker.store.listDlq('default');
    expect(dlq).toHaveLength(1);
    expect(dlq[0]!.message.message).toBe('doomed');
    expect(dlq[0]!.reason).toBe('ack timeout after 2 attempt(s)');
    expect(dlq[0]!.event).toBe('fleet-job');
    // Replay from the DLQ re-queues it for the same consumer and delivers it at once (§10.5).
    const again = waitFor<DeliveryEnvelope>(c, JOB);
    // Re-queued under a new id, which the redelivery carries (and the ACK below uses).
    const requeued = await ctx.h.broker.replayDlq(dlq[0]!.id, 'default');
    expect(requeued?.id).not.toBe(dlq[0]!.id);
    const redelivered = await again;
    expect(redelivered).toMatchObject({
      message: 'doomed',
      msgId: requeued!.id,
      delivery_attempt: 1,
    });
    expect(await ctx.h.broker.store.listDlq('default')).toEqual([]);
    const acked = await c.timeout(2000).emitWithAck(ClientEvent.ACK, { msgId: redelivered.msgId });
    expect(acked).toEqual({ ok: true, msgId: redelivered.msgId });
    expect(ctx.h.broker.status().delivered).toBe(3);
  });

  it('follows the §10.3 schedule: 0/300/700/1300 ms, DLQ near 1500 ms (T=200, d=100, exponential)', async () => {
    const c = await liveAckConsumer('w1', {
      manualAck: true,
      ackTimeout: '200ms',
      retry: { max_attempts: 4, delay: '100ms', backoff: 'exponential' },
    });
    const p = await ctx.h.producer('fleet');
    const times: number[] = [];
    c.on(JOB, () => times.push(Date.now()));
    const t0 = Date.now();
    produce(p, 'fleet', 'job', 'timed');
    await waitUntil(() => times.length === 4, '4 deliveries', 5000);
    let dlqAt = -1;
    while (dlqAt < 0 && Date.now() - t0 < 5000) {
      if ((await ctx.h.broker.store.listDlq('default')).length === 1) dlqAt = Date.now() - t0;
      else await delay(10);
    }
    const at = times.map((t) => t - t0);
    const windows: Array<[number, number]> = [
      [0, 150],
      [250, 550],
      [600, 1000],
      [1150, 1700],
    ];
    at.forEach((ms, i) => {
      expect(ms, `delivery ${i + 1} at ${ms} ms`).toBeGreaterThanOrEqual(windows[i]![0]);
      expect(ms, `delivery ${i + 1} at ${ms} ms`).toBeLessThanOrEqual(windows[i]![1]);
    });
    expect(dlqAt).toBeGreaterThanOrEqual(1400);
    expect(dlqAt).toBeLessThanOrEqual(2300);
  });

  it('answers bad, unknown and foreign ACKs with the §3.6 codes', async () => {
    const c = await liveAckConsumer('w1', {});
    const other = await ctx.h.consumer('w2');
    const p = await ctx.h.producer('fleet');
    const got = waitFor<DeliveryEnvelope>(c, JOB);
    produce(p, 'fleet', 'job', 'mine');
    const env = await got;
    const ask = (s: typeof c, payload: unknown) =>
      s.timeout(2000).emitWithAck(ClientEvent.ACK, payload) as Promise<AckReply>;
    expect(await ask(c, '{not json')).toEqual({
      ok: false,
      code: 400,
      message: 'Invalid ACK JSON',
    });
    expect(await ask(c, {})).toEqual({ ok: false, code: 400, message: 'ACK requires msgId' });
    expect(await ask(c, { msgId: 'msg-nope-000000000000' })).toEqual({
      ok: false,
      code: 404,
      message: 'Pending ACK not found',
    });
    expect(await ask(other, { msgId: env.msgId })).toEqual({
      ok: false,
      code: 403,
      message: 'ACK does not belong to this socket',
    });
    const failEvent = waitFor(c, ServerEvent.ACK_FAIL);
    c.emit(ClientEvent.ACK, { id: 'msg-nope-000000000000' });
    expect(await failEvent).toMatchObject({ code: 404 });
    expect(await ask(c, JSON.stringify({ msgId: env.msgId }))).toEqual({
      ok: true,
      msgId: env.msgId,
    });
  });

  it('accepts the ACK of a copy still stored for this consumer after a reconnect (Note 10.4-A)', async () => {
    const c = await liveAckConsumer('w1', { durable: true });
    const p = await ctx.h.producer('fleet');
    const got = waitFor<DeliveryEnvelope>(c, JOB);
    produce(p, 'fleet', 'job', 'processed');
    const env = await got;
    await ctx.h.disconnect(c);
    const back = await ctx.h.consumer('w1');
    const reply = await back.timeout(2000).emitWithAck(ClientEvent.ACK, { msgId: env.msgId });
    expect(reply).toEqual({ ok: true, msgId: env.msgId });
    const none = expectNothing(back, JOB);
    await subscribe(back, 'w1', 'fleet', 'job', { durable: true, ack: true });
    await none;
  });

  it('moves an unACKed group copy to another live member when its member leaves (§12)', async () => {
    const a = await ctx.h.consumer('a');
    const b = await ctx.h.consumer('b');
    await subscribe(a, 'a', 'fleet', 'job', { ack: true, group: 'g' });
    await subscribe(b, 'b', 'fleet', 'job', { ack: true, group: 'g' });
    const p = await ctx.h.producer('fleet');
    const toA = waitFor<DeliveryEnvelope>(a, JOB);
    const toB = collect<DeliveryEnvelope>(b, JOB, 2);
    produce(p, 'fleet', 'job', 1);
    produce(p, 'fleet', 'job', 2);
    await sync(p);
    const first = await toA;
    a.disconnect();
    const atB = await toB;
    expect(atB.map((e) => e.message).sort()).toEqual([1, 2]);
    expect(atB.find((e) => e.message === first.message)!.msgId).toBe(first.msgId);
  });
});
