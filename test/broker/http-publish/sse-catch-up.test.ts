/**
 * SSE durable catch-up (`spec/protocol-extensions.md` §5.7, R69–R74, Notes 5-B, 5-C, 5-F):
 * `Last-Event-ID` / `?since` replay the gap in order, live messages during the replay appear
 * once and after it, history is its own namespace (a spoofed `__http_sse__` subscriber cannot
 * drain it, durable consumers keep their copies), the count and byte caps signal truncation,
 * and a 4 MiB catch-up arrives whole through a reader that stalls (paged, never cut).
 */
import { describe, expect, it } from 'vitest';
import {
  anyProducerKey,
  ClientEvent,
  consumeEvent,
  Protocol,
} from '../../../shared/protocol-events';
import { consumerIn, useAuthBroker } from '../../helpers/auth-clients';
import { subscribe } from '../../helpers/broker-harness';
import { jsSubscribePayload } from '../../helpers/stock-clients';
import { openSse, type SseReader } from '../../helpers/sse-reader';
import { collect, expectNothing, waitUntil } from '../../helpers/wait';
import { bearer, ON, publishJson, TOKENS } from './http-publish-fixtures';

const ctx = useAuthBroker({ tokens: TOKENS }, ON);

const ns = (s: SseReader) =>
  s.frames.map(
    (f) =>
      (f.data as { data: { n?: number; i?: number } }).data.n ??
      (f.data as { data: { i: number } }).data.i,
  );

async function guaranteed(n: number, event = 'jobs'): Promise<string> {
  const r = await publishJson(ctx.h, `/pub/acme/${event}?guaranteed=1`, { n });
  expect(r.status).toBe(202);
  return String(r.body.msg_id);
}

describe('catch-up (§5.7)', () => {
  it('R69: Last-Event-ID replays the gap in order, then the stream is live', async () => {
    const first = await guaranteed(1);
    await guaranteed(2);
    await guaranteed(3);
    const s = await openSse(ctx.h, '/sub/acme/jobs', {
      ...bearer('sub-acme'),
      'last-event-id': first,
    });
    await s.waitFrames(2);
    await guaranteed(4);
    await s.waitFrames(3);
    expect(ns(s)).toEqual([2, 3, 4]);
    expect(s.comments.some((c) => /truncat/i.test(c))).toBe(false);
  });

  it('R70: ?since= replays the same gap', async () => {
    const first = await guaranteed(1);
    await guaranteed(2);
    await guaranteed(3);
    const s = await openSse(ctx.h, `/sub/acme/jobs?since=${first}`, bearer('sub-acme'));
    await s.waitFrames(2);
    expect(ns(s)).toEqual([2, 3]);
  });

  it('R71: a message published while the catch-up runs appears once, after the replay', async () => {
    const first = await guaranteed(1);
    // ~2.4 MiB of history between n:1 and n:2, so the replay waits on a stalled reader.
    const big = 'y'.repeat(8_000);
    for (let i = 0; i < 300; i++) {
      const frame = JSON.stringify({ event: 'jobs', data: { i, big }, producer: 'x' });
      ctx.h.broker.httpPublish.history.record('acme', 'jobs', {
        id: `s-${i}`,
        frame,
        expiresAt: Infinity,
      });
    }
    await guaranteed(2);
    const s = await openSse(ctx.h, '/sub/acme/jobs', {
      ...bearer('sub-acme'),
      'last-event-id': first,
    });
    s.pause();
    await guaranteed(3);
    s.resume();
    await s.waitFrames(302);
    const numbered = s.frames.map((f) => (f.data as { data: { n?: number } }).data.n);
    expect(numbered.filter((n) => n !== undefined)).toEqual([2, 3]);
    expect(numbered.at(-1)).toBe(3);
    await guaranteed(4);
    await s.waitFrames(303);
  });

  it('R72: without a resume point history is not replayed', async () => {
    await guaranteed(1);
    await guaranteed(2);
    const s = await openSse(ctx.h, '/sub/acme/jobs', bearer('sub-acme'));
    await guaranteed(3);
    await s.waitFrames(1);
    expect(ns(s)).toEqual([3]);
  });

  it('R73, Note 5-B: replay is non-destructive and a spoofed __http_sse__ subscriber drains nothing', async () => {
    const w = await consumerIn(ctx.h, { token: 'sub-acme' }, 'worker');
    await subscribe(w, 'worker', Protocol.ALL_PUBLISHERS, 'jobs', { durable: true });
    await ctx.h.disconnect(w);
    const r1 = await publishJson(ctx.h, '/pub/acme/jobs?guaranteed=1', { r: 1 });
    await publishJson(ctx.h, '/pub/acme/jobs?guaranteed=1', { r: 2 });
    await ctx.h.broker.settled();
    // The reference's history drain: SUBSCRIBE with consumer_id "__http_sse__", durable.
    const spoof = await consumerIn(ctx.h, { token: 'sub-acme' }, 'spoof');
    const drained = expectNothing(spoof, consumeEvent(anyProducerKey('jobs')));
    spoof.emit(
      ClientEvent.SUBSCRIBE,
      jsSubscribePayload('spoof', Protocol.ALL_PUBLISHERS, 'jobs', {
        durable: true,
        consumerId: '__http_sse__',
      }),
    );
    await drained;
    const s = await openSse(ctx.h, '/sub/acme/jobs', {
      ...bearer('sub-acme'),
      'last-event-id': String(r1.body.msg_id),
    });
    await s.waitFrames(1);
    expect((s.frames[0]?.data as { data: unknown }).data).toEqual({ r: 2 });
    const back = await consumerIn(ctx.h, { token: 'sub-acme' }, 'worker');
    const got = collect(back, consumeEvent(anyProducerKey('jobs')), 2);
    await subscribe(back, 'worker', Protocol.ALL_PUBLISHERS, 'jobs', { durable: true });
    expect(((await got) as { message: unknown }[]).map((m) => m.message)).toEqual([
      { r: 1 },
      { r: 2 },
    ]);
  });

  it('R74: an unknown id over 1,100 rows replays the newest 1,000 after a truncation comment', async () => {
    for (let i = 0; i < 1_100; i++) {
      ctx.h.broker.httpPublish.history.record('acme', 'big', {
        id: `h-${i}`,
        frame: JSON.stringify({ event: 'big', data: { i }, producer: 'x' }),
        expiresAt: Infinity,
      });
    }
    const s = await openSse(ctx.h, '/sub/acme/big', {
      ...bearer('sub-acme'),
      'last-event-id': 'no-such-id',
    });
    await s.waitFrames(1_000);
    expect(ns(s)).toEqual(Array.from({ length: 1_000 }, (_, k) => k + 100));
    expect(s.frames[0]?.id).toBe('h-100');
    expect(s.comments.some((c) => /truncat/i.test(c))).toBe(true);
  });
});

describe('a 4 MiB catch-up (Note 5-F)', () => {
  const seed = (rows: number, bytes: number) => {
    const pad = 'z'.repeat(bytes);
    for (let i = 0; i < rows; i++) {
      ctx.h.broker.httpPublish.history.record('acme', 'bulk', {
        id: `b-${i}`,
        frame: JSON.stringify({ event: 'bulk', data: { i, pad }, producer: 'x' }),
        expiresAt: Infinity,
      });
    }
  };

  it('arrives whole, paged, through a stalled reader, with live messages after it, each once', async () => {
    // 500 rows of ~8 KiB: ~4.0 MiB, under the 4 MiB byte cap, four times the 1 MiB bound.
    seed(500, 8_300);
    const s = await openSse(ctx.h, '/sub/acme/bulk', {
      ...bearer('sub-acme'),
      'last-event-id': 'unknown',
    });
    s.pause();
    // While the reader stalls the replay waits on drain; live messages are buffered.
    const live: string[] = [];
    for (let n = 0; n < 20; n++) {
      const r = await publishJson(ctx.h, '/pub/acme/bulk?guaranteed=1', { i: 1_000 + n });
      live.push(String(r.body.msg_id));
    }
    expect(ctx.h.broker.httpPublish.streams()).toBe(1);
    s.resume();
    await s.waitFrames(520, 20_000);
    expect(s.ended).toBe(false);
    expect(s.comments.some((c) => /truncat/i.test(c))).toBe(false);
    expect(ns(s)).toEqual([
      ...Array.from({ length: 500 }, (_, i) => i),
      ...Array.from({ length: 20 }, (_, n) => 1_000 + n),
    ]);
    expect(s.frames.slice(500).map((f) => f.id)).toEqual(live);
    // Still live afterwards.
    await publishJson(ctx.h, '/pub/acme/bulk', { i: 2_000 });
    await s.waitFrames(521);
  });

  it('past 4 MiB keeps the newest rows within the byte cap and says so', async () => {
    seed(600, 8_300);
    const s = await openSse(ctx.h, '/sub/acme/bulk?since=unknown', bearer('sub-acme'));
    await waitUntil(() => s.comments.some((c) => /truncat/i.test(c)), 'the truncation comment');
    await publishJson(ctx.h, '/pub/acme/bulk', { i: 9_999 });
    await waitUntil(() => ns(s).at(-1) === 9_999, 'the live message after the replay', 20_000);
    const replayed = ns(s).slice(0, -1);
    expect(replayed.at(-1)).toBe(599);
    expect(replayed.length).toBeLessThan(600);
    expect(replayed.length).toBeGreaterThan(480);
    expect(replayed).toEqual(
      Array.from({ length: replayed.length }, (_, k) => 600 - replayed.length + k),
    );
  });

  it('drops a stream whose live buffer passes 1 MiB while it is stalled in catch-up', async () => {
    seed(500, 8_300);
    const s = await openSse(ctx.h, '/sub/acme/bulk?since=unknown', bearer('sub-acme'));
    s.pause();
    const body = { pad: 'q'.repeat(60_000) };
    for (let n = 0; n < 40 && ctx.h.broker.httpPublish.streams() > 0; n++) {
      await publishJson(ctx.h, '/pub/acme/bulk', body);
    }
    await waitUntil(() => ctx.h.broker.httpPublish.streams() === 0, 'the stream dropped');
  });
});
