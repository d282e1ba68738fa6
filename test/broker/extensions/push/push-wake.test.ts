/**
 * When a wake is sent and what it carries (`spec/protocol-extensions.md` §6.5–§6.8.2): the
 * plain trigger R92–R99 with the null transport, gone-pruning (R83), and UnifiedPush end to end
 * against a local sink (R89, R91) with token-free logs, plus Note 6-E's opt-in retries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MetricName } from '../../../../shared/metric-names';
import { FORBIDDEN_WAKE_KEYS } from '../../../../broker/extensions/push/push-types';
import {
  exactConsumeEvent,
  produce,
  subscribe,
  type Harness,
} from '../../../helpers/broker-harness';
import { waitFor, waitUntil, waitUntilAsync } from '../../../helpers/wait';
import { captureLogs } from '../../../support/log-capture';
import { registerPush, registrations, startPushBroker, startSink, type Sink } from './push-clients';
import { NullTransport } from '../../../../broker/extensions/push/null-transport';
import { startBroker, type BrokerSettings } from '../../../helpers/broker-harness';
import { b64, mintMaterial, sendSealed, setUak, uakOf } from '../sealed/sealed-clients';

const opened: Array<Harness | Sink> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

const EVENT = 'relay.new_request';

async function broker(env: Record<string, string>, options = {}) {
  const started = await startPushBroker(env, options);
  opened.push(started.h);
  return started;
}

/** Consumer `name` subscribed to (pubber, EVENT), endpoint registered, then gone offline. */
async function offlineConsumer(h: Harness, name: string, push: object, durable = false) {
  const s = await h.consumer(name);
  await subscribe(s, name, 'pubber', EVENT, { durable });
  expect(await registerPush(s, { identity: name, ...push })).toMatchObject({ ok: true });
  await h.disconnect(s);
}

/** Reconnects `name` with a durable subscription and returns the first delivered message. */
async function drain(h: Harness, name: string): Promise<unknown> {
  const s = await h.consumer(name);
  const got = waitFor(s, exactConsumeEvent('pubber', EVENT));
  await subscribe(s, name, 'pubber', EVENT, { durable: true });
  return got;
}

function expectContentless(payload: object) {
  expect(payload).toEqual({ type: 'wake', v: 1 });
  for (const k of [...FORBIDDEN_WAKE_KEYS, 'event', 'consumer'])
    expect(payload).not.toHaveProperty(k);
}

describe('plain wakes with the null transport (§6.5, R92–R99)', () => {
  it('R92, R95: one contentless wake for guaranteed messages to an offline consumer; queued', async () => {
    const { h, nul } = await broker({ TYO_MQ_PUSH_TRANSPORT: 'null' });
    await offlineConsumer(h, 'carol', { transport: 'null', token: 'tok-carol', app_id: 'ops' });
    const pub = await h.producer('pubber');
    for (let i = 0; i < 3; i++)
      produce(pub, 'pubber', EVENT, { ticket: 42 + i }, { guaranteed: true });
    await h.settle(pub);
    await waitUntil(() => nul.sent.length >= 1, 'a wake');
    await h.settle(pub);
    expect(nul.sent).toHaveLength(1);
    expect(nul.sent[0]).toMatchObject({ token: 'tok-carol', app_id: 'ops' });
    expectContentless(nul.sent[0]!.payload);
    expect(JSON.stringify(nul.sent)).not.toContain('42');
    expect(await drain(h, 'carol')).toMatchObject({ message: { ticket: 42 } });
  });

  it('R93, R94: an online consumer and a fire-and-forget message wake nobody', async () => {
    const { h, nul } = await broker({ TYO_MQ_PUSH_TRANSPORT: 'null' });
    const pub = await h.producer('pubber');
    const online = await h.consumer('dave');
    await subscribe(online, 'dave', 'pubber', EVENT);
    expect(
      await registerPush(online, { identity: 'dave', transport: 'null', token: 'tok-d' }),
    ).toMatchObject({ ok: true });
    const live = waitFor(online, exactConsumeEvent('pubber', EVENT));
    produce(pub, 'pubber', EVENT, { n: 1 }, { guaranteed: true });
    await live;
    await offlineConsumer(h, 'erin', { transport: 'null', token: 'tok-e' });
    produce(pub, 'pubber', EVENT, { n: 2 });
    await h.settle(pub, online);
    expect(nul.sent).toEqual([]);
    expect(await registrations(h)).toBe(2);
  });

  it('R96: two offline consumers get one wake each', async () => {
    const { h, nul } = await broker({ TYO_MQ_PUSH_TRANSPORT: 'null' });
    await offlineConsumer(h, 'op1', { transport: 'null', token: 'tok-op1' });
    await offlineConsumer(h, 'op2', { transport: 'null', token: 'tok-op2' });
    const pub = await h.producer('pubber');
    produce(pub, 'pubber', EVENT, { x: 1 }, { guaranteed: true });
    await waitUntil(() => nul.sent.length === 2, 'two wakes');
    expect(nul.sent.map((w) => w.token).sort()).toEqual(['tok-op1', 'tok-op2']);
  });

  it('R98: configured but no endpoint: no wake, still queued', async () => {
    const { h, nul } = await broker({ TYO_MQ_PUSH_TRANSPORT: 'null' });
    const s = await h.consumer('carol');
    await subscribe(s, 'carol', 'pubber', EVENT, { durable: true });
    await h.disconnect(s);
    const pub = await h.producer('pubber');
    produce(pub, 'pubber', EVENT, { q: 1 }, { guaranteed: true });
    await h.settle(pub);
    expect(nul.sent).toEqual([]);
    expect(await drain(h, 'carol')).toMatchObject({ message: { q: 1 } });
  });

  it('R99: a wake that throws synchronously never makes the delivery fail', async () => {
    let calls = 0;
    const { h, nul } = await broker(
      { TYO_MQ_PUSH_TRANSPORT: 'null' },
      {
        push: {
          onWake: () => {
            calls += 1;
            throw new Error('wake exploded');
          },
        },
      },
    );
    await offlineConsumer(h, 'carol', { transport: 'null', token: 'tok-carol' }, true);
    const pub = await h.producer('pubber');
    produce(pub, 'pubber', EVENT, { once: true }, { guaranteed: true });
    await h.settle(pub);
    expect(calls).toBe(1);
    expect(nul.sent).toEqual([]);
    const s = await h.consumer('carol');
    const got: unknown[] = [];
    s.on(exactConsumeEvent('pubber', EVENT), (m: unknown) => got.push(m));
    await subscribe(s, 'carol', 'pubber', EVENT, { durable: true });
    await waitUntil(() => got.length === 1, 'the queued message');
    await h.settle(s);
    expect(got).toHaveLength(1);
  });

  it('R83: a token the transport reports gone is pruned after the wake', async () => {
    const { h, nul } = await broker({ TYO_MQ_PUSH_TRANSPORT: 'null' });
    await offlineConsumer(h, 'bob', { transport: 'null', token: 'tok-bob' });
    nul.markGone('tok-bob');
    const pub = await h.producer('pubber');
    produce(pub, 'pubber', EVENT, { g: 1 }, { guaranteed: true });
    await waitUntilAsync(async () => (await registrations(h)) === 0, 'the endpoint pruned');
  });
});

describe('UnifiedPush end to end against a local sink (R89, R91, Note 6-E)', () => {
  const env = { TYO_MQ_PUSH_TRANSPORT: 'unifiedpush', TYO_MQ_PUSH_ALLOW_LOCAL: '1' };

  async function sinkBroker(status: number, extra: Record<string, string> = {}) {
    const sink = await startSink(status);
    opened.push(sink);
    const logs = captureLogs('debug');
    const { h } = await broker(
      { ...env, ...extra },
      { logger: logs.logger, push: { retryBaseMs: 20 } },
    );
    await offlineConsumer(h, 'bob', { transport: 'unifiedpush', endpoint: sink.url });
    const pub = await h.producer('pubber');
    produce(pub, 'pubber', EVENT, { secret: 'do-not-leak' }, { guaranteed: true });
    return { sink, logs, h, pub };
  }

  it('R89: one POST with exactly {"type":"wake","v":1}', async () => {
    const { sink } = await sinkBroker(200);
    await waitUntil(() => sink.requests.length === 1, 'one POST');
    const [req] = sink.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/wake/abc');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.body).toBe('{"type":"wake","v":1}');
    expectContentless(JSON.parse(req!.body) as object);
  });

  it('R91: 410 prunes with a token-free warning; no log line names the URL or host:port', async () => {
    const { sink, logs, h } = await sinkBroker(410);
    await waitUntilAsync(async () => (await registrations(h)) === 0, 'the endpoint pruned');
    const warn = logs.lines.find((l) => String(l.msg).includes('push wake failed'));
    expect(warn?.msg).toContain('reason=gone');
    expect(warn?.msg).toContain('transport=unifiedpush');
    const host = new URL(sink.url).host;
    expect(logs.text()).not.toContain(host);
    expect(logs.text()).not.toContain('/wake/abc');
  });

  it('R91: 500 gets one POST and the endpoint is kept (no retry by default)', async () => {
    const { sink, h, logs } = await sinkBroker(500);
    await waitUntil(
      () => logs.lines.some((l) => String(l.msg).includes('reason=transient')),
      'the transient warning',
    );
    expect(sink.requests).toHaveLength(1);
    expect(await registrations(h)).toBe(1);
  });

  it('Note 6-E: with TYO_MQ_PUSH_RETRY=1 a 500 is retried twice with backoff, counted', async () => {
    const { sink, h } = await sinkBroker(500, { TYO_MQ_PUSH_RETRY: '1' });
    await waitUntil(() => sink.requests.length === 3, 'two retries');
    const metrics = await (await fetch(`${h.url}/api/metrics`)).text();
    expect(metrics).toContain(`${MetricName.PUSH_WAKE_RETRIES_TOTAL}{transport="unifiedpush"} 2`);
    expect(metrics).toMatch(
      new RegExp(
        `${MetricName.PUSH_WAKES_TOTAL}\\{transport="unifiedpush",outcome="transient"\\} [23]`,
      ),
    );
  });
});

describe('the sealed trigger (§6.5 trigger 1, §4.6 step 3)', () => {
  it('a queued SEALED_DELIVER wakes its offline recipient, contentless; an online one is not woken', async () => {
    const nul = new NullTransport();
    const m = mintMaterial();
    const h = await startBroker(
      { auth: { realms: { default: { e2ee: 'opportunistic' } } } } as BrokerSettings,
      { env: { ...m.env, TYO_MQ_PUSH_TRANSPORT: 'null' }, push: { nullTransport: nul } },
    );
    opened.push(h);
    const bob = await h.consumer('bob');
    expect(await setUak(bob, 'bob', uakOf(3))).toMatchObject({ ok: true });
    expect(
      await registerPush(bob, { identity: 'bob', transport: 'null', token: 'tok-bob' }),
    ).toMatchObject({ ok: true });
    const anon = await h.connect();
    // Online: delivered live, nobody woken.
    expect(await sendSealed(anon, 'default', 'bob', uakOf(3), b64('live'), 'm1')).toMatchObject({
      delivered: 'online',
    });
    await h.disconnect(bob);
    expect(await sendSealed(anon, 'default', 'bob', uakOf(3), b64('secret'), 'm2')).toEqual({
      ok: true,
      delivered: 'queued',
    });
    await waitUntil(() => nul.sent.length === 1, 'one wake for the queued blob');
    expect(nul.sent[0]).toMatchObject({ token: 'tok-bob' });
    expectContentless(nul.sent[0]!.payload);
    expect(JSON.stringify(nul.sent)).not.toContain(b64('secret'));
  });
});
