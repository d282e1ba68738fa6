/**
 * The delivery envelope (spec §8, §3.5) and ordering (Note 7-C, ARCHITECTURE §4 "in order per
 * producer→consumer connection"; reference test §20 item 41).
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, Protocol } from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  subscribe,
  useBroker,
  type Socket,
} from '../helpers/broker-harness';
import { collect, waitFor } from '../helpers/wait';

const ctx = useBroker();

async function pair(): Promise<{ producer: Socket; consumer: Socket }> {
  const producer = await ctx.h.producer('fleet');
  const consumer = await ctx.h.consumer('worker');
  await subscribe(consumer, 'worker', 'fleet', 'job');
  return { producer, consumer };
}

describe('envelope fields (§8)', () => {
  it('is exactly {event, message, from} for a plain live delivery: no msgId, msg_id or delivery_attempt', async () => {
    const { producer, consumer } = await pair();
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'Job', { cmd: 'restart' });
    expect(await got).toEqual({ event: 'Job', message: { cmd: 'restart' }, from: 'fleet' });
  });

  it('renames contentType to content_type (§3.5, §8)', async () => {
    const { producer, consumer } = await pair();
    const got = waitFor<Record<string, unknown>>(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', '<b>hi</b>', { contentType: 'text/html' });
    const env = await got;
    expect(env).toEqual({
      event: 'job',
      message: '<b>hi</b>',
      from: 'fleet',
      content_type: 'text/html',
    });
    expect(env).not.toHaveProperty('contentType');
  });

  it('copies enc unchanged (§8)', async () => {
    const { producer, consumer } = await pair();
    const enc = {
      v: 1,
      alg: 'x25519-aes256gcm',
      kid: 'k-1',
      epk: 'AAEC',
      iv: 'BAUG',
      nested: { a: [1, 2] },
    };
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'ciphertext', { enc });
    expect(await got).toEqual({ event: 'job', message: 'ciphertext', from: 'fleet', enc });
  });

  it('copies `to` unchanged and does not route by it (§3.5: "No routing effect")', async () => {
    const { producer, consumer } = await pair();
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 1, { to: 'somebody-else' });
    expect(await got).toEqual({ event: 'job', message: 1, from: 'fleet', to: 'somebody-else' });
  });

  it('carries every optional field together', async () => {
    const { producer, consumer } = await pair();
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', [1], {
      enc: { kid: 'k' },
      to: 't',
      contentType: 'application/json',
    });
    expect(await got).toEqual({
      event: 'job',
      message: [1],
      from: 'fleet',
      enc: { kid: 'k' },
      to: 't',
      content_type: 'application/json',
    });
  });

  it('defaults `from` when PRODUCE has none (§3.5 default ANONYMOUS; Note 7-B allows the registered name)', async () => {
    const producer = await ctx.h.producer('named');
    const consumer = await ctx.h.consumer('c');
    await subscribe(consumer, 'c', Protocol.ALL_PUBLISHERS, 'loose');
    const got = waitFor<Record<string, unknown>>(
      consumer,
      exactConsumeEvent(Protocol.ALL_PUBLISHERS, 'loose'),
    );
    producer.emit(ClientEvent.PRODUCE, { event: 'loose', message: 'm' });
    const env = await got;
    expect(env).toMatchObject({ event: 'loose', message: 'm' });
    expect([Protocol.ANONYMOUS, 'named']).toContain(env.from);
  });

  it('relays any JSON message value unchanged', async () => {
    const { producer, consumer } = await pair();
    const values: unknown[] = [
      null,
      false,
      0,
      -1.5e300,
      '',
      'ünïcödé ✓ 😀 \u0000 \u2028',
      [[], {}, [null]],
      { deep: { deeper: { deepest: ['x', 1, true] } }, 'key with spaces': 1, '': 'empty key' },
    ];
    const got = collect<{ message: unknown }>(
      consumer,
      exactConsumeEvent('fleet', 'job'),
      values.length,
    );
    for (const v of values) produce(producer, 'fleet', 'job', v);
    expect((await got).map((e) => e.message)).toEqual(values);
  });

  it('does not parse a message that is itself a JSON string (§20.41)', async () => {
    const { producer, consumer } = await pair();
    const inner = { symbol: 'ACME', bid: 1.25, ask: 1.5, tags: ['a', 'b'], quote: 'he said "hi"' };
    const text = JSON.stringify(inner);
    const got = waitFor<{ message: unknown }>(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', text);
    const env = await got;
    expect(env.message).toBe(text);
    expect(JSON.parse(env.message as string)).toEqual(inner);
  });

  it('ignores method:"unicast" as the Python client always sends it (§3.5)', async () => {
    const { producer, consumer } = await pair();
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 'py', { method: 'unicast' });
    expect(await got).toEqual({ event: 'job', message: 'py', from: 'fleet' });
  });
});

describe('ordering (Note 7-C)', () => {
  it('delivers 1,000 messages in the order produced, each with the §8 envelope', async () => {
    const { producer, consumer } = await pair();
    const n = 1_000;
    const got = collect<unknown>(consumer, exactConsumeEvent('fleet', 'job'), n, 30_000);
    for (let i = 0; i < n; i++)
      produce(producer, 'fleet', 'Job', { seq: i, pad: 'x'.repeat(i % 50) });
    const envelopes = await got;
    expect(envelopes).toHaveLength(n);
    envelopes.forEach((env, i) => {
      expect(env).toEqual({
        event: 'Job',
        message: { seq: i, pad: 'x'.repeat(i % 50) },
        from: 'fleet',
      });
    });
  }, 60_000);
});
