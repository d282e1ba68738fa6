/**
 * Rate limits and quotas on a real broker (`spec/protocol-admin.md` §11.3, §19 "limits").
 */
import { describe, expect, it } from 'vitest';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  startBroker,
  subscribe,
  sync,
  waitForServerDisconnect,
  type Harness,
} from '../../helpers/broker-harness';
import { jsSubscribePayload } from '../../helpers/stock-clients';
import { delay, waitFor } from '../../helpers/wait';

const sample = (text: string, name: string, labels = ''): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels}`));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
};

async function withBroker(settings: object, fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startBroker(settings);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

/** A consumer subscribed to `P-job` and a producer `P`; returns the consumer's recorder. */
async function pair(h: Harness) {
  const c = await h.consumer('c1');
  await subscribe(c, 'c1', 'P', 'job');
  const p = await h.producer('P');
  return { c, p, got: record(c), seen: record(p) };
}

describe('rate limits (protocol-admin §11.3)', () => {
  it('a produce flood delivers only the burst; RATE_LIMITED once, every breach counted', async () => {
    await withBroker(
      { http_api: { enabled: true }, limits: { messages_per_second: 1, message_burst: 3 } },
      async (h) => {
        const { c, p, got, seen } = await pair(h);
        const other = await h.producer('Q');
        const otherSeen = record(other);
        for (let i = 0; i < 10; i++) produce(p, 'P', 'job', i);
        await sync(p, c);
        expect(got.of(exactConsumeEvent('P', 'job'))).toHaveLength(3);
        const notices = seen.of(ServerEvent.RATE_LIMITED);
        expect(notices).toHaveLength(1);
        expect(notices[0]).toMatchObject({ code: 429, reason: 'messages_per_second' });
        expect((notices[0] as { retry_after: number }).retry_after).toBeGreaterThanOrEqual(1);
        // Buckets are per client (issue 20 item 7): without a credential, realm + IP, so
        // another socket of the same client shares the spent bucket.
        for (let i = 0; i < 3; i++) produce(other, 'Q', 'job', i);
        await sync(other);
        expect(otherSeen.of(ServerEvent.RATE_LIMITED)).toHaveLength(1);
        const text = await (await fetch(`${h.url}${HttpPath.METRICS}`)).text();
        expect(sample(text, MetricName.RATE_LIMITED_TOTAL, '{reason="messages_per_second"}')).toBe(
          10,
        );
      },
    );
  });

  it('answers a publisher confirm of a dropped message with SWB_ERR_RATE_LIMITED', async () => {
    await withBroker({ limits: { messages_per_second: 1, message_burst: 1 } }, async (h) => {
      const p = await h.producer('P');
      const payload = { event: 'job', message: 1, from: 'P' };
      expect(await p.emitWithAck(ClientEvent.PRODUCE, payload)).toMatchObject({ ok: true });
      expect(await p.emitWithAck(ClientEvent.PRODUCE, payload)).toMatchObject({
        ok: false,
        code: 'SWB_ERR_RATE_LIMITED',
        reason: 'messages_per_second',
      });
    });
  });

  it('a per-realm override on default lifts the global limit; no block ⇒ no limit', async () => {
    for (const limits of [
      { messages_per_second: 1, message_burst: 1, realms: { default: { messages_per_second: 0 } } },
      undefined,
    ]) {
      await withBroker(limits ? { limits } : {}, async (h) => {
        const { c, p, got, seen } = await pair(h);
        for (let i = 0; i < 20; i++) produce(p, 'P', 'job', i);
        await sync(p, c);
        expect(got.of(exactConsumeEvent('P', 'job'))).toHaveLength(20);
        expect(seen.of(ServerEvent.RATE_LIMITED)).toHaveLength(0);
      });
    }
  });

  it('the byte budget refuses a second 60-byte payload under 100 bytes/s', async () => {
    await withBroker({ limits: { bytes_per_second: 100, bytes_burst: 100 } }, async (h) => {
      const { c, p, got, seen } = await pair(h);
      // {"event":"job","message":"xxxxxxxxxxxxxxxxxxxxx","from":"P"} is 60 bytes.
      const payload = { event: 'job', message: 'x'.repeat(21), from: 'P' };
      expect(Buffer.byteLength(JSON.stringify(payload))).toBe(60);
      p.emit(ClientEvent.PRODUCE, payload);
      p.emit(ClientEvent.PRODUCE, payload);
      await sync(p, c);
      expect(got.of(exactConsumeEvent('P', 'job'))).toHaveLength(1);
      expect(seen.of(ServerEvent.RATE_LIMITED)[0]).toMatchObject({ reason: 'bytes_per_second' });
    });
  });

  it('max_connections_per_ip: the extra socket gets RATE_LIMITED, is dropped, no handlers', async () => {
    await withBroker({ limits: { max_connections_per_ip: 2 } }, async (h) => {
      const a = await h.connect();
      await h.connect();
      const extra = h.socket();
      const notice = waitFor(extra, ServerEvent.RATE_LIMITED);
      const gone = new Promise<string>((resolve) => extra.once('disconnect', resolve));
      await new Promise((resolve) => extra.once('connect', () => resolve(undefined)));
      // No handlers are installed on the refused socket: PING gets no answer.
      const ping = extra.timeout(80).emitWithAck(ClientEvent.PING, {});
      await expect(ping).rejects.toThrow();
      expect(await notice).toEqual({
        code: 429,
        reason: 'max_connections_per_ip',
        retry_after: 30,
      });
      expect(await gone).toBe('io server disconnect');
      // A release frees a slot: a new socket stays connected and is served.
      await h.disconnect(a);
      const next = await h.connect();
      await delay(200);
      expect(next.connected).toBe(true);
      expect(await next.timeout(1_000).emitWithAck(ClientEvent.PING, {})).toBeTruthy();
    });
  });

  it('trust_proxy: true takes the hop the loopback proxy appended as the client IP', async () => {
    await withBroker({ limits: { max_connections_per_ip: 1, trust_proxy: true } }, async (h) => {
      const { io } = await import('socket.io-client');
      const open = (ip: string) => {
        const s = io(h.url, {
          forceNew: true,
          reconnection: false,
          transports: ['websocket'],
          // The left entry is the client's own claim: ignored (right-most untrusted hop).
          extraHeaders: { 'x-forwarded-for': `10.0.0.1, ${ip}` },
        });
        h.onClose(() => void s.disconnect());
        return s;
      };
      const first = open('1.1.1.1');
      const second = open('2.2.2.2');
      const third = open('1.1.1.1');
      const refused = waitFor(third, ServerEvent.RATE_LIMITED);
      expect(await refused).toMatchObject({ reason: 'max_connections_per_ip' });
      await waitForServerDisconnect(third).catch(() => undefined);
      expect(first.connected && second.connected).toBe(true);
    });
  });

  it('the third SUBSCRIBE on a socket and a registration over the realm cap are refused', async () => {
    await withBroker(
      // The registry holds c1 and the producer P its subscriptions name (offline): 2 of 3.
      { limits: { max_subscriptions_per_socket: 2, max_registrations_per_realm: 3 } },
      async (h) => {
        const c = await h.consumer('c1');
        const seen = record(c);
        for (const e of ['a', 'b', 'c'])
          c.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('c1', 'P', e));
        await sync(c);
        expect(h.stats().subscriptions).toBe(2);
        expect(seen.of(ServerEvent.RATE_LIMITED)[0]).toEqual({
          code: 429,
          reason: 'max_subscriptions_per_socket',
          retry_after: 60,
        });
        await h.producer('p1');
        const late = await h.connect();
        const lateSeen = record(late);
        late.emit(ClientEvent.PRODUCER, { name: 'p2' });
        await sync(late);
        expect(lateSeen.of(ServerEvent.RATE_LIMITED)[0]).toMatchObject({
          reason: 'max_registrations_per_realm',
          retry_after: 60,
        });
        expect(h.stats().producers.total).toBe(2);
        // A name already registered (a reconnect) is not refused.
        late.emit(ClientEvent.PRODUCER, { name: 'p1' });
        await sync(late);
        expect(h.stats().producers.online).toBe(1);
      },
    );
  });

  it('connections_per_minute_per_ip refuses the connection past the burst', async () => {
    await withBroker({ limits: { connections_per_minute_per_ip: 2 } }, async (h) => {
      const first = await h.connect();
      first.disconnect();
      await h.connect();
      const extra = h.socket();
      const notice = await waitFor<{ reason: string; retry_after: number }>(
        extra,
        ServerEvent.RATE_LIMITED,
      );
      // One token per 30 s: the wait is up to 30 s.
      expect(notice).toMatchObject({ code: 429, reason: 'connections_per_minute_per_ip' });
      expect(notice.retry_after).toBeGreaterThanOrEqual(1);
      expect(notice.retry_after).toBeLessThanOrEqual(30);
      await waitForServerDisconnect(extra);
    });
  });
});
