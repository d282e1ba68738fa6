/**
 * `POST /sub-ticket` and `GET /sub` (`spec/protocol-extensions.md` §5.4–§5.6, R58–R68):
 * frames, tickets, refusals, caps, cleanup, keep-alive, relayed messages, and a reader that
 * never reads.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { anyProducerKey, consumeEvent, Protocol } from '../../../shared/protocol-events';
import { consumerIn, useAuthBroker } from '../../helpers/auth-clients';
import { subscribe } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { openSse } from '../../helpers/sse-reader';
import { waitFor, waitUntil } from '../../helpers/wait';
import { bearer, ON, publish, publishJson, TOKENS } from './http-publish-fixtures';

describe('flag off (R58)', () => {
  const ctx = useAuthBroker({ tokens: TOKENS });

  it('answers GET /sub and POST /sub-ticket 404', async () => {
    expect(
      (await publish(ctx.h, '/sub/acme/notify', { method: 'GET', token: 'sub-acme' })).status,
    ).toBe(404);
    expect((await publish(ctx.h, '/sub-ticket/acme', { token: 'sub-acme' })).status).toBe(404);
  });
});

describe('GET /sub (flag on)', () => {
  const ctx = useAuthBroker({ tokens: TOKENS }, ON);

  it('R59, R66: opens with the stream headers and ": ok", then one frame per publish', async () => {
    const s = await openSse(ctx.h, '/sub/acme/notify', bearer('sub-acme'));
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toBe('text/event-stream');
    expect(s.headers['cache-control']).toBe('no-cache');
    expect(s.headers['x-accel-buffering']).toBe('no');
    expect(s.headers['access-control-allow-origin']).toBeUndefined();
    await waitUntil(() => s.comments.includes('ok'), 'the ": ok" comment', 200);
    const r = await publishJson(ctx.h, '/pub/acme/notify', { hello: 'world', n: 7 });
    const [frame] = await s.waitFrames(1);
    expect(frame).toEqual({
      id: r.body.msg_id,
      event: 'message',
      data: {
        event: 'notify',
        data: { hello: 'world', n: 7 },
        producer: 'http:581e7ddd',
        content_type: 'application/json',
      },
    });
    // Exact (realm, event) only (§5.6): another event and another case do not arrive.
    await publishJson(ctx.h, '/pub/acme/Notify', { n: 8 });
    await publishJson(ctx.h, '/pub/acme/notify', { n: 9 });
    await s.waitFrames(2);
    expect((s.frames[1]?.data as { data: unknown }).data).toEqual({ n: 9 });
  });

  it('R60: a socket consumer and a stream each get the publish once', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'c1');
    await subscribe(c, 'c1', Protocol.ALL_PUBLISHERS, 'both');
    const s = await openSse(ctx.h, '/sub/acme/both', bearer('sub-acme'));
    const got = waitFor(c, consumeEvent(anyProducerKey('both')));
    await publishJson(ctx.h, '/pub/acme/both', { x: 1 });
    expect(await got).toMatchObject({ content_type: 'application/json' });
    await s.waitFrames(1);
    await publishJson(ctx.h, '/pub/acme/both', { x: 2 });
    await s.waitFrames(2);
    expect(s.frames.map((f) => (f.data as { data: unknown }).data)).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it('a socket PRODUCE reaches a stream, with its well-formed id as the delivery id', async () => {
    const s = await openSse(ctx.h, '/sub/acme/job', bearer('sub-acme'));
    const p = await consumerIn(ctx.h, { token: 'both-acme' }, 'fleet');
    p.emit('PRODUCE', { event: 'job', message: 'a', from: 'fleet', id: 'client-id-1' });
    p.emit('PRODUCE', { event: 'job', message: 'b', from: 'fleet', id: 'bad id with spaces' });
    const [a, b] = await s.waitFrames(2);
    expect(a?.id).toBe('client-id-1');
    expect(b?.id).toMatch(/^m-[0-9a-f]{24}$/);
    expect(b?.data).toEqual({ event: 'job', data: 'b', producer: 'fleet' });
  });

  it('R61: no credential 401, ?token= 401, another realm 403, a producer token 403', async () => {
    const get = (path: string, token: string | null = null) =>
      publish(ctx.h, path, { method: 'GET', token });
    expect((await get('/sub/acme/notify')).body.message).toBe('Bearer token or ticket required');
    expect((await get('/sub/acme/notify?token=sub-acme')).body).toEqual({
      ok: false,
      code: 401,
      message: 'use a ticket, not a token, in the query string',
    });
    expect(await get('/sub/acme/notify', 'sub-other')).toMatchObject({ status: 403 });
    expect(await get('/sub/acme/notify', 'pub-acme')).toMatchObject({
      status: 403,
      body: { message: 'token is not authorized to subscribe' },
    });
    expect(await get('/sub/acme')).toMatchObject({ status: 400 });
    const post = await publish(ctx.h, '/sub/acme/notify', { token: 'sub-acme' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('R62, R63: a ticket opens one stream of its realm, is single-use and consumed even when refused', async () => {
    const t = await publish(ctx.h, '/sub-ticket/acme', { token: 'sub-acme' });
    expect(t.status).toBe(200);
    expect(t.body.ticket).toMatch(/^[0-9a-f]{48}$/);
    expect(t.body.expires_in).toBe(60);
    const s = await openSse(ctx.h, `/sub/acme/notify?ticket=${String(t.body.ticket)}`);
    expect(s.status).toBe(200);
    await publishJson(ctx.h, '/pub/acme/notify', { via: 'ticket' });
    await s.waitFrames(1);
    const again = await publish(ctx.h, `/sub/acme/notify?ticket=${String(t.body.ticket)}`, {
      method: 'GET',
      token: null,
    });
    expect(again.body).toEqual({ ok: false, code: 401, message: 'invalid or expired ticket' });

    const t2 = await publish(ctx.h, '/sub-ticket/acme', { token: 'sub-acme' });
    const other = await publish(ctx.h, `/sub/other/notify?ticket=${String(t2.body.ticket)}`, {
      method: 'GET',
      token: null,
    });
    expect(other.body).toEqual({
      ok: false,
      code: 403,
      message: 'ticket is not scoped to this realm',
    });
    const reused = await publish(ctx.h, `/sub/acme/notify?ticket=${String(t2.body.ticket)}`, {
      method: 'GET',
      token: null,
    });
    expect(reused.status).toBe(401);
    expect((await publish(ctx.h, '/sub-ticket/acme', { token: 'nope' })).status).toBe(401);
    expect((await publish(ctx.h, '/sub-ticket/acme', { token: 'pub-acme' })).status).toBe(403);
    expect((await publish(ctx.h, '/sub-ticket/acme', { method: 'GET' })).status).toBe(405);
  });

  it('R64: a closed stream leaves the count at its baseline; publishing still works', async () => {
    const base = ctx.h.broker.httpPublish.streams();
    const s = await openSse(ctx.h, '/sub/acme/notify', bearer('sub-acme'));
    await waitUntil(() => ctx.h.broker.httpPublish.streams() === base + 1, 'the stream registered');
    s.close();
    await waitUntil(() => ctx.h.broker.httpPublish.streams() === base, 'the stream removed', 500);
    expect((await publishJson(ctx.h, '/pub/acme/notify', {})).status).toBe(202);
  });

  it('R65: ten streams from one IP open, the eleventh answers 429 with Retry-After', async () => {
    const streams = await Promise.all(
      Array.from({ length: 10 }, () => openSse(ctx.h, '/sub/acme/notify', bearer('sub-acme'))),
    );
    expect(streams.map((s) => s.status)).toEqual(Array(10).fill(200));
    const r = await publish(ctx.h, '/sub/acme/notify', { method: 'GET', token: 'sub-acme' });
    expect(r.status).toBe(429);
    expect(r.body.message).toBe('per-IP SSE connection limit reached');
    expect(r.headers.get('retry-after')).not.toBeNull();
    streams[0]!.close();
    await waitUntil(() => ctx.h.broker.httpPublish.streams() === 9, 'one stream gone');
    expect((await openSse(ctx.h, '/sub/acme/notify', bearer('sub-acme'))).status).toBe(200);
  });

  it('R68: a reader that never reads is dropped while 7 MiB flow; the count returns to baseline', async () => {
    const base = ctx.h.broker.httpPublish.streams();
    const raw = connect(ctx.h.port, '127.0.0.1');
    ctx.h.onClose(() => void raw.destroy());
    await new Promise<void>((resolve) => raw.once('connect', () => resolve()));
    raw.write(
      'GET /sub/acme/flood HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sub-acme\r\n\r\n',
    );
    raw.pause();
    await waitUntil(
      () => ctx.h.broker.httpPublish.streams() === base + 1,
      'the raw stream registered',
    );
    const body = 'x'.repeat(60 * 1024);
    for (let i = 0; i < 120 && ctx.h.broker.httpPublish.streams() > base; i++) {
      expect((await publish(ctx.h, '/pub/acme/flood', { body })).status).toBe(202);
    }
    await waitUntil(
      () => ctx.h.broker.httpPublish.streams() === base,
      'the slow reader dropped',
      4_000,
    );
  });
});

describe('GET /sub: keep-alive', () => {
  const ctx = useAuthBroker(
    { tokens: TOKENS },
    { http_publish: { enabled: true, sse_keepalive_ms: 50 } },
  );

  it('sends ": keep-alive" every sse_keepalive_ms', async () => {
    const s = await openSse(ctx.h, '/sub/acme/quiet', bearer('sub-acme'));
    await waitUntil(
      () => s.comments.filter((c) => c === 'keep-alive').length >= 2,
      'two keep-alives',
      2_000,
    );
  });
});

describe('GET /sub with limits, MQTT and metrics', () => {
  const ctx = useAuthBroker(
    { tokens: TOKENS },
    {
      ...ON,
      limits: { enabled: true, messages_per_second: 1, message_burst: 2 },
      mqtt: { enabled: true, port: 0 },
      http_api: { enabled: true, metrics_auth: false },
    },
  );

  it('an MQTT publish reaches a stream; streams opened are counted', async () => {
    const s = await openSse(ctx.h, '/sub/acme/sensors%2Ftemp', bearer('sub-acme'));
    const m = await mqttClient(ctx.h, { username: 'acme', password: 'pub-acme' });
    await m.publishAsync('sensors/temp', '21.5', { qos: 1 });
    const [frame] = await s.waitFrames(1);
    // The MQTT bridge parses a JSON-looking payload (docs/mqtt.md).
    expect(frame?.data).toMatchObject({ event: 'sensors/temp', data: 21.5 });
    const metrics = await (await fetch(`${ctx.h.url}/api/metrics`)).text();
    expect(metrics).toMatch(/tyo_mq_sse_connections_total\{realm="acme"\} 1/);
  });

  it('POST /sub-ticket and GET /sub share the sse: bucket; a refusal is 429 and counted', async () => {
    expect((await publish(ctx.h, '/sub-ticket/acme', { token: 'sub-acme' })).status).toBe(200);
    expect((await openSse(ctx.h, '/sub/acme/notify', bearer('sub-acme'))).status).toBe(200);
    const r = await publish(ctx.h, '/sub/acme/notify', { method: 'GET', token: 'sub-acme' });
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ code: 429, message: 'rate limit reached' });
    // The publish bucket is another one.
    expect((await publish(ctx.h, '/pub/acme/notify')).status).toBe(202);
    const metrics = await (await fetch(`${ctx.h.url}/api/metrics`)).text();
    expect(metrics).toMatch(/tyo_mq_rate_limited_total\{reason="messages_per_second"\} 1/);
  });
});
