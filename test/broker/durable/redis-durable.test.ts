/**
 * Durable delivery through brokers on Redis storage (`spec/protocol-core.md` §9, §16.3): a copy
 * stored by one broker is redelivered by a new broker on the same Redis (a restart, or another
 * node); a Redis outage leaves live delivery working; an unreachable Redis at start-up stops
 * `listen()` unless a fallback is configured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBroker } from '../../../broker/index';
import type { DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  sync,
  type Harness,
} from '../../helpers/broker-harness';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { delay, expectNothing, waitFor, waitUntil } from '../../helpers/wait';

const JOB = exactConsumeEvent('fleet', 'job');
let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server.stop();
});
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

let n = 0;
function redisSettings(url = server.url, prefix = `e2e-${n++}`) {
  return { storage: 'redis', storage_options: { url, prefix } };
}

/** Polls until the store holds `n` copies in the default realm (writes are asynchronous). */
async function queued(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await h.broker.store.countQueued('default')) === n) return;
    await delay(20);
  }
  expect(await h.broker.store.countQueued('default')).toBe(n);
}

async function broker(settings: Record<string, unknown>): Promise<Harness> {
  const h = await startBroker(settings);
  open.push(h);
  return h;
}

describe('durable delivery on Redis storage', () => {
  it('a new broker on the same Redis redelivers a copy stored by a closed one (restart)', async () => {
    const settings = redisSettings();
    const a = await broker(settings);
    expect(a.broker.store.backend).toBe('redis');
    const c = await a.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
    await a.disconnect(c);
    const p = await a.producer('fleet');
    produce(p, 'fleet', 'job', 'while offline');
    await sync(p);
    await queued(a, 1);
    await a.close();
    open.splice(open.indexOf(a), 1);

    const b = await broker(settings);
    // The durable subscription came back from Redis: new copies are stored for w1 too.
    const p2 = await b.producer('fleet');
    produce(p2, 'fleet', 'job', 'after restart');
    await b.settle(p2);
    const again = await b.consumer('w1');
    const got: DeliveryEnvelope[] = [];
    again.on(JOB, (e: DeliveryEnvelope) => got.push(e));
    await subscribe(again, 'w1', 'fleet', 'job', { durable: true });
    await waitUntil(() => got.length >= 2, 'two replayed copies');
    expect(got.map((e) => e.message)).toEqual(['while offline', 'after restart']);
    expect(await b.broker.store.dequeue('default', 'fleet-job', 'w1')).toEqual([]);
  });

  it('another node on the same Redis redelivers a copy stored by a running one', async () => {
    const settings = redisSettings();
    const a = await broker(settings);
    const b = await broker(settings);
    const c = await a.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', { durable: true, manualAck: true, ackTimeout: '30s' });
    await a.disconnect(c);
    const p = await a.producer('fleet');
    produce(p, 'fleet', 'job', 'stored on a');
    await a.settle(p);
    const onB = await b.consumer('w1');
    const first = waitFor<DeliveryEnvelope>(onB, JOB);
    await subscribe(onB, 'w1', 'fleet', 'job', {
      durable: true,
      manualAck: true,
      ackTimeout: '30s',
    });
    const env = await first;
    expect(env).toMatchObject({ message: 'stored on a', delivery_attempt: 1 });
    expect((await a.broker.store.get(env.msgId!))?.id).toBe(env.msgId);
  });

  it('keeps serving live delivery while Redis is down; durable writes fail without a crash', async () => {
    const own = await startRedisServer();
    const h = await broker(redisSettings(own.url));
    const live = await h.consumer('live');
    await subscribe(live, 'live', 'fleet', 'job');
    const durable = await h.consumer('w1');
    await subscribe(durable, 'w1', 'fleet', 'job', { durable: true });
    await h.disconnect(durable);
    await own.stop();
    await delay(100);
    const p = await h.producer('fleet');
    const got = waitFor<DeliveryEnvelope>(live, JOB);
    produce(p, 'fleet', 'job', 'during outage');
    expect((await got).message).toBe('during outage');
    await expect(h.broker.store.countQueued('default')).rejects.toThrow(/Redis store unavailable/);
    expect(h.broker.status().listening).toBe(true);
    // Still serving: a fresh consumer gets the next message.
    const late = await h.consumer('late');
    await subscribe(late, 'late', 'fleet', 'job');
    const next = waitFor<DeliveryEnvelope>(late, JOB);
    produce(p, 'fleet', 'job', 'still up');
    expect((await next).message).toBe('still up');
    await expectNothing(durable, JOB, 50);
  });
});

describe('broker start-up with an unreachable Redis', () => {
  const logger = pino({ level: 'silent' });
  async function closedUrl(): Promise<string> {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });
    return `redis://:hunter2-pw@127.0.0.1:${port}`;
  }

  it('refuses to listen without a fallback, naming the URL', async () => {
    const url = await closedUrl();
    const b = await createBroker(
      { storage: 'redis', storage_options: { url, probe_timeout: 1_000 } },
      { logger },
    );
    try {
      const refused = b.listen(0, '127.0.0.1');
      await expect(refused).rejects.toThrow(
        /Redis store unreachable at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/,
      );
      await expect(refused).rejects.not.toThrow(/hunter2/);
      expect(b.status().listening).toBe(false);
    } finally {
      await b.close();
    }
  });

  it('starts on the SQLite fallback when configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-redis-fallback-'));
    try {
      const h = await broker({
        storage: 'redis',
        storage_options: {
          url: await closedUrl(),
          fallback: 'sqlite',
          fallback_filename: join(dir, 'fallback.sqlite'),
          probe_timeout: 1_000,
        },
      });
      expect(h.broker.store.backend).toBe('sqlite');
      const c = await h.consumer('w1');
      await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
      await h.disconnect(c);
      const p = await h.producer('fleet');
      produce(p, 'fleet', 'job', 'kept');
      await sync(p);
      await queued(h, 1);
      await h.close();
      open.splice(open.indexOf(h), 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
