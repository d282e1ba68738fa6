/**
 * One owner per durable consumer in a cluster (issue 21; docs/cluster.md "A consumer that moves
 * between nodes", broker/cluster/consumer-ownership.ts). Real redis-server, in-process nodes.
 *
 * - Shared Redis store: a node that restarts does not adopt its peer's offline durable
 *   consumer (its rows name their owner), so each message is stored once and replayed once.
 * - Handover: a durable consumer that subscribes on another node is dropped by the node it
 *   left (registration gone, store rows kept); what is produced afterwards, on either node,
 *   is stored once and delivered once. With per-node stores the old node's rows are marked as
 *   the new owner's and its copies stay where they are.
 * - A consumer live on both nodes is kept on both.
 * - A node that was down when its consumer moved gives it up when it starts again (the owners
 *   record in Redis), before it stores anything for it.
 */
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownerField } from '../../broker/cluster/consumer-ownership';
import { ClientEvent } from '../../shared/protocol-events';
import { makeTempDir } from '../support/temp-dir';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type BrokerSettings,
  type Harness,
  type Socket,
} from '../helpers/broker-harness';
import { clusterBlock, freshPrefix, seesNodes } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { expectNothing, waitUntil, waitUntilAsync } from '../helpers/wait';

const JOB = exactConsumeEvent('fleet', 'job');

let redis: RedisServer;
const opened: { close(): Promise<void> | void }[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});
afterAll(async () => {
  await redis.stop();
});

type Storage = 'redis' | 'memory';

/** Node `id`'s settings: the cluster under `prefix`, the shared Redis store under `storePrefix`. */
function nodeSettings(id: string, prefix: string, storage: Storage, storePrefix: string) {
  const store =
    storage === 'redis'
      ? { storage: 'redis', storage_options: { url: redis.url, prefix: storePrefix } }
      : { storage: 'memory' };
  return { ...store, cluster: clusterBlock(redis.url, prefix, id) } as BrokerSettings;
}

interface Pair {
  a: Harness;
  b: Harness;
  prefix: string;
  storePrefix: string;
  restartB(): Promise<Harness>;
}

async function pair(storage: Storage): Promise<Pair> {
  const prefix = freshPrefix();
  const storePrefix = `${freshPrefix()}-store`;
  const start = async (id: string): Promise<Harness> => {
    const h = await startBroker(nodeSettings(id, prefix, storage, storePrefix));
    opened.push(h);
    return h;
  };
  const result: Pair = {
    a: await start('node-a'),
    b: await start('node-b'),
    prefix,
    storePrefix,
    async restartB() {
      await result.b.close();
      result.b = await start('node-b');
      await waitUntil(() => seesNodes(result.a, 2) && seesNodes(result.b, 2), 'both see two');
      return result.b;
    },
  };
  await waitUntil(() => seesNodes(result.a, 2) && seesNodes(result.b, 2), 'both see two');
  return result;
}

/** A consumer socket of `x` (consumer id `x-1`) on `h`, recording the `fleet/job` payloads. */
async function consumerX(h: Harness): Promise<{ socket: Socket; got: unknown[] }> {
  const socket = await h.consumer('x', { consumerId: 'x-1' });
  const got: unknown[] = [];
  socket.on(JOB, (m: { message: unknown }) => got.push(m.message));
  return { socket, got };
}

/** Goes offline: closes the socket and waits until `h` has x offline. */
async function leave(h: Harness, socket: Socket): Promise<void> {
  socket.close();
  await waitUntil(() => h.stats().consumers.online === 0, 'x offline');
}

/** The default realm's consumer names on `h` (its own registry: x is the only consumer). */
function consumersOn(h: Harness): string[] {
  return h.stats().consumers.total > 0 ? ['x'] : [];
}

/**
 * Produces probes on `from` until `stored()` reaches one more than before: the peers have read
 * `from`'s node's interest. Returns the probes sent (they are stored and replayed too).
 */
async function probeUntilStored(
  from: Socket,
  stored: () => Promise<number>,
  tag: string,
): Promise<string[]> {
  const before = await stored();
  const probes: string[] = [];
  await waitUntilAsync(async () => {
    const probe = `${tag}-probe-${probes.length}`;
    probes.push(probe);
    produce(from, 'fleet', 'job', probe);
    return (await stored()) > before;
  }, `${tag}: a probe is stored`);
  await waitUntilAsync(async () => (await stored()) === before + probes.length, `${tag} probes`);
  return probes;
}

/** Every payload once, nothing twice (order aside: relayed and local messages interleave). */
function expectEachOnce(got: unknown[], expected: unknown[]): void {
  expect(new Set(got).size).toBe(got.length);
  expect([...got].sort()).toEqual([...expected].sort());
}

describe('a shared Redis store', () => {
  it('a restarted node does not adopt its peer’s offline durable consumer', async () => {
    const p = await pair('redis');
    const first = await consumerX(p.a);
    await subscribe(first.socket, 'x', 'fleet', 'job', { durable: true });
    await leave(p.a, first.socket);

    const b = await p.restartB();
    // B loaded every row of the shared store and kept only its own: x is A's.
    expect(consumersOn(b)).not.toContain('x');
    expect(consumersOn(p.a)).toContain('x');

    const stored = () => p.a.broker.store.countQueued('default');
    const onB = await b.producer('fleet');
    const onA = await p.a.producer('fleet');
    const probes = await probeUntilStored(onB, stored, 'b');
    const sent = [...probes];
    for (let n = 0; n < 20; n++) {
      produce(onB, 'fleet', 'job', `b-${n}`);
      produce(onA, 'fleet', 'job', `a-${n}`);
      sent.push(`b-${n}`, `a-${n}`);
    }
    await waitUntilAsync(async () => (await stored()) === sent.length, 'one copy each');
    expect(consumersOn(b)).not.toContain('x');

    const back = await consumerX(p.a);
    await subscribe(back.socket, 'x', 'fleet', 'job', { durable: true });
    await waitUntil(() => back.got.length >= sent.length, 'x gets the backlog');
    await expectNothing(back.socket, JOB);
    expectEachOnce(back.got, sent);
  });

  it('hands a durable consumer over to the node it subscribes on', async () => {
    const p = await pair('redis');
    const first = await consumerX(p.a);
    await subscribe(first.socket, 'x', 'fleet', 'job', { durable: true });
    await leave(p.a, first.socket);

    const moved = await consumerX(p.b);
    await subscribe(moved.socket, 'x', 'fleet', 'job', { durable: true });
    // A dropped its registration; the shared row is B's.
    await waitUntil(() => !consumersOn(p.a).includes('x'), 'A drops x');
    const rows = await p.a.broker.store.loadSubscriptions();
    expect(rows.map((r) => [r.consumer, r.record.owner])).toEqual([['x', 'node-b']]);
    await leave(p.b, moved.socket);

    const stored = () => p.b.broker.store.countQueued('default');
    const onA = await p.a.producer('fleet');
    const onB = await p.b.producer('fleet');
    const sent = await probeUntilStored(onA, stored, 'a');
    for (let n = 0; n < 20; n++) {
      produce(onA, 'fleet', 'job', `a-${n}`);
      produce(onB, 'fleet', 'job', `b-${n}`);
      sent.push(`a-${n}`, `b-${n}`);
    }
    await waitUntilAsync(async () => (await stored()) === sent.length, 'one copy each');
    expect(consumersOn(p.a)).not.toContain('x');

    const back = await consumerX(p.b);
    await subscribe(back.socket, 'x', 'fleet', 'job', { durable: true });
    await waitUntil(() => back.got.length >= sent.length, 'x gets the backlog');
    await expectNothing(back.socket, JOB);
    expectEachOnce(back.got, sent);

    // B, restarted, restores x: its row names B.
    expect(consumersOn(await p.restartB())).toContain('x');
  });
});

describe('per-node stores', () => {
  it('the old node marks its rows as the new owner’s and hands its stored copies over', async () => {
    const p = await pair('memory');
    const first = await consumerX(p.a);
    await subscribe(first.socket, 'x', 'fleet', 'job', { durable: true });
    await leave(p.a, first.socket);
    const onA = await p.a.producer('fleet');
    produce(onA, 'fleet', 'job', 'left-on-a');
    await waitUntilAsync(async () => (await p.a.broker.store.countQueued('default')) === 1, 'A');

    const moved = await consumerX(p.b);
    const envelopes: { message: unknown; redelivered?: boolean }[] = [];
    moved.socket.on(JOB, (m: { message: unknown; redelivered?: boolean }) => envelopes.push(m));
    await subscribe(moved.socket, 'x', 'fleet', 'job', { durable: true });
    await waitUntil(() => !consumersOn(p.a).includes('x'), 'A drops x');
    // Not deleted: rewritten as B's (A's next restart leaves it alone).
    await waitUntilAsync(async () => {
      const rows = await p.a.broker.store.loadSubscriptions();
      return rows.length === 1 && rows[0]!.record.owner === 'node-b';
    }, 'A’s row is B’s');
    // The copy A stored while x was away moves to B, which delivers it: once, not marked as a
    // redelivery (it was never delivered), and A keeps none.
    await waitUntil(() => moved.got.includes('left-on-a'), 'x gets the copy A had stored');
    expect(envelopes.filter((m) => m.message === 'left-on-a')).toEqual([
      expect.not.objectContaining({ redelivered: true }),
    ]);
    await waitUntilAsync(async () => (await p.a.broker.store.countQueued('default')) === 0, 'A');
    await leave(p.b, moved.socket);

    const stored = () => p.b.broker.store.countQueued('default');
    const sent = await probeUntilStored(onA, stored, 'a');
    for (let n = 0; n < 10; n++) {
      produce(onA, 'fleet', 'job', `a-${n}`);
      sent.push(`a-${n}`);
    }
    await waitUntilAsync(async () => (await stored()) === sent.length, 'B stores them');
    // A stores nothing more for x.
    expect(await p.a.broker.store.countQueued('default')).toBe(0);

    const back = await consumerX(p.b);
    await subscribe(back.socket, 'x', 'fleet', 'job', { durable: true });
    await waitUntil(() => back.got.length >= sent.length, 'x gets the backlog');
    await expectNothing(back.socket, JOB);
    expectEachOnce(back.got, sent);
  });
});

describe('an ACK copy delivered on the old node and not ACKed', () => {
  it('moves with its attempt count: the new owner redelivers it marked, same msgId', async () => {
    const p = await pair('memory');
    const first = await consumerX(p.a);
    const onFirst: { msgId?: string; delivery_attempt?: number }[] = [];
    first.socket.on(JOB, (m: { msgId?: string; delivery_attempt?: number }) => onFirst.push(m));
    await subscribe(first.socket, 'x', 'fleet', 'job', { durable: true, ack: true });
    produce(await p.a.producer('fleet'), 'fleet', 'job', 'needs-ack', { guaranteed: true });
    await waitUntil(() => onFirst.length === 1, 'delivered once on A, not ACKed');
    await leave(p.a, first.socket);

    const moved = await consumerX(p.b);
    const onMoved: { message: unknown; msgId?: string; delivery_attempt?: number }[] = [];
    moved.socket.on(JOB, (m: { message: unknown; msgId?: string; delivery_attempt?: number }) =>
      onMoved.push(m),
    );
    await subscribe(moved.socket, 'x', 'fleet', 'job', { durable: true, ack: true });
    await waitUntil(() => onMoved.length === 1, 'redelivered on B');
    expect(onMoved[0]).toMatchObject({
      message: 'needs-ack',
      msgId: onFirst[0]!.msgId,
      delivery_attempt: 2,
    });
    moved.socket.emit(ClientEvent.ACK, { msgId: onMoved[0]!.msgId });
    await waitUntilAsync(
      async () => (await p.b.broker.store.countQueued('default')) === 0,
      'ACKed on B',
    );
    expect(await p.a.broker.store.countQueued('default')).toBe(0);
  });
});

describe('a consumer live on two nodes', () => {
  it('is kept on the node that did not announce', async () => {
    const p = await pair('redis');
    const onA = await consumerX(p.a);
    await subscribe(onA.socket, 'x', 'fleet', 'job', { durable: true });
    const onB = await consumerX(p.b);
    await subscribe(onB.socket, 'x', 'fleet', 'job', { durable: true });
    // B's announcement has reached A once a probe produced on B reaches A's live x.
    const producer = await p.b.producer('fleet');
    await waitUntilAsync(async () => {
      produce(producer, 'fleet', 'job', 'probe');
      return onA.got.length > 0;
    }, 'A still delivers to x');
    expect(consumersOn(p.a)).toContain('x');
    expect(p.a.stats().consumers.online).toBe(1);
  });
});

describe('a node that missed the announcement', () => {
  it('gives the consumer up when it starts again (the owners record in Redis)', async () => {
    const dir = await makeTempDir('switchboard-owner-');
    opened.push({ close: () => dir.remove() });
    const prefix = freshPrefix();
    const settingsA = {
      storage: 'sqlite',
      storage_options: { filename: path.join(dir.path, 'a.db') },
      cluster: clusterBlock(redis.url, prefix, 'node-a'),
    } as BrokerSettings;
    let a = await startBroker(settingsA);
    const b = await startBroker({
      storage: 'memory',
      cluster: clusterBlock(redis.url, prefix, 'node-b'),
    } as BrokerSettings);
    opened.push(b);
    const first = await consumerX(a);
    await subscribe(first.socket, 'x', 'fleet', 'job', { durable: true });
    await leave(a, first.socket);
    await a.close();

    // x moves to B while A is down: A cannot hear B take it over.
    const moved = await consumerX(b);
    await subscribe(moved.socket, 'x', 'fleet', 'job', { durable: true });
    const owners = new Redis(redis.url);
    opened.push({ close: () => void owners.disconnect() });
    await waitUntilAsync(
      async () => (await owners.hget(`${prefix}:owners`, ownerField('default', 'x'))) === 'node-b',
      'B recorded itself as the owner',
    );

    a = await startBroker(settingsA);
    opened.push(a);
    // A restored x from its own store, then gave it up before serving anyone.
    expect(consumersOn(a)).toEqual([]);
    const rows = await a.broker.store.loadSubscriptions();
    expect(rows.map((r) => r.record.owner)).toEqual(['node-b']);
  });
});
