/**
 * The push modules called directly (`spec/protocol-extensions.md` §6.1, §6.4, §6.6–§6.8.2):
 * the payload guard (R75), config loading (R76, R121–R123, R126–R127), the registry cap and
 * coalescing (R77–R78), `fireWake` (R79, R124), the SSRF guard (R86, R87, Note 6-C) and the
 * UnifiedPush transport against a local sink (R88).
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { IdentityStateMap } from '../../../../broker/extensions/identity-state-map';
import { NullTransport } from '../../../../broker/extensions/push/null-transport';
import { loadPushConfig, transportNames } from '../../../../broker/extensions/push/push-config';
import { PushRegistry } from '../../../../broker/extensions/push/push-registry';
import { PushService } from '../../../../broker/extensions/push/push-runtime';
import {
  buildWakePayload,
  PushEndpointListSchema,
  type PushEndpoint,
} from '../../../../broker/extensions/push/push-types';
import { isSafePushUrl } from '../../../../broker/extensions/push/ssrf-guard';
import { UnifiedPushTransport } from '../../../../broker/extensions/push/unifiedpush-transport';
import { startSink, type Sink } from './push-clients';

const logger = pino({ level: 'silent' });
const sinks: Sink[] = [];
afterEach(async () => {
  for (const s of sinks.splice(0)) await s.close();
});

function registry(cap?: number) {
  const map = new IdentityStateMap<PushEndpoint[]>(
    'push',
    PushEndpointListSchema,
    undefined,
    logger,
  );
  return new PushRegistry(map, cap);
}

const ep = (token: string) => ({ transport: 'null', token, app_id: null, env: null });
const full = (token: string, transport: string): PushEndpoint => ({
  ...ep(token),
  transport,
  added_at: 0,
  last_ok: null,
});

describe('payload and config (R75, R76, R121–R127)', () => {
  it('R75: the payload is contentless; the guard refuses content keys', () => {
    expect(buildWakePayload()).toEqual({ type: 'wake', v: 1 });
    for (const k of ['sender', 'msg_id', 'blob']) {
      expect(() => buildWakePayload({ [k]: 'x' })).toThrow(/forbidden key/);
    }
  });

  it('R76, R122, R126, R127: names, off, unknown, fcm/apns', () => {
    expect(loadPushConfig({})).toBeNull();
    expect(loadPushConfig({ TYO_MQ_PUSH_TRANSPORT: '  , ,' })).toBeNull();
    expect([...loadPushConfig({ TYO_MQ_PUSH_TRANSPORT: 'null' })!.transports.keys()]).toEqual([
      'null',
    ]);
    expect(() => loadPushConfig({ TYO_MQ_PUSH_TRANSPORT: 'bogus' })).toThrow(
      /unknown push transport: bogus/,
    );
    expect(() => loadPushConfig({ TYO_MQ_PUSH_TRANSPORT: 'null,bogus' })).toThrow(
      /unknown push transport/,
    );
    expect(transportNames('  fcm , , apns ,unifiedpush,')).toEqual(['fcm', 'apns', 'unifiedpush']);
  });

  it('R123: allow-local only with unifiedpush listed and the flag set', () => {
    const up = { TYO_MQ_PUSH_TRANSPORT: 'unifiedpush' };
    expect(loadPushConfig({ ...up, TYO_MQ_PUSH_ALLOW_LOCAL: ' YES ' })!.allowLocal).toBe(true);
    expect(loadPushConfig(up)!.allowLocal).toBe(false);
    expect(
      loadPushConfig({ TYO_MQ_PUSH_TRANSPORT: 'null', TYO_MQ_PUSH_ALLOW_LOCAL: '1' })!.allowLocal,
    ).toBe(false);
  });
});

describe('registry and fireWake (R77–R79, R124)', () => {
  it('R77: cap 3, refresh in place, eviction in registration order, prune, __proto__', async () => {
    const r = registry(3);
    await r.register('r', 'bob', ep('t1'));
    expect(await r.register('r', 'bob', ep('t1'))).toBe(1);
    for (const t of ['t2', 't3', 't4']) await r.register('r', 'bob', ep(t));
    expect(r.endpoints('r', 'bob').map((e) => e.token)).toEqual(['t2', 't3', 't4']);
    expect(r.count('r', 'carol') + r.count('other', 'bob')).toBe(0);
    expect(await r.remove('r', 'bob', 'null', 't3')).toBe(1);
    expect(r.endpoints('r', 'bob').map((e) => e.token)).toEqual(['t2', 't4']);
    expect(r.count('r', '__proto__')).toBe(0);
  });

  it('R78: coalescing window per (realm, identity)', () => {
    const r = registry();
    expect(r.claimWindow('r', 'bob', 1000)).toBe(true);
    expect(r.claimWindow('r', 'bob', 1500)).toBe(false);
    expect(r.claimWindow('r', 'carol', 1500)).toBe(true);
    expect(r.claimWindow('r', 'bob', 40000)).toBe(true);
  });

  it('R79, R124: unconfigured, no endpoints, sent, coalesced; each endpoint through its own transport', async () => {
    const r = registry();
    const unconfigured = new PushService({
      config: null,
      registry: r,
      logger,
      registry_metrics: new Registry(),
      clustered: false,
    });
    expect(await unconfigured.fireWake('r', 'bob')).toEqual({ sent: 0, skipped: 'unconfigured' });
    const nul = new NullTransport();
    const push = new PushService({
      config: { transports: new Map([['null', nul]]), allowLocal: false, retry: false },
      registry: r,
      logger,
      registry_metrics: new Registry(),
      clustered: false,
    });
    expect(await push.fireWake('r', 'bob')).toEqual({ sent: 0, skipped: 'no-endpoints' });
    await r.register('r', 'bob', ep('tok'));
    await r.register('r', 'bob', { ...ep('fcm-tok'), transport: 'fcm' });
    await r.register('r', 'bob', { ...ep('p'), transport: '__proto__' });
    expect(await push.fireWake('r', 'bob')).toEqual({ sent: 3 });
    expect(nul.sent.map((s) => s.token)).toEqual(['tok']);
    expect(r.endpoints('r', 'bob')[0]!.last_ok).not.toBeNull();
    expect(await push.fireWake('r', 'bob')).toEqual({ sent: 0, skipped: 'coalesced' });
  });
});

describe('SSRF guard (§6.8.2, R86, R87, Note 6-C)', () => {
  const refused = [
    'http://169.254.169.254/latest/meta-data/',
    'https://169.254.169.254/x',
    'https://127.0.0.1/x',
    'https://10.0.0.5/x',
    'https://192.168.1.1/x',
    'https://172.16.5.5/x',
    'https://0.0.0.0/x',
    'https://[::1]/x',
    'https://[fc00::1]/x',
    'https://[fe80::1]/x',
    'https://[64:ff9b::a9fe:a9fe]/x',
    'https://[2002:a9fe:a9fe::]/x',
    'https://[::a9fe:a9fe]/x',
    'https://[64:ff9b::7f00:1]/x',
    'https://[fec0::1]/x',
    'https://[100::1]/x',
    'https://[::ffff:10.0.0.1]/x',
    'http://example.com/x',
    'ftp://example.com/x',
    'https://user:pass@1.1.1.1/x',
    'not a url',
    'A'.repeat(4097),
    // Note 6-C
    'https://100.64.0.1/x',
    'https://192.0.2.1/x',
    'https://198.18.0.1/x',
    'https://203.0.113.9/x',
    'https://224.0.0.1/x',
    'https://255.255.255.255/x',
    'https://[2001::1]/x',
    'https://[2001:db8::1]/x',
  ];
  it.each(refused)('refuses %s with the flag off', async (url) => {
    expect((await isSafePushUrl(url, false, () => Promise.resolve(['93.184.216.34']))).ok).toBe(
      false,
    );
  });

  it.each([
    'https://1.1.1.1/wake',
    'https://172.32.0.1/x',
    'https://[2606:4700:4700::1111]/x',
    'https://[2002:0808:0808::]/x',
  ])('accepts %s', async (url) => {
    expect((await isSafePushUrl(url, false)).ok).toBe(true);
  });

  it('flag on: loopback over http/https accepted, http to a public host still refused', async () => {
    expect((await isSafePushUrl('http://127.0.0.1:8080/wake', true)).ok).toBe(true);
    expect((await isSafePushUrl('https://127.0.0.1/x', true)).ok).toBe(true);
    const pub = await isSafePushUrl('http://example.com/x', true, () =>
      Promise.resolve(['93.184.216.34']),
    );
    expect(pub).toEqual({ ok: false, reason: 'http-non-local' });
  });

  it('R87: DNS answers are classified; a send whose resolution turns private is unsafe', async () => {
    const to = (a: string) => () => Promise.resolve([a]);
    expect(await isSafePushUrl('https://push.example/x', false, to('10.1.2.3'))).toEqual({
      ok: false,
      reason: 'blocked-address',
    });
    expect((await isSafePushUrl('https://push.example/x', false, to('93.184.216.34'))).ok).toBe(
      true,
    );
    expect(
      await isSafePushUrl('https://push.example/x', false, () => Promise.reject(new Error('x'))),
    ).toEqual({ ok: false, reason: 'dns-failed' });
    const sink = await startSink(200);
    sinks.push(sink);
    const t = new UnifiedPushTransport({ allowLocal: true, resolve: to('10.1.2.3') });
    const url = sink.url.replace('127.0.0.1', 'sink.test');
    expect(await t.send(full(url, 'unifiedpush'), buildWakePayload())).toMatchObject({
      ok: false,
      unsafe: true,
    });
    expect(sink.requests).toEqual([]);
  });
});

describe('UnifiedPush transport (R88)', () => {
  const send = (t: UnifiedPushTransport, url: string) =>
    t.send(full(url, 'unifiedpush'), buildWakePayload());

  it('200 ok with one POST; 410/404 gone; 500 not ok; a silent sink times out', async () => {
    const sink = await startSink(200);
    sinks.push(sink);
    const t = new UnifiedPushTransport({ allowLocal: true, timeoutMs: 300 });
    expect(await send(t, sink.url)).toEqual({ ok: true });
    expect(sink.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { type: 'wake', v: 1 },
    ]);
    expect(sink.requests[0]!.headers['content-length']).toBe('21');
    sink.status = 410;
    expect(await send(t, sink.url)).toEqual({ ok: false, gone: true });
    sink.status = 404;
    expect(await send(t, sink.url)).toEqual({ ok: false, gone: true });
    sink.status = 500;
    expect(await send(t, sink.url)).toMatchObject({ ok: false });
    expect((await send(t, sink.url)).gone).toBeUndefined();
    sink.status = null;
    const silent = await send(t, sink.url);
    expect(silent.ok).toBe(false);
    expect(silent.gone).toBeUndefined();
  });

  it('refuses loopback without the flag, without connecting', async () => {
    const sink = await startSink(200);
    sinks.push(sink);
    const t = new UnifiedPushTransport({ allowLocal: false });
    expect(await send(t, sink.url.replace('http:', 'https:'))).toMatchObject({
      ok: false,
      unsafe: true,
    });
    expect(sink.requests).toEqual([]);
  });
});
