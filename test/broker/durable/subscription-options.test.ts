/**
 * Durable identity and the one subscription schema (issue 8 items 3–5): a durable queue is
 * never keyed by a socket id; out-of-range options are refused with `ERROR` code -1; whatever
 * `SUBSCRIBE` accepted is restored after a restart; every delay reaching a timer is bounded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS } from '../../../shared/duration';
import {
  ClientEvent,
  ProtocolErrorCode,
  ServerEvent,
  type DeliveryEnvelope,
} from '../../../shared/protocol-events';
import { retryDelayMs } from '../../../broker/delivery/ack-tracker';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  sync,
  type Harness,
} from '../../helpers/broker-harness';
import { waitFor } from '../../helpers/wait';

const JOB = exactConsumeEvent('fleet', 'job');
const open: Harness[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function broker(settings: Record<string, unknown> = {}): Promise<Harness> {
  const h = await startBroker(settings);
  open.push(h);
  return h;
}

describe('durable identity (issue 8.3)', () => {
  it('keys a durable queue by the consumer name when no id is given, so it replays after a reconnect', async () => {
    const h = await broker();
    const sub = { event: 'job', producer: 'fleet', consumer: 'nameless', durable: true };
    const c = await h.connect();
    c.emit(ClientEvent.CONSUMER, { name: 'nameless' });
    c.emit(ClientEvent.SUBSCRIBE, sub);
    await sync(c);
    await h.disconnect(c);
    const p = await h.producer('fleet');
    produce(p, 'fleet', 'job', 'kept');
    await sync(p);
    const again = await h.connect();
    const got = waitFor<DeliveryEnvelope>(again, JOB);
    again.emit(ClientEvent.CONSUMER, { name: 'nameless' });
    again.emit(ClientEvent.SUBSCRIBE, sub);
    expect((await got).message).toBe('kept');
    expect(await h.broker.store.dequeue('default', 'fleet-job', 'nameless')).toEqual([]);
  });

  it('uses the registered id when one was given', async () => {
    const h = await broker();
    const c = await h.connect();
    c.emit(ClientEvent.CONSUMER, { name: 'w', id: 'worker-7' });
    c.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'fleet',
      consumer: 'w',
      durable: true,
    });
    await sync(c);
    await h.disconnect(c);
    const p = await h.producer('fleet');
    produce(p, 'fleet', 'job', 'by-id');
    await sync(p);
    expect(await h.broker.store.dequeue('default', 'fleet-job', 'worker-7')).toHaveLength(1);
  });
});

describe('one schema for SUBSCRIBE and restart (issue 8.4, 8.5)', () => {
  const refused: Array<[string, Record<string, unknown>]> = [
    ['ack_timeout 0', { ack_timeout: 0 }],
    ['ack_timeout 1e306 s', { ack_timeout: 1e306 }],
    ['ack_timeout past the timer limit (3,000,000 s)', { ack_timeout: 3_000_000 }],
    ['retry.max_attempts 1e16', { retry: { max_attempts: 1e16 } }],
    ['retry.delay past the timer limit', { retry: { delay: 2_147_484 } }],
  ];
  it.each(refused)('refuses %s with ERROR -1 and registers nothing', async (_label, options) => {
    const h = await broker();
    const c = await h.consumer('w1');
    const error = waitFor<{ code: number; message: string }>(c, ServerEvent.ERROR);
    c.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'fleet',
      consumer: 'w1',
      durable: true,
      ack: true,
      ...options,
    });
    const e = await error;
    expect(e.code).toBe(ProtocolErrorCode.BAD_FIELD);
    expect(e.message).toMatch(
      /^Invalid SUBSCRIBE: (ack_timeout|retry\.max_attempts|retry\.delay) must be/,
    );
    await sync(c);
    expect(h.stats().subscriptions).toBe(0);
  });

  it('restores after a restart every durable subscription SUBSCRIBE accepted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-subs-'));
    dirs.push(dir);
    const settings = { storage: 'sqlite', storage_options: { filename: join(dir, 's.sqlite') } };
    const h1 = await startBroker(settings);
    const c = await h1.consumer('w1');
    const accepted: Array<Record<string, unknown>> = [
      { ack_timeout: '0.5ms' },
      { ack_timeout: MAX_TIMER_DELAY_MS / 1000 },
      { retry: { max_attempts: 1_000_000, delay: 0.001, backoff: 'exponential' } },
      { retry: { max_attempts: 0 } }, // falsy: the default of 3 (§10.3)
    ];
    const errors: unknown[] = [];
    c.on(ServerEvent.ERROR, (e: unknown) => errors.push(e));
    accepted.forEach((options, i) =>
      c.emit(ClientEvent.SUBSCRIBE, {
        event: `job${i}`,
        producer: 'fleet',
        consumer: 'w1',
        durable: true,
        ack: true,
        ...options,
      }),
    );
    await sync(c);
    expect(errors).toEqual([]);
    expect(h1.stats().subscriptions).toBe(4);
    await h1.close();
    const h2 = await broker(settings);
    expect(h2.stats().subscriptions).toBe(4);
  });
});

describe('timer bounds (issue 8.5)', () => {
  it('bounds every retry delay, even a long exponential backoff', () => {
    const policy = { maxAttempts: 100, delayMs: 1_000, backoff: 'exponential' as const };
    expect(retryDelayMs(policy, 1)).toBe(1_000);
    expect(retryDelayMs(policy, 40)).toBe(MAX_TIMER_DELAY_MS);
    expect(retryDelayMs({ ...policy, delayMs: MAX_TIMER_DELAY_MS }, 2)).toBe(MAX_TIMER_DELAY_MS);
  });
});
