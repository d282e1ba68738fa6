/**
 * `POST /pub` (`spec/protocol-extensions.md` §5.3, R51–R57): socket.io, MQTT and durable
 * consumers receive an HTTP publish as a `PRODUCE`; auth refusals, 405/400/413/429, the realm
 * E2EE `required` refusal, and the Host/Origin request policy.
 */
import { describe, expect, it } from 'vitest';
import { anyProducerKey, consumeEvent, Protocol } from '../../../shared/protocol-events';
import { consumerIn, startAuthBroker, useAuthBroker } from '../../helpers/auth-clients';
import { subscribe, sync } from '../../helpers/broker-harness';
import { mqttClient, nextMessage } from '../../helpers/mqtt-clients';
import { collect, expectNothing, waitFor } from '../../helpers/wait';
import { ON, publish, publishJson, TOKENS } from './http-publish-fixtures';

const ANY = Protocol.ALL_PUBLISHERS;

describe('flag off (R51)', () => {
  const ctx = useAuthBroker({ tokens: TOKENS });

  it('answers a claimed path 404 JSON, the env var turns it on', async () => {
    const r = await publishJson(ctx.h, '/pub/acme/notify', { a: 1 });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ ok: false, code: 404, message: 'not found' });
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const h = await startAuthBroker(
      { tokens: TOKENS },
      {},
      { env: { TYO_MQ_HTTP_PUBLISH_ENABLED: 'true' } },
    );
    try {
      expect((await publishJson(h, '/pub/acme/notify', { a: 1 })).status).toBe(202);
    } finally {
      await h.close();
    }
  });
});

describe('POST /pub (flag on)', () => {
  const ctx = useAuthBroker({ tokens: TOKENS }, { ...ON, mqtt: { enabled: true, port: 0 } });

  it('R52: a socket consumer gets one JSON publish with event and content_type', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'c1');
    await subscribe(c, 'c1', ANY, 'notify');
    const got = collect(c, consumeEvent(anyProducerKey('notify')), 1);
    const r = await publishJson(ctx.h, '/pub/acme/notify', { hello: 'world', n: 42 });
    expect(r.status).toBe(202);
    expect(r.body.ok).toBe(true);
    expect(r.body.msg_id).toMatch(/^m-[0-9a-f]{24}$/);
    const [msg] = (await got) as Record<string, unknown>[];
    expect(msg).toEqual({
      event: 'notify',
      message: { hello: 'world', n: 42 },
      from: 'http:581e7ddd',
      content_type: 'application/json',
    });
    await expectNothing(c, consumeEvent(anyProducerKey('notify')));
    // Note 5-H: no placeholder producer in the realm registry.
    expect(ctx.h.rawStats().realms.acme?.producers.total ?? 0).toBe(0);
  });

  it('R53: the ?event= form with text/plain delivers the raw string', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'c1');
    await subscribe(c, 'c1', ANY, 'alerts');
    const got = waitFor(c, consumeEvent(anyProducerKey('alerts')));
    const r = await publish(ctx.h, '/pub/acme?event=alerts', {
      body: 'plain-text-body',
      type: 'text/plain',
    });
    expect(r.status).toBe(202);
    expect(await got).toMatchObject({ message: 'plain-text-body', content_type: 'text/plain' });
  });

  it('R54: no token 401, an invalid token 401, another realm 403, a consumer token 403', async () => {
    expect(await publish(ctx.h, '/pub/acme/notify', { token: null })).toMatchObject({
      status: 401,
      body: { ok: false, code: 401, message: 'Bearer token required' },
    });
    expect(await publish(ctx.h, '/pub/acme/notify', { token: 'nope' })).toMatchObject({
      status: 401,
      body: { message: 'invalid token' },
    });
    expect(await publish(ctx.h, '/pub/acme/notify', { token: 'pub-other' })).toMatchObject({
      status: 403,
      body: { message: 'token is not scoped to this realm' },
    });
    expect(await publish(ctx.h, '/pub/acme/notify', { token: 'sub-acme' })).toMatchObject({
      status: 403,
      body: { message: 'token is not authorized to publish' },
    });
  });

  it('R55: ?guaranteed=1 reaches a durable subscriber that was offline', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'worker');
    await subscribe(c, 'worker', ANY, 'jobs', { durable: true });
    await ctx.h.disconnect(c);
    expect(
      (await publishJson(ctx.h, '/pub/acme/jobs?guaranteed=1', { task: 'offline-work' })).status,
    ).toBe(202);
    await ctx.h.broker.settled();
    const back = await consumerIn(ctx.h, { token: 'sub-acme' }, 'worker');
    const got = waitFor(back, consumeEvent(anyProducerKey('jobs')));
    await subscribe(back, 'worker', ANY, 'jobs', { durable: true });
    expect(await got).toMatchObject({ message: { task: 'offline-work' } });
  });

  it('R56: a 128 KiB body answers 413 and nothing is delivered', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'c1');
    await subscribe(c, 'c1', ANY, 'notify');
    const quiet = expectNothing(c, consumeEvent(anyProducerKey('notify')));
    const r = await publish(ctx.h, '/pub/acme/notify', {
      body: 'x'.repeat(128 * 1024),
      type: 'text/plain',
    });
    expect(r).toMatchObject({
      status: 413,
      body: { ok: false, code: 413, message: 'payload too large' },
    });
    await quiet;
    // Exactly the cap passes.
    expect((await publish(ctx.h, '/pub/acme/notify', { body: 'x'.repeat(65_536) })).status).toBe(
      202,
    );
  });

  it('R57: GET is 405 with allow: POST; a missing event, a bad path or a prototype key is 400', async () => {
    const r = await publish(ctx.h, '/pub/acme/notify', { method: 'GET' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.body).toEqual({ ok: false, code: 405, message: 'method not allowed' });
    expect((await publish(ctx.h, '/pub/acme')).body.message).toBe('realm and event are required');
    expect((await publish(ctx.h, '/pub/acme?event=')).status).toBe(400);
    expect((await publish(ctx.h, '/pub')).body.message).toBe('malformed publish path');
    expect((await publish(ctx.h, '/pub/a/b/c')).body.message).toBe('malformed publish path');
    expect((await publish(ctx.h, '/pub/acme/__proto__')).body.message).toBe(
      'invalid realm or event',
    );
    // Not claimed: left to the admin API (its bare 403).
    expect((await publish(ctx.h, '/publish/acme/x')).status).not.toBe(400);
  });

  it('an MQTT.js subscriber receives an HTTP publish; %2F makes a topic level', async () => {
    const m = await mqttClient(ctx.h, { username: 'acme', password: 'sub-acme' });
    await m.subscribeAsync('sensors/#', { qos: 0 });
    const got = nextMessage(m);
    expect((await publishJson(ctx.h, '/pub/acme/sensors%2Ftemp', { c: 21 })).status).toBe(202);
    const msg = await got;
    expect(msg.topic).toBe('sensors/temp');
    expect(JSON.parse(msg.text)).toEqual({ c: 21 });
  });

  it('broadcast=1 is a realm broadcast', async () => {
    const c = await consumerIn(ctx.h, { token: 'sub-acme' }, 'c1');
    await subscribe(c, 'c1', ANY, 'news');
    await sync(c);
    const got = waitFor(c, consumeEvent('news'));
    expect((await publish(ctx.h, '/pub/acme/news?broadcast=1', { body: 'all' })).status).toBe(202);
    expect(await got).toMatchObject({ message: 'all', event: 'news' });
  });

  it('refuses a browser origin the request policy does not allow, and sends no CORS header', async () => {
    const r = await publish(ctx.h, '/pub/acme/notify', {
      headers: { origin: 'https://evil.example' },
    });
    expect(r.status).toBe(403);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const ok = await publish(ctx.h, '/pub/acme/notify', {
      headers: { origin: `http://127.0.0.1:${ctx.h.port}` },
    });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('POST /pub with limits and the E2EE policy', () => {
  const ctx = useAuthBroker(
    { tokens: TOKENS, realms: { other: { e2ee: 'required' } } },
    { ...ON, limits: { enabled: true, messages_per_second: 1, message_burst: 1 } },
  );

  it('429 with retry_after and Retry-After once the msg:http:<ip> bucket is empty', async () => {
    expect((await publish(ctx.h, '/pub/acme/notify')).status).toBe(202);
    const r = await publish(ctx.h, '/pub/acme/notify');
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ ok: false, code: 429, message: 'rate limit reached' });
    expect(r.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('retry-after')).toBe(String(r.body.retry_after));
  });

  it('refuses every publish in a realm whose E2EE policy is required (§1.6)', async () => {
    const r = await publish(ctx.h, '/pub/other/notify', { token: 'pub-other' });
    expect(r).toEqual(
      expect.objectContaining({
        status: 403,
        body: {
          ok: false,
          code: -6,
          message: "Realm 'other' requires end-to-end encrypted messages",
        },
      }),
    );
  });
});
