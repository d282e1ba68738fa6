/**
 * The Redis message store on a private redis-server: the shared conformance suite, then what
 * only Redis has (`spec/protocol-core.md` §16.3, Note 16-A): same-millisecond order across
 * calls, `listDlq(null)` across realms through the global DLQ index, TTL keys in Redis, dangling
 * index members, a second instance ("restart") and two nodes on one Redis.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../../broker/storage/redis-store';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { runStoreConformance } from './store-conformance';

const logger = pino({ level: 'silent' });
let server: RedisServer;
let raw: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  raw = new Redis(server.url);
});
afterAll(async () => {
  await raw.quit();
  await server.stop();
});

let n = 0;
let prefix = '';
runStoreConformance({
  name: 'redis',
  create: () => {
    prefix = `conf-${n++}`;
    return new RedisStore({ url: server.url, prefix, logger });
  },
  reopen: () => new RedisStore({ url: server.url, prefix, logger }),
});

const env = (message: unknown) => ({ event: 'job', message, from: 'fleet' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RedisStore specifics', () => {
  const open: RedisStore[] = [];
  const store = (p: string, defaultTtl?: number) => {
    const s = new RedisStore({ url: server.url, prefix: p, logger, defaultTtl });
    open.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  it('keeps insertion order within one millisecond, also for sequential calls', async () => {
    const s = store('order');
    const realNow = Date.now;
    const frozen = realNow();
    Date.now = () => frozen;
    try {
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        ids.push(
          await s.enqueue('default', 'k', { consumer: 'c', payload: env(i), producer: 'p' }),
        );
      }
      // Ids of one millisecond sort by their random part, not by insertion.
      expect([...ids].sort()).not.toEqual(ids);
      expect((await s.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual(ids);
    } finally {
      Date.now = realNow;
    }
  });

  it('lists the DLQ of every realm for null, oldest first (Note 16-A)', async () => {
    const s = store('dlq-all');
    const ids: string[] = [];
    for (const realm of ['a', '', 'b/c', 'a']) {
      const id = await s.enqueue(realm, 'k', { consumer: 'c', payload: env(realm), producer: 'p' });
      await s.deadLetter(id, `r-${realm}`);
      ids.push(id);
    }
    expect((await s.listDlq(null)).map((e) => e.id)).toEqual(ids);
    expect((await s.listDlq('')).map((e) => e.id)).toEqual([ids[1]]);
    expect((await s.listDlq('a')).map((e) => e.reason)).toEqual(['r-a', 'r-a']);
    expect(await s.dlqDepths()).toEqual(
      expect.arrayContaining([
        { realm: 'a', n: 2 },
        { realm: '', n: 1 },
        { realm: 'b/c', n: 1 },
      ]),
    );
    await s.discardDlq(ids[1]!);
    expect((await s.listDlq(null)).map((e) => e.id)).toEqual([ids[0], ids[2], ids[3]]);
  });

  it('sets PEXPIREAT on expiring copies, none on others or DLQ entries; expired copies are never read', async () => {
    const s = store('ttl');
    await s.countQueued('default'); // connected, scripts loaded: the short TTL is not eaten
    const short = await s.enqueue('default', 'k', {
      consumer: 'c',
      payload: env('short'),
      producer: 'p',
      ttl: 0.3,
    });
    const never = await s.enqueue('default', 'k', {
      consumer: 'c',
      payload: env('never'),
      producer: 'p',
      ttl: null,
    });
    const entry = await s.get(short);
    const pexpire = await raw.pexpiretime(`ttl:message:${short}`);
    expect(pexpire).toBeGreaterThan(entry!.expires_at!);
    expect(await raw.pttl(`ttl:message:${never}`)).toBe(-1);
    await sleep(350);
    expect(await s.get(short)).toBeNull();
    expect((await s.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual([never]);
    expect(await s.countQueued('default')).toBe(1);
    expect(await s.purgeExpired(10)).toEqual([
      { realm: 'default', event: 'k', consumer: 'c', n: 1 },
    ]);
    expect(await raw.exists(`ttl:message:${short}`)).toBe(0);
    const dead = await s.enqueue('default', 'k', {
      consumer: 'c',
      payload: env('d'),
      producer: 'p',
    });
    await s.deadLetter(dead, 'x');
    expect(await raw.pttl(`ttl:dlq:message:${dead}`)).toBe(-1);
  });

  it('prunes dangling index members on dequeue, and purges expired ones whose hash Redis dropped', async () => {
    const s = store('dangling');
    const gone = await s.enqueue('default', 'k', {
      consumer: 'c',
      payload: env(1),
      producer: 'p',
      ttl: null,
    });
    const kept = await s.enqueue('default', 'k', { consumer: 'c', payload: env(2), producer: 'p' });
    const expired = await s.enqueue('default', 'k', {
      consumer: 'c',
      payload: env(3),
      producer: 'p',
      ttl: 0,
    });
    // Evicted or deleted behind the store's back.
    await raw.del(`dangling:message:${gone}`, `dangling:message:${expired}`);
    expect((await s.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual([kept]);
    const index =
      'dangling:index:' +
      ['default', 'k', 'c'].map((x) => Buffer.from(x).toString('base64url')).join(':');
    // The never-expiring one is gone from the index; the expired one waits for the purge.
    expect(await raw.zrange(index, 0, -1)).toEqual([kept, expired]);
    expect((await s.purgeExpired(10)).map((c) => c.n)).toEqual([1]);
    expect(await raw.zrange(index, 0, -1)).toEqual([kept]);
    expect(await s.ack(gone)).toBe(false);
  });

  it('survives a new instance (a restart) and shares copies between two nodes', async () => {
    const a = store('nodes');
    const b = store('nodes');
    const id = await a.enqueue('default', 'fleet-job', {
      consumer: 'w1',
      payload: env('x'),
      producer: 'fleet',
    });
    await a.saveSubscription({
      realm: 'default',
      key: 'fleet-job',
      consumer: 'w1',
      record: { durable: true },
    });
    expect((await b.dequeue('default', 'fleet-job', 'w1')).map((e) => e.id)).toEqual([id]);
    expect((await b.loadSubscriptions()).map((s) => s.consumer)).toEqual(['w1']);
    expect(await b.deadLetter(id, 'on b')).toBe(id);
    expect((await a.listDlq(null)).map((e) => e.reason)).toEqual(['on b']);
    // Exactly one node wins a concurrent move.
    const id2 = await a.enqueue('default', 'fleet-job', {
      consumer: 'w1',
      payload: env('y'),
      producer: 'fleet',
    });
    const moves = await Promise.all([a.deadLetter(id2, 'a'), b.ack(id2)]);
    expect(moves.filter((m) => m === id2 || m === true)).toHaveLength(1);
    await a.close();
    const restarted = store('nodes');
    expect((await restarted.listDlq('default')).map((e) => e.id)).toContain(id);
    expect(await restarted.queueDepths()).toEqual(moves[0] === id2 ? [] : []);
  });
});
