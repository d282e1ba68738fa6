/**
 * A store outage or a full disk fails every durable write: the broker logs it at most once a
 * second per realm, with the number of failures it did not log, instead of one error line per
 * copy (issue 21, found with the free-space reserve). Every copy still reaches the live consumer
 * plain.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type Harness,
} from '../../helpers/broker-harness';
import { collect } from '../../helpers/wait';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

it('logs failed durable writes at most once a second per realm, and delivers every copy', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const h = await startBroker({}, { logger: pino({ level: 'error' }, sink) });
  open.push(h);
  const c = await h.consumer('w1');
  await subscribe(c, 'w1', 'fleet', 'job', { durable: true, ack: true });
  const p = await h.producer('fleet');
  h.broker.store.enqueue = () => Promise.reject(new Error('disk full'));
  const n = 40;
  const got = collect<{ message: number }>(c, exactConsumeEvent('fleet', 'job'), n);
  for (let i = 1; i <= n; i++) produce(p, 'fleet', 'job', i);
  expect((await got).map((e) => e.message)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  const logged = lines.filter((l) => l.msg === 'durable copy not stored');
  // One line per second at most (a slow machine may straddle a second or two), not one per copy.
  expect(logged.length).toBeGreaterThanOrEqual(1);
  expect(logged.length).toBeLessThanOrEqual(3);
  expect(logged[0]).toMatchObject({ realm: 'default', consumer: 'w1', suppressed: 0 });
});
