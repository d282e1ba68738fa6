/**
 * Interest routing (issue 21; docs/cluster.md "Interest routing"): which peers a message is
 * sent to, decided from the interest each node publishes in Redis. Two InterestSync nodes over
 * a real redis-server, each with a real RealmDirectory and Router (test/helpers/interest-nodes).
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

/** Nodes `a` and `b` under a fresh prefix, `a` already knowing `b`'s (empty) interest. */
async function pair(): Promise<[InterestNode, InterestNode, string]> {
  const prefix = freshPrefix();
  const a = await startInterestNode(redis.url, prefix, 'a');
  opened.push(a);
  const b = await startInterestNode(redis.url, prefix, 'b');
  opened.push(b);
  await waitUntil(() => caughtUp(a, b), 'a knows b');
  return [a, b, prefix];
}

/** Waits until `a` has applied `b`'s changes so far. */
const settle = (a: InterestNode, b: InterestNode) => waitUntil(() => caughtUp(a, b), 'a caught up');
const to = (a: InterestNode, msg = message('x')) => a.sync.targets(msg, ['b']);

describe('what a peer wants', () => {
  it('exact keys: P-E, P-TM-ALL and TYO-MQ-ALL-E, per realm', async () => {
    const [a, b] = await pair();
    expect(to(a, message('job', 'fleet'))).toEqual([]);
    b.subscribe({ producer: 'Fleet', event: 'Job' });
    b.subscribe({ producer: 'audit', event: 'TM-ALL', consumer: 'auditor' });
    b.subscribe({ producer: 'TYO-MQ-ALL', event: 'alarm', consumer: 'pager' });
    await settle(a, b);
    expect(to(a, message('job', 'fleet'))).toEqual(['b']); // case-insensitive key
    expect(to(a, message('other', 'fleet'))).toEqual([]);
    expect(to(a, message('job', 'fleet', 'elsewhere'))).toEqual([]);
    expect(to(a, message('anything', 'audit'))).toEqual(['b']);
    expect(to(a, message('alarm', 'whoever'))).toEqual(['b']);
    // Broadcasts do not follow subscriptions (no live name in the realm here).
    expect(to(a, message('job', 'fleet', 'default', { broadcast: 'realm' }))).toEqual([]);
  });

  it('topic patterns with + and #, as the trie matches them', async () => {
    const [a, b] = await pair();
    b.subscribe({ event: 'sensors/+/temp', topic: true });
    b.subscribe({ event: 'logs/#', topic: true, consumer: 'c2' });
    b.subscribe({ event: '#', topic: true, consumer: 'c3', realm: 'wide' });
    await settle(a, b);
    expect(to(a, message('sensors/kitchen/temp', 'anyone'))).toEqual(['b']);
    expect(to(a, message('Sensors/Kitchen/TEMP', 'anyone'))).toEqual(['b']);
    expect(to(a, message('sensors/kitchen/humidity'))).toEqual([]);
    expect(to(a, message('sensors//temp'))).toEqual(['b']); // + matches an empty level
    expect(to(a, message('logs'))).toEqual(['b']); // a/# matches a
    expect(to(a, message('logs/x/y'))).toEqual(['b']);
    expect(to(a, message('anything/at/all', 'p', 'wide'))).toEqual(['b']);
    expect(to(a, message('$SYS/x', 'p', 'wide'))).toEqual([]); // # never matches a leading $
  });

  it("the '*' (admin) realm's subscriptions see every realm's messages", async () => {
    const [a, b] = await pair();
    b.subscribe({ realm: '*', producer: 'TYO-MQ-ALL', event: 'audit' });
    b.subscribe({ realm: '*', event: 'metrics/#', topic: true, consumer: 'm' });
    await settle(a, b);
    expect(to(a, message('audit', 'p', 'tenant-1'))).toEqual(['b']);
    expect(to(a, message('audit', 'p', '*'))).toEqual(['b']);
    expect(to(a, message('metrics/cpu', 'p', 'tenant-2'))).toEqual(['b']);
    expect(to(a, message('other', 'p', 'tenant-1'))).toEqual([]);
  });

  it('realm broadcasts need a live name in the realm; group broadcasts a group record too', async () => {
    const [a, b] = await pair();
    const realmCast = message('hello', 'p', 'default', { broadcast: 'realm' });
    const groupCast = message('work', 'p', 'default', { broadcast: 'group', group: 'workers' });
    b.subscribe({ event: 'job', consumer: 'w1', group: 'workers' });
    await settle(a, b);
    expect(to(a, realmCast)).toEqual([]); // w1 is not online
    expect(to(a, groupCast)).toEqual([]);
    b.online('w1');
    await settle(a, b);
    expect(to(a, realmCast)).toEqual(['b']);
    expect(to(a, groupCast)).toEqual(['b']);
    expect(to(a, { ...groupCast, group: 'others' })).toEqual([]);
    expect(to(a, { ...groupCast, group: null })).toEqual(['b']); // falls back to realm (§13.2)
    expect(to(a, { ...realmCast, realm: 'elsewhere' })).toEqual([]);
    b.offline('w1');
    await settle(a, b);
    expect(to(a, realmCast)).toEqual([]);
  });

  it('taps: a realm list makes the realm wanted, a tap without one everything', async () => {
    const [a, b] = await pair();
    const wanted = new Set(['mqtt-realm']);
    const removeTap = b.router.addTap(
      () => undefined,
      (realm) => wanted.has(realm),
      () => wanted,
    );
    await settle(a, b);
    expect(to(a, message('any/topic', 'p', 'mqtt-realm'))).toEqual(['b']);
    expect(to(a, message('any/topic', 'p', 'other'))).toEqual([]);
    wanted.add('second');
    b.router.tapInterestChanged();
    await settle(a, b);
    expect(to(a, message('x', 'p', 'second'))).toEqual(['b']);
    const removeAll = b.router.addTap(() => undefined);
    await settle(a, b);
    expect(to(a, message('x', 'p', 'other'))).toEqual(['b']);
    removeAll();
    removeTap();
    await settle(a, b);
    expect(to(a, message('x', 'p', 'second'))).toEqual([]);
  });

  it('an offline durable consumer keeps its interest; unsubscribing removes it', async () => {
    const [a, b] = await pair();
    b.online('keeper');
    const record = b.subscribe({ event: 'orders', consumer: 'keeper', durable: true });
    await settle(a, b);
    b.offline('keeper');
    await settle(a, b);
    expect(to(a, message('orders'))).toEqual(['b']);
    b.unsubscribe(record);
    await settle(a, b);
    expect(to(a, message('orders'))).toEqual([]);
  });

  it('a realm dropped from the directory takes its interest with it', async () => {
    const [a, b] = await pair();
    b.subscribe({ realm: 'gone', event: 'e' });
    await settle(a, b);
    expect(to(a, message('e', 'p', 'gone'))).toEqual(['b']);
    b.realms.delete('gone');
    await settle(a, b);
    expect(to(a, message('e', 'p', 'gone'))).toEqual([]);
  });
});

describe('fail-safe and lifecycle', () => {
  it('includes a peer whose interest is unknown, and never the node itself', async () => {
    const [a] = await pair();
    expect(a.sync.targets(message('x'), ['ghost', 'a', 'b'])).toEqual(['ghost']);
    // Still unknown after a read (no hash): an older node, or one not yet written.
    await waitUntil(() => a.sync.stats.reloads >= 2, 'a tried to read ghost');
    expect(a.sync.targets(message('x'), ['ghost'])).toEqual(['ghost']);
  });

  it('close leaves the hash in Redis; a node starting later reads it', async () => {
    const [a, b, prefix] = await pair();
    b.subscribe({ event: 'owed', durable: true });
    await settle(a, b);
    await b.close();
    opened = opened.filter((n) => n !== b);
    const later = await startInterestNode(redis.url, prefix, 'late');
    opened.push(later);
    await waitUntil(() => {
      later.sync.targets(message('owed'), ['b']);
      return later.sync.peerRevision('b') !== null;
    }, 'late reads b');
    expect(later.sync.targets(message('owed'), ['b'])).toEqual(['b']);
    expect(later.sync.targets(message('other'), ['b'])).toEqual([]);
  });

  it('forget deletes the peer hash; a live node writes it again at its next check', async () => {
    const [a, b, prefix] = await pair();
    b.subscribe({ event: 'kept' });
    await settle(a, b);
    const probe = new Redis(redis.url);
    try {
      await a.sync.forget('b');
      const fulls = b.sync.stats.fulls;
      await waitUntil(() => b.sync.stats.fulls > fulls, 'b rewrote its hash');
      await settle(a, b);
      expect(await probe.hexists(interestKey(prefix, 'b'), 'rev')).toBe(1);
      expect(to(a, message('kept'))).toEqual(['b']);
    } finally {
      probe.disconnect();
    }
  });
});
