/**
 * A stopped live tap leaves nothing on the real local broker (docs/console.md "Live tap"): no
 * registered `switchboard-tap-…` consumer, no subscription, no queue, no stats entry — after
 * Stop, after every page stopped listening, and after a console that was killed with a tap
 * running comes back.
 */
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { LOCAL_ADMIN_TOKEN_SECRET, FileSecretStore } from '../../electron/services/secret-store';
import { tapSubscription } from '../../electron/services/tap-session';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import type { Clients } from '../../shared/http-api';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const connectionId = LOCAL_CONNECTION_ID;

interface RealmStats {
  consumers: { total: number };
  subscriptions: number;
  queued: number;
  queues: unknown[];
}

describe('a stopped tap leaves nothing on the broker', () => {
  let dir: TempDir;
  let local: LocalConsole;
  let secret: string;
  const sockets: Socket[] = [];

  const base = () => `http://127.0.0.1:${local.supervisor.status().port}`;
  async function api<T>(route: string): Promise<T> {
    const res = await fetch(`${base()}${route}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }
  /** Names of the tap consumers the broker still lists, in every realm. */
  async function tapConsumers(): Promise<string[]> {
    const clients = await api<Clients>('/api/clients');
    return Object.values(clients.realms)
      .flatMap((realm) => realm.consumers.map((c) => c.name))
      .filter((name) => name.startsWith('switchboard-tap-'));
  }
  async function realmStats(realm: string): Promise<RealmStats | undefined> {
    const stats = await api<{ realms: Record<string, RealmStats> }>('/api/stats');
    return stats.realms[realm];
  }

  async function openSocket(realm: string): Promise<Socket> {
    const socket = io(base(), { transports: ['websocket'], forceNew: true, reconnection: false });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once(ServerEvent.AUTH_OK, () => resolve());
      socket.once(ServerEvent.AUTH_FAIL, (r) => reject(new Error(JSON.stringify(r))));
      socket.once('connect', () =>
        socket.emit(ClientEvent.AUTHENTICATION, { realm, role: 'both' }),
      );
    });
    return socket;
  }

  async function publishGuaranteed(realm: string, event: string): Promise<void> {
    const socket = await openSocket(realm);
    await socket
      .timeout(5_000)
      .emitWithAck(ClientEvent.PRODUCE, { event, message: { n: 1 }, guaranteed: true });
    socket.close();
  }

  /** Subscribes like a tap (tap-session.ts) as `consumer`, then drops the socket. */
  async function leaveTap(consumer: string, realm: string, pattern: string): Promise<void> {
    const socket = await openSocket(realm);
    socket.emit(
      ClientEvent.SUBSCRIBE,
      tapSubscription({ kind: 'topic', pattern }, consumer).subscribe,
    );
    await socket.timeout(5_000).emitWithAck(ClientEvent.PING, {});
    socket.close();
    await expect
      .poll(async () => {
        const clients = await api<Clients>('/api/clients');
        return clients.realms[realm]?.consumers.find((c) => c.name === consumer)?.online;
      })
      .toBe(false);
  }

  function start(): LocalConsole {
    return createLocalConsole({
      brokerPort: 0,
      dataDir: path.join(dir.path, 'data'),
      pollIntervalMs: 200,
      tapOrphanMs: 1_000,
    });
  }

  beforeAll(async () => {
    dir = await makeTempDir();
    local = start();
    await local.startBroker();
    secret = new FileSecretStore(path.join(dir.path, 'data')).get(
      LOCAL_ADMIN_TOKEN_SECRET,
    ) as string;
  }, 60_000);

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await local.close();
    await dir.remove();
  }, 30_000);

  it('Stop removes the tap consumer, its subscription and any queue for it', async () => {
    const off = local.service.on('tapBatch', () => undefined);
    const tap = await local.service.tapStart({
      connectionId,
      realm: 'default',
      target: { kind: 'topic', pattern: 'home/#' },
    });
    await expect.poll(tapConsumers).toHaveLength(1);
    expect(await local.service.tapStop({ connectionId, tapId: tap.tapId })).toEqual({
      stopped: true,
    });
    await expect.poll(tapConsumers).toEqual([]);
    // Nobody is subscribed any more: a guaranteed message is queued for no one.
    await publishGuaranteed('default', 'home/kitchen');
    expect(await tapConsumers()).toEqual([]);
    expect(await realmStats('default')).toMatchObject({
      consumers: { total: 0 },
      subscriptions: 0,
      queued: 0,
      queues: [],
    });
    off();
  }, 30_000);

  it('a tap no page listens to any more is removed as well', async () => {
    const off = local.service.on('tapBatch', () => undefined);
    const tap = await local.service.tapStart({
      connectionId,
      realm: 'default',
      target: { kind: 'event', producer: 'TYO-MQ-ALL', event: 'ping' },
    });
    await expect.poll(tapConsumers).toHaveLength(1);
    off(); // the page is gone: after 1 s (tapOrphanMs) the tap stops
    await expect.poll(tapConsumers, { timeout: 10_000 }).toEqual([]);
    expect(await local.service.tapStop({ connectionId, tapId: tap.tapId })).toEqual({
      stopped: false,
    });
    await publishGuaranteed('default', 'ping');
    expect(await realmStats('default')).toMatchObject({
      consumers: { total: 0 },
      subscriptions: 0,
      queued: 0,
      queues: [],
    });
  }, 30_000);

  it('a tap left by a killed console is removed when the console comes back', async () => {
    // What a tap of a console killed mid-tap leaves: its consumer, offline, still subscribed
    // (no UNSUBSCRIBE was sent), and a guaranteed message queued for it.
    await leaveTap('switchboard-tap-0123456789ab', 'default', 'home/#');
    await publishGuaranteed('default', 'home/hall');
    expect(await tapConsumers()).toEqual(['switchboard-tap-0123456789ab']);
    expect(await realmStats('default')).toMatchObject({ queued: 1 });

    // Console restart: its broker restarts too; the stored copy outlives it.
    await local.close();
    local = start();
    await local.startBroker();
    await expect.poll(() => realmStats('default').then((r) => r?.queued ?? 0)).toBe(0);
    expect((await realmStats('default'))?.queues ?? []).toEqual([]);
    expect(await tapConsumers()).toEqual([]);

    // A broker that outlived the console (a remote one): the console's first tap removes the
    // tap left there, and keeps its own.
    await leaveTap('switchboard-tap-ba9876543210', 'default', 'yard/#');
    expect(await tapConsumers()).toEqual(['switchboard-tap-ba9876543210']);
    const off = local.service.on('tapBatch', () => undefined);
    const tap = await local.service.tapStart({
      connectionId,
      realm: 'default',
      target: { kind: 'topic', pattern: 'yard/#' },
    });
    await expect.poll(tapConsumers).toEqual([`switchboard-tap-${tap.tapId.slice(0, 12)}`]);
    await local.service.tapStop({ connectionId, tapId: tap.tapId });
    await expect.poll(tapConsumers).toEqual([]);
    off();
  }, 90_000);
});
