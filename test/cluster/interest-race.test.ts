/**
 * Interest routing under change (issue 21; docs/cluster.md "Interest routing"): the race
 * between a SUBSCRIBE on one node and messages routed on another, bursts of changes, the
 * causal stamp, and Redis restarting empty. Real redis-servers, real registries and Routers.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { interestKey } from '../../broker/cluster/interest-sync';
import { freshPrefix } from '../helpers/cluster-nodes';
import { caughtUp, message, startInterestNode, type InterestNode } from '../helpers/interest-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil } from '../helpers/wait';

let redis: RedisServer;
let opened: InterestNode[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  await Promise.all(opened.map((n) => n.close()));
  opened = [];
});

async function pair(url = redis.url): Promise<[InterestNode, InterestNode, string]> {
  const prefix = freshPrefix();
  const a = await startInterestNode(url, prefix, 'a');
  opened.push(a);
  const b = await startInterestNode(url, prefix, 'b');
  opened.push(b);
  await waitUntil(() => caughtUp(a, b), 'a knows b');
  return [a, b, prefix];
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

describe('the SUBSCRIBE race', () => {
  it('once a message is targeted at the subscriber, every later one is (no gaps), both ways', async () => {
    const [a, b] = await pair();
    const msg = message('tick', 'clock');
    const added: number[] = [];
    const removed: number[] = [];
    for (let cycle = 0; cycle < 20; cycle++) {
      // A routes continuously (one message per turn, so notices are read in between).
      for (let i = 0; i < 20; i++) {
        expect(a.sync.targets(msg, ['b'])).toEqual([]);
        await turn();
      }
      const subscribedAt = performance.now();
      const record = b.subscribe({ producer: 'clock', event: 'tick', consumer: `c${cycle}` });
      while (a.sync.targets(msg, ['b']).length === 0) {
        if (performance.now() - subscribedAt > 5_000) throw new Error('subscription not seen');
        await turn();
      }
      added.push(performance.now() - subscribedAt);
      for (let i = 0; i < 200; i++) {
        expect(a.sync.targets(msg, ['b'])).toEqual(['b']);
        await turn();
      }
      const unsubscribedAt = performance.now();
      b.unsubscribe(record);
      while (a.sync.targets(msg, ['b']).length === 1) {
        if (performance.now() - unsubscribedAt > 5_000) throw new Error('removal not seen');
        await turn();
      }
      removed.push(performance.now() - unsubscribedAt);
    }
    // Reported, not asserted (2 shared cores): one Redis round trip plus a turn, typically.
    console.info(
      `interest propagation over ${added.length} cycles: subscribe median ${median(added).toFixed(2)} ms ` +
        `(max ${Math.max(...added).toFixed(2)}), unsubscribe median ${median(removed).toFixed(2)} ms ` +
        `(max ${Math.max(...removed).toFixed(2)})`,
    );
    expect(a.sync.stats.gaps).toBe(0);
  });

  it('a stamped message makes the receiver include its sender until it caught up', async () => {
    const [a, b] = await pair();
    b.subscribe({ event: 'reply' });
    // B relays a message right after the change: its stamp names the revision of the change.
    const stamp = b.sync.stamp();
    a.sync.vouched('b', stamp);
    // Before A has applied it, B is a target of everything; afterwards of what it wants only.
    expect(a.sync.targets(message('unrelated'), ['b'])).toEqual(['b']);
    await waitUntil(() => a.sync.peerRevision('b') === stamp.rev, 'a applied the stamp');
    expect(a.sync.targets(message('reply'), ['b'])).toEqual(['b']);
    expect(a.sync.targets(message('unrelated'), ['b'])).toEqual([]);
  });
});

describe('bursts', () => {
  it('10,000 SUBSCRIBEs in one turn are one write and one notice', async () => {
    const [a, b, prefix] = await pair();
    const watcher = new Redis(redis.url);
    try {
      let notices = 0;
      watcher.on('message', (_channel: string, text: string) => {
        if ((JSON.parse(text) as { node_id: string }).node_id === 'b') notices += 1;
      });
      await watcher.subscribe(`${prefix}:interest:changed`);
      const before = { ...b.sync.stats };
      for (let i = 0; i < 10_000; i++) b.subscribe({ event: `e${i}`, consumer: `c${i}` });
      await waitUntil(() => caughtUp(a, b), 'a caught up', 10_000);
      await waitUntil(() => notices >= 1, 'the notice arrived');
      expect(b.sync.stats.deltas - before.deltas).toBe(1);
      expect(b.sync.stats.fulls - before.fulls).toBe(0);
      expect(notices).toBe(1);
      expect(await b.links.command.hlen(interestKey(prefix, 'b'))).toBe(10_000 + 2); // + epoch, rev
      expect(a.sync.targets(message('e0'), ['b'])).toEqual(['b']);
      expect(a.sync.targets(message('e9999'), ['b'])).toEqual(['b']);
      expect(a.sync.targets(message('e10000'), ['b'])).toEqual([]);
    } finally {
      watcher.disconnect();
    }
  });

  it('a small burst travels in the notice: the peer applies it without reading the hash', async () => {
    const [a, b] = await pair();
    const reloads = a.sync.stats.reloads;
    for (let i = 0; i < 300; i++) b.subscribe({ event: `s${i}`, consumer: `c${i}` });
    await waitUntil(() => caughtUp(a, b), 'a caught up');
    expect(a.sync.stats.reloads).toBe(reloads);
    expect(a.sync.targets(message('s299'), ['b'])).toEqual(['b']);
  });
});

describe('Redis restarted empty', () => {
  let own: RedisServer;
  beforeAll(async () => {
    own = await startRedisServer();
  });
  afterAll(async () => {
    await own.stop();
  });

  it('every node writes its interest again and peers read it', async () => {
    const [a, b, prefix] = await pair(own.url);
    b.subscribe({ event: 'kept' });
    await waitUntil(() => caughtUp(a, b), 'a knows the subscription');
    const fulls = b.sync.stats.fulls;
    await own.restart();
    await waitUntil(
      () => b.sync.stats.fulls > fulls && caughtUp(a, b),
      'b rewrote, a read it',
      15_000,
    );
    const probe = new Redis(own.url);
    try {
      expect(await probe.hget(interestKey(prefix, 'b'), 'k:7:default:p-kept')).toBe('1');
    } finally {
      probe.disconnect();
    }
    expect(a.sync.targets(message('kept'), ['b'])).toEqual(['b']);
    expect(a.sync.targets(message('other'), ['b'])).toEqual([]);
    b.subscribe({ event: 'after', consumer: 'c2' });
    await waitUntil(() => caughtUp(a, b), 'a caught up after the restart');
    expect(a.sync.targets(message('after'), ['b'])).toEqual(['b']);
  });
});
