/**
 * No silent calls (issue 19): an event the broker does not handle, or refuses before its
 * handler runs, settles the client's acknowledgement callback; without a callback an unknown
 * event gets `ERROR {message, code:-1}`. Unknown events are counted in
 * `tyo_mq_rejected_inputs_total{reason="unknown_event"}` and logged without flooding.
 * Real broker on port 0, real socket.io-client sockets.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_QUEUED_DURING_AUTH } from '../../broker/handlers/event-gate';
import { HttpPath } from '../../shared/http-api';
import { MetricName } from '../../shared/metric-names';
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import { authenticate, startAuthBroker } from '../helpers/auth-clients';
import { startBroker, sync, type Harness } from '../helpers/broker-harness';
import { waitFor } from '../helpers/wait';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

async function broker(logLines?: Array<Record<string, unknown>>): Promise<Harness> {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines?.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const h = await startBroker(
    { http_api: { enabled: true } },
    { logger: pino({ level: logLines ? 'warn' : 'silent' }, sink) },
  );
  harnesses.push(h);
  return h;
}

async function rejected(h: Harness, reason: string): Promise<number> {
  const text = await (await fetch(`${h.url}${HttpPath.METRICS}`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${MetricName.REJECTED_INPUTS_TOTAL}{reason="${reason}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('events no route handles', () => {
  it.each(['UNROUTED_PUBLISH', 'UNROUTED_UNREGISTER', 'no-such-event'])(
    '%s with a callback is answered with the error object naming it',
    async (name) => {
      const h = await broker();
      const s = await h.connect();
      const reply = await s.timeout(1_000).emitWithAck(name, { identity: 'alice' });
      expect(reply).toEqual({
        ok: false,
        code: 501,
        error: 'SWB_ERR_UNKNOWN_EVENT',
        event: name,
        message: `Unknown event '${name}': not handled by this broker`,
      });
      expect(s.connected).toBe(true);
    },
  );

  it('is answered with no payload at all, and with several arguments (the ack comes last)', async () => {
    const h = await broker();
    const s = await h.connect();
    await expect(s.timeout(1_000).emitWithAck('UNROUTED_TAKE')).resolves.toMatchObject({
      ok: false,
      event: 'UNROUTED_TAKE',
    });
    await expect(s.timeout(1_000).emitWithAck('UNROUTED_TAKE', 1, 2, 3)).resolves.toMatchObject({
      ok: false,
      code: 501,
    });
  });

  it('without a callback gets ERROR {message, code:-1}', async () => {
    const h = await broker();
    const s = await h.connect();
    const error = waitFor(s, ServerEvent.ERROR, 1_000);
    s.emit('UNROUTED_PUBLISH', { identity: 'alice', public_key: 'x' });
    expect(await error).toEqual({
      message: "Unknown event 'UNROUTED_PUBLISH': not handled by this broker",
      code: ProtocolErrorCode.BAD_FIELD,
    });
  });

  it('quotes a long name cut to 64 characters', async () => {
    const h = await broker();
    const s = await h.connect();
    const reply = (await s.timeout(1_000).emitWithAck('x'.repeat(5_000))) as { event: string };
    expect(reply.event).toBe(`${'x'.repeat(64)}…`);
  });

  it('an event named `error` is an unknown event, not a malformed packet', async () => {
    const h = await broker();
    const s = await h.connect();
    await expect(s.timeout(1_000).emitWithAck('error', { x: 1 })).resolves.toMatchObject({
      ok: false,
      event: 'error',
    });
    await sync(s);
    expect(s.connected).toBe(true);
    expect(await rejected(h, 'malformed')).toBe(0);
    expect(await rejected(h, 'unknown_event')).toBe(1);
  });

  it('counts every one, logs the first and summarises the rest', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const h = await broker(lines);
    const s = await h.connect();
    for (let i = 0; i < 30; i++) s.emit(`invented-${i}`, { i });
    await s.timeout(1_000).emitWithAck('UNROUTED_PUBLISH', {});
    await sync(s);
    expect(await rejected(h, 'unknown_event')).toBe(31);
    const logged = lines.filter((l) => l.msg === 'unknown event answered');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ name: 'invented-0', reason: 'unknown_event' });
    // Routed events are not affected.
    expect(await s.timeout(1_000).emitWithAck(ClientEvent.PING, {})).toContain('PONG');
    expect(await rejected(h, 'unknown_event')).toBe(31);
  });
});

describe('routed events refused before their handler', () => {
  it('PING with a callback and no payload is answered (the ack is the last argument)', async () => {
    const h = await broker();
    const s = await h.connect();
    const reply = await s.timeout(1_000).emitWithAck(ClientEvent.PING);
    expect(JSON.parse(reply as string)).toMatchObject({ pong: 'PONG' });
  });

  it('an invalid CONSUMER with a callback gets ERROR and a settled callback', async () => {
    const h = await broker();
    const s = await h.connect();
    const error = waitFor(s, ServerEvent.ERROR, 1_000);
    const reply = await s.timeout(1_000).emitWithAck(ClientEvent.CONSUMER, { name: 42 });
    expect(reply).toMatchObject({ ok: false, code: 'SWB_ERR_VALIDATION' });
    expect(await error).toMatchObject({ code: ProtocolErrorCode.BAD_FIELD });
  });

  it('auth on: an event the gate refuses answers its callback (403 and 401)', async () => {
    // A role-declared consumer needs a credential unless the realm opts in (issue 20).
    const h = await startAuthBroker({
      realms: { default: { required: true, allow_tokenless_consumers: true } },
    });
    harnesses.push(h);
    const consumer = await h.connect();
    expect(await authenticate(consumer, { role: 'consumer' })).toMatchObject({ event: 'AUTH_OK' });
    const denied = await consumer
      .timeout(1_000)
      .emitWithAck(ClientEvent.PRODUCE, { event: 'e', message: 1, from: 'p' });
    expect(denied).toEqual({
      ok: false,
      code: 403,
      message: "Role 'consumer' is not allowed to send PRODUCE",
    });
    // Realm `*` never admits implicitly (§18 item 1): refused 401 before the handler.
    const anonymous = await h.connect();
    await authenticate(anonymous, { realm: '*', token: 'wrong' });
    const refused = await anonymous.timeout(1_000).emitWithAck(ClientEvent.PING, {});
    expect(refused).toMatchObject({ ok: false, code: 401 });
  });

  it('an event past the queue of a socket being authenticated answers its callback', async () => {
    let admit: (ok: boolean) => void = () => undefined;
    const decided = new Promise<boolean>((resolve) => (admit = resolve));
    const h = await startBroker(
      { limits: { pre_auth_events: 10_000 } },
      { hooks: { authenticate: () => decided } },
    );
    harnesses.push(h);
    const s = await h.connect();
    s.emit(ClientEvent.AUTHENTICATION, { token: 'anything' });
    const queued = Array.from({ length: MAX_QUEUED_DURING_AUTH }, (_v, i) =>
      s.timeout(5_000).emitWithAck(ClientEvent.PING, { i }),
    );
    const dropped = await s.timeout(1_000).emitWithAck(ClientEvent.PING, { i: 'one too many' });
    expect(dropped).toEqual({
      ok: false,
      code: 429,
      error: 'SWB_ERR_RATE_LIMITED',
      message: `PING dropped: more than ${MAX_QUEUED_DURING_AUTH} events sent during authentication`,
    });
    admit(true);
    expect(await Promise.all(queued)).toHaveLength(MAX_QUEUED_DURING_AUTH);
  });

  it('auth on: an event over the pre-auth budget answers its callback', async () => {
    const h = await startAuthBroker({}, { limits: { pre_auth_events: 2 } });
    harnesses.push(h);
    const s = await h.connect();
    // Proof-gated events are answered by their handler (401, no proof) until the budget is spent.
    await s.timeout(1_000).emitWithAck(ClientEvent.AUTHORIZATION_NEXT, {});
    await s.timeout(1_000).emitWithAck(ClientEvent.AUTHORIZATION_NEXT, {});
    const over = await s.timeout(1_000).emitWithAck(ClientEvent.AUTHORIZATION_NEXT, {});
    expect(over).toEqual({
      ok: false,
      code: 'SWB_ERR_RATE_LIMITED',
      message: 'Rate limited: pre_auth_events',
      reason: 'pre_auth_events',
      retry_after: 1,
    });
    // The socket is closing; what it sends meanwhile is answered the same way.
    const unknown = await s.timeout(1_000).emitWithAck('PREKEY_TAKE', {});
    expect(unknown).toMatchObject({ ok: false, reason: 'pre_auth_events' });
  });
});
