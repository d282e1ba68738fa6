/**
 * Publish order of fallback deliveries (issue 21 item 6, docs/delivery-guarantees.md): when a
 * durable copy's store write fails, the copy goes plain (without `msgId`) to the live consumer —
 * and per durable subscription it goes out only after every earlier copy for that queue was
 * delivered (stored, with `msgId`) or sent plain, however the write outcomes are ordered.
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EnqueueInput } from '../../../broker/storage/message-store';
import type { DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type BrokerOptions,
  type Harness,
} from '../../helpers/broker-harness';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { collect, waitUntil } from '../../helpers/wait';

const JOB = exactConsumeEvent('fleet', 'job');
const N = 12;

type Delivered = DeliveryEnvelope & { msgId?: string };

/** One held write: settle it as the original store would, or fail it. */
interface Pending {
  n: number;
  settle(ok: boolean): void;
}

/**
 * Replaces the broker's `store.enqueue` with one whose writes wait until the test settles
 * them: `ok` writes go to the real store, the others fail as a store outage does.
 */
function holdWrites(h: Harness): Pending[] {
  const store = h.broker.store;
  const real = store.enqueue.bind(store);
  const pending: Pending[] = [];
  store.enqueue = (realm: string, event: string, input: EnqueueInput) =>
    new Promise<string>((resolve, reject) => {
      const n = (input.payload as { message: number }).message;
      pending.push({
        n,
        settle: (ok) => {
          if (ok) real(realm, event, input).then(resolve, reject);
          else reject(new Error('store unavailable'));
        },
      });
    });
  return pending;
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function setup(settings: Record<string, unknown> = {}, options: BrokerOptions = {}) {
  const h = await startBroker(settings, options);
  open.push(h);
  const c = await h.consumer('w1');
  await subscribe(c, 'w1', 'fleet', 'job', { durable: true, ack: true });
  const p = await h.producer('fleet');
  return { h, c, p };
}

describe('fallback deliveries keep publish order per durable subscription', () => {
  it('sends failed copies plain, in publish order, when later writes fail first', async () => {
    const { h, c, p } = await setup();
    const pending = holdWrites(h);
    const got = collect<Delivered>(c, JOB, N);
    for (let i = 1; i <= N; i++) produce(p, 'fleet', 'job', i);
    await waitUntil(() => pending.length === N, `${N} writes in flight`);
    // The newest write fails first, the oldest last (fast failures overtaking slow ones).
    for (const w of [...pending].reverse()) w.settle(false);
    const envelopes = await got;
    expect(envelopes.map((e) => e.message)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    for (const e of envelopes) expect(e.msgId).toBeUndefined();
  });

  it('interleaves stored and fallback copies in publish order, each marked as such', async () => {
    const { h, c, p } = await setup();
    const pending = holdWrites(h);
    const got = collect<Delivered>(c, JOB, N);
    for (let i = 1; i <= N; i++) produce(p, 'fleet', 'job', i);
    await waitUntil(() => pending.length === N, `${N} writes in flight`);
    // Even messages are stored, odd ones fail; outcomes arrive newest first.
    for (const w of [...pending].reverse()) w.settle(w.n % 2 === 0);
    const envelopes = await got;
    expect(envelopes.map((e) => e.message)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    for (const e of envelopes) {
      if ((e.message as number) % 2 === 0) expect(e.msgId).toMatch(/^msg-/);
      else expect(e.msgId).toBeUndefined();
    }
  });
});

describe('fallback order on Redis storage when Redis goes away mid-stream', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('delivers every copy in publish order when in-flight writes fail after newer ones', async () => {
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    const { h, c, p } = await setup(
      { storage: 'redis', storage_options: { url: server.url, prefix: 'fallback-order' } },
      { logger },
    );
    const store = h.broker.store;
    const real = store.enqueue.bind(store);
    let writes = 0;
    store.enqueue = (realm: string, event: string, input: EnqueueInput) => {
      writes++;
      return real(realm, event, input);
    };
    const got: Delivered[] = [];
    c.on(JOB, (e: Delivered) => got.push(e));
    const batch = 40;
    let next = 1;
    const send = () => {
      for (let i = 0; i < batch; i++) produce(p, 'fleet', 'job', next++);
    };
    // Redis up: stored, delivered with msgId.
    send();
    await waitUntil(() => got.length === batch, 'the stored batch');
    // Redis paused: these writes are sent and wait for replies that never come …
    server.signal('SIGSTOP');
    send();
    await waitUntil(() => writes === 2 * batch, 'the second batch in flight');
    // … until it dies: they fail only after a reconnect attempt, while writes made once the
    // connection is known lost fail at once.
    await server.kill();
    await waitUntil(
      () => logged.some((l) => l.includes('Redis store connection lost')),
      'the broker sees the outage',
    );
    send();
    await waitUntil(() => got.length === 3 * batch, `${3 * batch} deliveries`, 15_000);
    expect(got.map((e) => e.message)).toEqual(Array.from({ length: 3 * batch }, (_, i) => i + 1));
    for (const e of got.slice(0, batch)) expect(e.msgId).toMatch(/^msg-/);
    for (const e of got.slice(batch)) expect(e.msgId).toBeUndefined();
    await server.restart();
  });
});
