/**
 * The pre-auth budget (Switchboard hardening of `spec/protocol-admin.md` §11.3 Note): a socket
 * still unauthenticated (`socket.data.authenticated === false`, set by the auth code) may send only
 * a few events and bytes; past that it gets RATE_LIMITED and is disconnected. Real socket.io server
 * and client; the auth code is stood in for by setting the flag on connect.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { LimitMetrics } from '../../../broker/limits/limit-metrics';
import { LimitsService } from '../../../broker/limits/limits-service';
import { RealmDirectory } from '../../../broker/routing/realm-directory';
import type { BrokerServer } from '../../../broker/transport/socket-types';
import { ServerEvent, type ClientEventName } from '../../../shared/protocol-events';
import { waitFor } from '../../helpers/wait';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(block: unknown, authenticatedAfter?: string) {
  const registry = new Registry();
  const limits = new LimitsService(
    () => block,
    new RealmDirectory(),
    new LimitMetrics(registry),
    pino({ level: 'silent' }),
  );
  const http = createServer();
  const io: BrokerServer = new Server(http);
  io.on('connection', (socket) => {
    socket.data.realm = 'default';
    (socket.data as { authenticated?: boolean }).authenticated = false;
    if (!limits.admitConnection(socket)) return;
    socket.onAny((event: ClientEventName, payload: unknown) => {
      if (!limits.admitEvent(socket, event, payload, undefined)) return;
      if (event === authenticatedAfter) {
        (socket.data as { authenticated?: boolean }).authenticated = true;
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => io.close(() => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = async (): Promise<Socket> => {
    const s = connect(url, { forceNew: true, reconnection: false, transports: ['websocket'] });
    closers.unshift(() => void s.disconnect());
    await new Promise((resolve) => s.once('connect', () => resolve(undefined)));
    return s;
  };
  return { limits, registry, client };
}

describe('pre-auth budget', () => {
  it('disconnects an unauthenticated socket past its event budget', async () => {
    const { limits, registry, client } = await serve({ pre_auth_events: 5 });
    const s = await client();
    const notice = waitFor(s, ServerEvent.RATE_LIMITED);
    const gone = new Promise((resolve) => s.once('disconnect', resolve));
    for (let i = 0; i < 6; i++) s.emit('AUTHORIZATION_NEXT', { i });
    expect(await notice).toEqual({ code: 429, reason: 'pre_auth_events', retry_after: 1 });
    await gone;
    const text = await registry.metrics();
    expect(text).toContain('tyo_mq_rate_limited_total{reason="pre_auth_events"} 1');
    await new Promise((r) => setTimeout(r, 50));
    expect(limits.trackedSockets).toBe(0);
  });

  it('counts payload bytes, with the defaults when no limits block is set', async () => {
    const { client } = await serve(undefined);
    const s = await client();
    const notice = waitFor(s, ServerEvent.RATE_LIMITED);
    // Three 400 KiB frames pass 1 MiB of pre-auth bytes in 3 events (< 64).
    for (let i = 0; i < 3; i++) s.emit('AUTHENTICATION', 'x'.repeat(400 * 1024));
    expect(await notice).toMatchObject({ reason: 'pre_auth_bytes' });
  });

  it('stops counting once the socket is authenticated; enabled:false turns it off', async () => {
    for (const [block, after] of [
      [{ pre_auth_events: 3 }, 'AUTHENTICATION'],
      [{ enabled: false, pre_auth_events: 3 }, undefined],
    ] as const) {
      const { client } = await serve(block, after);
      const s = await client();
      const notices: unknown[] = [];
      s.on(ServerEvent.RATE_LIMITED, (n: unknown) => notices.push(n));
      s.emit('AUTHENTICATION', {});
      for (let i = 0; i < 10; i++) s.emit('PING', {});
      await new Promise((r) => setTimeout(r, 200));
      expect(notices).toEqual([]);
      expect(s.connected).toBe(true);
    }
  });
});
