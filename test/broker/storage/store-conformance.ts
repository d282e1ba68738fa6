/**
 * The one conformance suite every message-store backend runs (ARCHITECTURE §3, aedes style).
 * Semantics from `spec/protocol-core.md` §16.2 and §9.3.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageStore } from '../../../broker/storage/message-store';

export interface StoreFactory {
  name: string;
  /** A fresh, empty store. */
  create(): Promise<MessageStore> | MessageStore;
  /** A second store on the same data (persistent backends only). */
  reopen?: () => Promise<MessageStore> | MessageStore;
}

const env = (message: unknown) => ({ event: 'job', message, from: 'fleet' });
/** The broker's message id format (`newMessageId`, `spec/protocol-core.md` §16.2). */
const MESSAGE_ID = /^msg-[0-9a-z]+-[0-9a-f]{12}$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function runStoreConformance(factory: StoreFactory): void {
  describe(`MessageStore conformance: ${factory.name}`, () => {
    let store: MessageStore;
    beforeEach(async () => {
      store = await factory.create();
    });
    afterEach(async () => {
      await store.close();
    });

    it('enqueues and dequeues non-destructively, oldest first, per (realm, event, consumer)', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) {
        ids.push(
          await store.enqueue('default', 'fleet-job', {
            consumer: 'w1',
            payload: env(i),
            producer: 'fleet',
          }),
        );
      }
      await store.enqueue('default', 'fleet-job', {
        consumer: 'w2',
        payload: env('other'),
        producer: 'fleet',
      });
      await store.enqueue('other', 'fleet-job', {
        consumer: 'w1',
        payload: env('realm'),
        producer: 'fleet',
      });
      const first = await store.dequeue('default', 'fleet-job', 'w1');
      expect(first.map((e) => e.id)).toEqual(ids);
      expect(first.map((e) => e.message.message)).toEqual([...Array(50).keys()]);
      expect(await store.dequeue('default', 'fleet-job', 'w1')).toHaveLength(50);
      const e = first[0]!;
      expect(e).toMatchObject({
        realm: 'default',
        event: 'fleet-job',
        consumer: 'w1',
        producer: 'fleet',
      });
      expect(new Date(e.created_at).toISOString()).toBe(e.created_at);
      expect(typeof e.expires_at).toBe('number');
      expect(e.id).toMatch(/^msg-[0-9a-z]+-[0-9a-f]{12}$/);
    });

    it('keeps insertion order for entries made in the same millisecond (Note 16-A)', async () => {
      const ids = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          store.enqueue('default', 'k', { consumer: 'c', payload: env(i), producer: 'p' }),
        ),
      );
      expect((await store.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual(ids);
    });

    it('peekQueue (where offered) pages dequeue without the expired copies', async () => {
      if (!store.peekQueue) return; // optional: the queue commands fall back to dequeue
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          await store.enqueue('default', 'k', { consumer: 'c', payload: env(i), producer: 'p' }),
        );
        // An expired copy between the live ones is skipped, not counted in the offset.
        if (i === 1)
          await store.enqueue('default', 'k', {
            consumer: 'c',
            payload: env('x'),
            producer: 'p',
            ttl: 0,
          });
      }
      await store.enqueue('default', 'k', { consumer: 'other', payload: env('o'), producer: 'p' });
      const page = (offset: number, limit: number) =>
        store.peekQueue!('default', 'k', 'c', offset, limit).then((es) => es.map((e) => e.id));
      expect(await page(0, 2)).toEqual(ids.slice(0, 2));
      expect(await page(2, 2)).toEqual(ids.slice(2, 4));
      expect(await page(4, 10)).toEqual(ids.slice(4));
      expect(await page(5, 10)).toEqual([]);
      expect((await store.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual(ids);
    });

    it('uses a given id, and get() finds a copy by id', async () => {
      await store.enqueue('default', 'k', {
        id: 'msg-fixed',
        consumer: 'c',
        payload: env(1),
        producer: 'p',
      });
      expect((await store.get('msg-fixed'))?.message.message).toBe(1);
      expect(await store.get('msg-missing')).toBeNull();
    });

    it('ack deletes; unknown ids are ignored', async () => {
      const id = await store.enqueue('default', 'k', {
        consumer: 'c',
        payload: env(1),
        producer: 'p',
      });
      expect(await store.ack(id)).toBe(true);
      expect(await store.ack(id)).toBe(false);
      expect(await store.ack('msg-unknown')).toBe(false);
      expect(await store.dequeue('default', 'k', 'c')).toEqual([]);
    });

    it('applies TTLs: 0 expires at once, null/negative never, undefined the default', async () => {
      // One batch, so the short TTL (1 s) is not eaten by commit latency on a loaded machine.
      const input = (message: string, ttl?: number | null) => ({
        consumer: 'c',
        payload: env(message),
        producer: 'p',
        ...(ttl === undefined ? {} : { ttl }),
      });
      await Promise.all([
        store.enqueue('default', 'k', input('zero', 0)),
        store.enqueue('default', 'k', input('short', 1)),
        store.enqueue('default', 'k', input('never', null)),
        store.enqueue('default', 'k', input('neg', -1)),
        store.enqueue('default', 'k', input('dflt')),
      ]);
      let left = await store.dequeue('default', 'k', 'c');
      expect(left.map((e) => e.message.message)).toEqual(['short', 'never', 'neg', 'dflt']);
      expect(left[1]!.expires_at).toBeNull();
      expect(left[3]!.expires_at! - Date.now()).toBeGreaterThan(86_000_000);
      await sleep(1_050);
      left = await store.dequeue('default', 'k', 'c');
      expect(left.map((e) => e.message.message)).toEqual(['never', 'neg', 'dflt']);
      expect(await store.countQueued('default')).toBe(3);
    });

    it('dead-letters with reason and time; list, discard and replay', async () => {
      const a = await store.enqueue('default', 'fleet-job', {
        consumer: 'w1',
        payload: env('a'),
        producer: 'fleet',
      });
      const b = await store.enqueue('r2', 'fleet-job', {
        consumer: 'w1',
        payload: env('b'),
        producer: 'fleet',
      });
      expect(await store.deadLetter(a, 'ack timeout after 3 attempt(s)')).toBe(a);
      expect(await store.deadLetter(b, 'manual')).toBe(b);
      expect(await store.deadLetter('msg-none', 'x')).toBeNull();
      expect(await store.dequeue('default', 'fleet-job', 'w1')).toEqual([]);
      const dlq = await store.listDlq('default');
      expect(dlq).toHaveLength(1);
      expect(dlq[0]).toMatchObject({
        id: a,
        realm: 'default',
        event: 'fleet-job',
        consumer: 'w1',
        producer: 'fleet',
        reason: 'ack timeout after 3 attempt(s)',
      });
      expect(dlq[0]!.message.message).toBe('a');
      expect(new Date(dlq[0]!.dead_lettered_at).toISOString()).toBe(dlq[0]!.dead_lettered_at);
      expect((await store.listDlq(null)).map((e) => e.id).sort()).toEqual([a, b].sort());

      expect(await store.discardDlq(b, 'default')).toBe(false);
      expect(await store.discardDlq(b)).toBe(true);
      const replayed = await store.replayDlq(a, 'default');
      // The re-queued copy gets a new id in the broker's format (as the reference mints one).
      expect(replayed?.id).toMatch(MESSAGE_ID);
      expect(replayed?.id).not.toBe(a);
      expect(replayed).toMatchObject({ realm: 'default', event: 'fleet-job', consumer: 'w1' });
      expect(await store.listDlq(null)).toEqual([]);
      const requeued = await store.dequeue('default', 'fleet-job', 'w1');
      expect(requeued.map((e) => [e.id, e.message.message])).toEqual([[replayed!.id, 'a']]);
      expect(await store.get(replayed!.id)).toMatchObject({ id: replayed!.id, attempts: 0 });
      expect(await store.get(a)).toBeNull();
      expect(await store.replayDlq(a)).toBeNull();
    });

    it('keeps the delivery attempt count with the copy (ARCHITECTURE §4)', async () => {
      const fresh = await store.enqueue('default', 'k', {
        consumer: 'c',
        payload: env('fresh'),
        producer: 'p',
      });
      const live = await store.enqueue('default', 'k', {
        consumer: 'c',
        payload: env('live'),
        producer: 'p',
        attempts: 1,
      });
      expect((await store.dequeue('default', 'k', 'c')).map((e) => e.attempts)).toEqual([0, 1]);
      expect(await store.setAttempts(live, 3)).toBe(true);
      expect(await store.setAttempts('msg-none', 2)).toBe(false);
      expect((await store.get(live))?.attempts).toBe(3);
      expect(await store.deadLetter(live, 'x')).toBe(live);
      expect((await store.listDlq('default'))[0]?.attempts).toBe(3);
      // A DLQ replay starts a fresh budget.
      const again = await store.replayDlq(live);
      expect(again?.attempts).toBe(0);
      expect((await store.get(again!.id))?.attempts).toBe(0);
      expect((await store.get(fresh))?.attempts).toBe(0);
    });

    it('never dead-letters an expired copy (§16.2)', async () => {
      const id = await store.enqueue('default', 'k', {
        consumer: 'c',
        payload: env('gone'),
        producer: 'p',
        ttl: 0.03,
      });
      await sleep(60);
      expect(await store.deadLetter(id, 'late')).toBeNull();
      expect(await store.listDlq(null)).toEqual([]);
    });

    it('purges expired copies in bounded batches, reporting each queue, reads never deleting', async () => {
      for (let i = 0; i < 5; i++) {
        await store.enqueue('default', 'a', {
          consumer: 'c',
          payload: env(i),
          producer: 'p',
          ttl: 0,
        });
        await store.enqueue('r2', 'b', { consumer: 'd', payload: env(i), producer: 'p', ttl: 0 });
      }
      await store.enqueue('default', 'a', { consumer: 'c', payload: env('kept'), producer: 'p' });
      expect(await store.dequeue('default', 'a', 'c')).toHaveLength(1);
      const depth = (counts: Array<{ realm: string; n: number }>) =>
        Object.fromEntries(counts.map((c) => [c.realm, c.n]));
      // Reads skip expired copies but leave them for the purge.
      expect(depth(await store.queueDepths())).toEqual({ default: 6, r2: 5 });
      const first = await store.purgeExpired(4);
      expect(first.reduce((n, c) => n + c.n, 0)).toBe(4);
      let removed = 4;
      for (let i = 0; i < 10 && removed < 10; i++) {
        const batch = await store.purgeExpired(4);
        expect(batch.reduce((n, c) => n + c.n, 0)).toBeLessThanOrEqual(4);
        removed += batch.reduce((n, c) => n + c.n, 0);
      }
      expect(removed).toBe(10);
      expect(depth(await store.queueDepths())).toEqual({ default: 1 });
      expect((await store.purgeExpired(100)).find((c) => c.realm === 'default')).toBeUndefined();
    });

    it('purges one queue', async () => {
      await store.enqueue('default', 'a', { consumer: 'c', payload: env(1), producer: 'p' });
      await store.enqueue('default', 'a', { consumer: 'c', payload: env(2), producer: 'p' });
      await store.enqueue('default', 'a', { consumer: 'd', payload: env(3), producer: 'p' });
      expect(await store.purgeQueue('default', 'a', 'c')).toBe(2);
      expect(await store.queueDepths()).toEqual([
        { realm: 'default', event: 'a', consumer: 'd', n: 1 },
      ]);
    });

    it('marks replayed envelopes with a replay count and the first dead-letter time', async () => {
      const a = await store.enqueue('default', 'fleet-job', {
        consumer: 'w1',
        payload: env('a'),
        producer: 'fleet',
      });
      await store.deadLetter(a, 'first');
      const firstAt = (await store.listDlq('default'))[0]!.dead_lettered_at;
      const once = await store.replayDlq(a);
      expect(once?.message).toMatchObject({
        message: 'a',
        replay_count: 1,
        first_dead_lettered_at: firstAt,
      });
      await sleep(5);
      // Dead-lettered again under the id it was re-queued with; each replay mints another.
      expect(await store.deadLetter(once!.id, 'second')).toBe(once!.id);
      expect(await store.replayDlq(a)).toBeNull();
      const twice = await store.replayDlq(once!.id);
      expect(twice?.message).toMatchObject({ replay_count: 2, first_dead_lettered_at: firstAt });
      expect(new Set([a, once!.id, twice!.id]).size).toBe(3);
      const [stored] = await store.dequeue('default', 'fleet-job', 'w1');
      expect(stored?.id).toBe(twice!.id);
      expect(stored?.message).toMatchObject({ replay_count: 2, first_dead_lettered_at: firstAt });
    });

    it('counts and purges per realm', async () => {
      for (let i = 0; i < 3; i++)
        await store.enqueue('a', 'k', { consumer: 'c', payload: env(i), producer: 'p' });
      const d = await store.enqueue('a', 'k', { consumer: 'c', payload: env('d'), producer: 'p' });
      await store.deadLetter(d, 'x');
      await store.enqueue('b', 'k', { consumer: 'c', payload: env('b'), producer: 'p' });
      expect(await store.countQueued('a')).toBe(3);
      expect(await store.purgeRealm('a')).toBe(4);
      expect(await store.countQueued('a')).toBe(0);
      expect(await store.countQueued('b')).toBe(1);
    });

    it('renames a realm: copies (order, attempts, expiry), DLQ and subscriptions move atomically', async () => {
      const odd = { s: ',"realm":"old" quote " \\', n: 0.1 + 0.2, realm: 'old' };
      const a = await store.enqueue('old', 'k', {
        consumer: 'c',
        payload: env(odd),
        producer: 'p',
        attempts: 2,
      });
      const b = await store.enqueue('old', 'k', {
        consumer: 'c',
        payload: env('b'),
        producer: 'p',
        ttl: 60,
      });
      const d = await store.enqueue('old', 'k2', {
        consumer: 'c',
        payload: env('d'),
        producer: 'p',
      });
      await store.deadLetter(d, 'x');
      await store.enqueue('other', 'k', { consumer: 'c', payload: env('other'), producer: 'p' });
      await store.saveSubscription({
        realm: 'old',
        key: 'k',
        consumer: 'c',
        record: { durable: true },
      });
      await store.saveSubscription({ realm: 'other', key: 'k', consumer: 'c', record: { v: 1 } });
      const before = await store.dequeue('old', 'k', 'c');

      const moved = await store.renameRealm('old', 'new');
      expect(moved).toEqual({ queued: 2, dlq: 1, subscriptions: 1, retained: 0, mqtt_sessions: 0 });
      expect(await store.dequeue('old', 'k', 'c')).toEqual([]);
      const after = await store.dequeue('new', 'k', 'c');
      expect(after.map((e) => e.id)).toEqual([a, b]);
      expect(after).toEqual(before.map((e) => ({ ...e, realm: 'new' })));
      expect(after[0]!.message).toEqual(env(odd));
      expect((await store.get(a))?.realm).toBe('new');
      expect(await store.countQueued('new')).toBe(2);
      expect(await store.countQueued('old')).toBe(0);
      expect(await store.listDlq('old')).toEqual([]);
      const dlq = await store.listDlq('new');
      expect(dlq.map((e) => [e.id, e.realm, e.reason])).toEqual([[d, 'new', 'x']]);
      expect((await store.listDlq(null)).map((e) => e.realm)).toEqual(['new']);
      const subs = await store.loadSubscriptions();
      expect(subs.map((s) => [s.realm, s.key])).toEqual(
        expect.arrayContaining([
          ['new', 'k'],
          ['other', 'k'],
        ]),
      );
      expect(subs.some((s) => s.realm === 'old')).toBe(false);
      const depths = await store.queueDepths();
      expect(depths.filter((q) => q.realm === 'old')).toEqual([]);
      expect(depths.filter((q) => q.realm === 'new').map((q) => q.n)).toEqual([2]);
      if (store.dlqDepths) {
        const dd = await store.dlqDepths();
        expect(dd.filter((r) => r.realm === 'old')).toEqual([]);
        expect(dd.filter((r) => r.realm === 'new')).toEqual([{ realm: 'new', n: 1 }]);
      }
      // The moved copies keep working: ACK, dead-letter, replay, purge under the new name.
      expect(await store.ack(a)).toBe(true);
      expect((await store.replayDlq(d, 'new'))?.realm).toBe('new');
      expect(await store.purgeRealm('new')).toBe(2);
      expect(await store.countQueued('other')).toBe(1);
    });

    it('refuses to rename onto a realm that holds data, changing nothing', async () => {
      await store.enqueue('src', 'k', { consumer: 'c', payload: env('s'), producer: 'p' });
      await store.enqueue('busy', 'k', { consumer: 'c', payload: env('b'), producer: 'p' });
      await store.saveSubscription({ realm: 'subbed', key: 'k', consumer: 'c', record: {} });
      const dead = await store.enqueue('dead', 'k', {
        consumer: 'c',
        payload: env('d'),
        producer: 'p',
      });
      await store.deadLetter(dead, 'x');
      for (const target of ['busy', 'subbed', 'dead', 'src']) {
        expect(await store.renameRealm('src', target)).toBeNull();
      }
      expect((await store.dequeue('src', 'k', 'c')).length).toBe(1);
      expect((await store.dequeue('busy', 'k', 'c')).length).toBe(1);
      // An unknown source moves nothing.
      expect(await store.renameRealm('nothing-here', 'fresh')).toEqual({
        queued: 0,
        dlq: 0,
        subscriptions: 0,
        retained: 0,
        mqtt_sessions: 0,
      });
    });

    it('stores envelopes with odd payloads intact', async () => {
      const odd = {
        s: 'quote " backslash \\ nul \u0000 emoji 😀',
        n: [1.5, -2e-7, null],
        deep: { a: { b: [true] } },
      };
      const id = await store.enqueue('default', 'k', {
        consumer: '',
        payload: { ...env(odd), content_type: 'x' },
        producer: 'p',
      });
      const got = await store.get(id);
      expect(got?.message).toEqual({ ...env(odd), content_type: 'x' });
    });

    it('saves, replaces, deletes and lists durable subscriptions in first-saved order', async () => {
      const sub = (key: string, consumer: string, v: number) => ({
        realm: 'default',
        key,
        consumer,
        record: { v, nested: { ok: true } },
      });
      await store.saveSubscription(sub('fleet-job', 'w1', 1));
      await store.saveSubscription(sub('fleet-other', 'w1', 1));
      await store.saveSubscription(sub('fleet-job', 'w1', 2));
      await store.saveSubscription({ ...sub('fleet-job', 'w2', 1), realm: 'r2' });
      let subs = await store.loadSubscriptions();
      expect(subs.map((s) => [s.realm, s.key, s.consumer, s.record.v])).toEqual([
        ['default', 'fleet-job', 'w1', 2],
        ['default', 'fleet-other', 'w1', 1],
        ['r2', 'fleet-job', 'w2', 1],
      ]);
      expect(subs[0]!.record).toEqual({ v: 2, nested: { ok: true } });
      await store.deleteSubscription('default', 'fleet-other', 'w1');
      await store.deleteSubscription('default', 'missing', 'w1');
      await store.purgeRealm('r2');
      subs = await store.loadSubscriptions();
      expect(subs.map((s) => s.key)).toEqual(['fleet-job']);
    });

    if (factory.reopen) {
      it('keeps copies and the DLQ across instances on the same data', async () => {
        const id = await store.enqueue('default', 'k', {
          consumer: 'c',
          payload: env('kept'),
          producer: 'p',
        });
        const dead = await store.enqueue('default', 'k', {
          consumer: 'c',
          payload: env('dead'),
          producer: 'p',
        });
        await store.deadLetter(dead, 'x');
        await store.saveSubscription({
          realm: 'default',
          key: 'k',
          consumer: 'c',
          record: { durable: true },
        });
        await store.close();
        store = await factory.reopen!();
        expect((await store.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual([id]);
        expect((await store.listDlq('default')).map((e) => e.id)).toEqual([dead]);
        expect((await store.loadSubscriptions()).map((s) => s.record)).toEqual([{ durable: true }]);
        expect(await store.ack(id)).toBe(true);
      });

      it('keeps a replayed copy under its new id across instances', async () => {
        const dead = await store.enqueue('default', 'k', {
          consumer: 'c',
          payload: env('again'),
          producer: 'p',
        });
        await store.deadLetter(dead, 'x');
        const replayed = await store.replayDlq(dead);
        await store.close();
        store = await factory.reopen!();
        expect(await store.listDlq(null)).toEqual([]);
        const [copy] = await store.dequeue('default', 'k', 'c');
        expect(copy).toMatchObject({ id: replayed!.id, attempts: 0 });
        expect(copy!.message).toMatchObject({ message: 'again', replay_count: 1 });
        expect(await store.ack(dead)).toBe(false);
        expect(await store.ack(replayed!.id)).toBe(true);
      });
    }
  });
}
