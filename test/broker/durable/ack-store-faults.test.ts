/**
 * Store faults on the reliable-delivery path (issue 21 items 3, 4 and 9), on a real SQLite file:
 * a copy's state in memory never runs ahead of the store.
 *
 * - An ACK whose delete fails re-arms the copy: it is redelivered after its backoff and, when
 *   its attempts run out, dead-lettered, while the consumer stays connected (stock clients
 *   ignore `ACK_FAIL`).
 * - An attempt count the store could not record is kept in memory: the re-send is marked from
 *   it and `max_attempts` still dead-letters.
 * - An attempt still in the broker's write buffer when its consumer's connection closes never
 *   reached the consumer: it is not charged.
 *
 * Faults are injected by making the broker's own store instance fail one kind of call, as a
 * full disk or an I/O error would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClientEvent, type DeliveryEnvelope } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  subscribe,
  useBroker,
  type Harness,
  type Socket,
} from '../../helpers/broker-harness';
import {
  consumerPayload,
  jsSubscribePayload,
  producePayload,
  type SubscribeOptions,
} from '../../helpers/stock-clients';
import { collect, delay, expectNothing, waitFor, waitUntil } from '../../helpers/wait';

const dir = mkdtempSync(join(tmpdir(), 'swb-ack-faults-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx = useBroker({
  storage: 'sqlite',
  get storage_options() {
    return { filename: join(dir, `s${++files}.sqlite`) };
  },
} as never);
const JOB = exactConsumeEvent('fleet', 'job');

function diskError(): Error {
  return Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
}

/** Polls an asynchronous `condition` every 10 ms (store reads) until it holds. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(10);
  }
}

/** Produces with a publisher confirm: resolves with the stored copies' ids. */
async function confirmed(p: Socket, message: unknown): Promise<string[]> {
  const reply = (await p
    .timeout(2_000)
    .emitWithAck(ClientEvent.PRODUCE, producePayload('job', message, { from: 'fleet' }))) as {
    ok: boolean;
    msgIds: string[];
  };
  expect(reply.ok).toBe(true);
  return reply.msgIds;
}

async function offline(h: Harness, online = 0): Promise<void> {
  await waitUntil(() => h.stats().consumers.online === online, `${online} consumers online`);
}

describe('an ACK whose delete fails (item 3)', () => {
  const opts: SubscribeOptions = {
    ack: true,
    manualAck: true,
    // Far longer than the test: a redelivery can only come from the re-armed copy.
    ackTimeout: '30s',
    retry: { max_attempts: 3, delay: '50ms' },
  };

  it('re-arms the copy: redelivered after its backoff, then dead-lettered, consumer connected', async () => {
    const { h } = ctx;
    const store = h.broker.store;
    store.ack = () => Promise.reject(diskError());
    const c = await h.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', opts);
    const got: DeliveryEnvelope[] = [];
    const fails: unknown[] = [];
    c.on('ACK_FAIL', (reply: unknown) => fails.push(reply));
    c.on(JOB, (env: DeliveryEnvelope) => {
      got.push(env);
      c.emit(ClientEvent.ACK, { msgId: env.msgId });
    });
    const p = await h.producer('fleet');
    const [id] = await confirmed(p, 'stranded?');
    await until(async () => (await store.listDlq('default')).length === 1, 'dead-lettered');
    expect(got.map((e) => [e.msgId, e.delivery_attempt])).toEqual([
      [id, 1],
      [id, 2],
      [id, 3],
    ]);
    expect(fails).toHaveLength(3);
    expect(c.connected).toBe(true);
    const [dead] = await store.listDlq('default');
    expect(dead!.reason).toBe('ack timeout after 3 attempt(s)');
    expect(await store.get(id!)).toBeNull();
  });

  it('commits the ACK of the redelivery once the store recovers', async () => {
    const { h } = ctx;
    const store = h.broker.store;
    const ack = store.ack.bind(store);
    let failures = 1;
    store.ack = (msgId) => (failures-- > 0 ? Promise.reject(diskError()) : ack(msgId));
    const c = await h.consumer('w1');
    await subscribe(c, 'w1', 'fleet', 'job', opts);
    const two = collect<DeliveryEnvelope>(c, JOB, 2);
    c.on(JOB, (env: DeliveryEnvelope) => c.emit(ClientEvent.ACK, { msgId: env.msgId }));
    const p = await h.producer('fleet');
    const [id] = await confirmed(p, 'once more');
    const [first, second] = await two;
    expect([first!.delivery_attempt, second!.delivery_attempt]).toEqual([1, 2]);
    await until(async () => (await store.get(id!)) === null, 'the ACK committed');
    await expectNothing(c, JOB, 200);
    expect(await store.listDlq('default')).toEqual([]);
  });
});

describe('an attempt count the store cannot record (item 4)', () => {
  it('marks the re-send from the in-memory count, and max_attempts dead-letters', async () => {
    const { h } = ctx;
    const store = h.broker.store;
    const opts: SubscribeOptions = {
      durable: true,
      ack: true,
      manualAck: true,
      ackTimeout: '30s',
      retry: { max_attempts: 2, delay: '50ms' },
    };
    // The durable subscription, then its consumer offline: the copy is stored with 0 attempts.
    const c0 = await h.consumer('w1');
    await subscribe(c0, 'w1', 'fleet', 'job', opts);
    c0.disconnect();
    await offline(h);
    const p = await h.producer('fleet');
    const [id] = await confirmed(p, 'counted');
    store.setAttempts = () => Promise.reject(diskError());

    const c1 = await h.consumer('w1');
    const first = waitFor<DeliveryEnvelope>(c1, JOB);
    await subscribe(c1, 'w1', 'fleet', 'job', opts);
    expect((await first).delivery_attempt).toBe(1);
    c1.disconnect();
    await offline(h);

    const c2 = await h.consumer('w1');
    const second = waitFor<DeliveryEnvelope>(c2, JOB);
    await subscribe(c2, 'w1', 'fleet', 'job', opts);
    expect(await second).toMatchObject({ msgId: id, delivery_attempt: 2 });
    c2.disconnect();
    await offline(h);

    const c3 = await h.consumer('w1');
    await subscribe(c3, 'w1', 'fleet', 'job', opts);
    await until(async () => (await store.listDlq('default')).length === 1, 'dead-lettered');
    expect((await store.listDlq('default'))[0]!.reason).toBe('ack timeout after 2 attempt(s)');
    await expectNothing(c3, JOB, 100);
  });
});

/**
 * A raw Engine.IO v4 long-polling consumer whose GETs the test issues itself: with no GET
 * pending, everything the broker emits to it stays in the broker's write buffer.
 */
async function pollingConsumer(h: Harness, name: string, opts: SubscribeOptions) {
  const base = `${h.url}/socket.io/?EIO=4&transport=polling`;
  const open = await (await fetch(base)).text();
  const { sid } = JSON.parse(open.slice(1)) as { sid: string };
  const url = `${base}&sid=${sid}`;
  const post = async (body: string): Promise<void> => {
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(await res.text()).toBe('ok');
  };
  await post('40');
  expect(await (await fetch(url)).text()).toMatch(/^40\{/);
  const event = (args: unknown[]): string => `42${JSON.stringify(args)}`;
  await post(
    [
      event([ClientEvent.CONSUMER, consumerPayload(name)]),
      event([ClientEvent.SUBSCRIBE, jsSubscribePayload(name, 'fleet', 'job', opts)]),
    ].join('\x1e'),
  );
  // Closes the connection (Engine.IO `close` packet) without reading what was emitted.
  return { close: () => post('1') };
}

describe('copies in flight at a disconnect (item 9)', () => {
  it('are not charged an attempt: with max_attempts 1 they are redelivered, not dead-lettered', async () => {
    const { h } = ctx;
    const store = h.broker.store;
    const opts: SubscribeOptions = {
      durable: true,
      ack: true,
      manualAck: true,
      retry: { max_attempts: 1, delay: '50ms' },
    };
    const c0 = await h.consumer('w1');
    await subscribe(c0, 'w1', 'fleet', 'job', opts);
    c0.disconnect();
    await offline(h);
    const p = await h.producer('fleet');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(...(await confirmed(p, i)));

    // The replay writes all 20 to a connection that reads none of them, which then closes.
    const polling = await pollingConsumer(h, 'w1', opts);
    await until(
      async () =>
        (await Promise.all(ids.map((id) => store.get(id)))).every((e) => e?.attempts === 1),
      'the replay sent every copy',
    );
    await polling.close();
    await offline(h);

    const c1 = await h.consumer('w1');
    const all = collect<DeliveryEnvelope>(c1, JOB, ids.length);
    await subscribe(c1, 'w1', 'fleet', 'job', opts);
    const got = await all;
    expect(got.map((e) => e.msgId)).toEqual(ids);
    // Never seen by a consumer: still the first attempt.
    expect(got.every((e) => e.delivery_attempt === 1)).toBe(true);
    expect(await store.listDlq('default')).toEqual([]);
  });
});
