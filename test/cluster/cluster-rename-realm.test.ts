/**
 * `rename_realm` in a cluster (docs/cluster.md "Renaming a realm"; issue 20 defect 3): the
 * node that runs it announces the rename and every other node moves its own data — its MQTT
 * state, queue counts, registry and, with a per-node store, that store's rows; a shared Redis
 * store is moved once. A node that was down when it happened catches up when it comes back.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import {
  record,
  startBroker,
  subscribe,
  type BrokerSettings,
  type Harness,
} from '../helpers/broker-harness';
import { clusterBlock, freshPrefix, seesNodes } from '../helpers/cluster-nodes';
import { mqttClient, mqttConnecting } from '../helpers/mqtt-clients';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { QUIET_MS, delay, waitFor, waitUntil } from '../helpers/wait';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { adminSettings, manager } from '../broker/admin/management-client';

let redis: RedisServer;
let dir: TempDir;
const open: Harness[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

type Storage = (id: string) => Record<string, unknown>;
const sqlite: Storage = (id) => ({
  storage: 'sqlite',
  storage_options: { filename: join(dir.path, `${id}.sqlite`) },
});

/** Node `id` of the cluster under `prefix`, with its own storage (`storage(id)`). */
async function node(prefix: string, id: string, storage: Storage): Promise<Harness> {
  const settings = adminSettings(
    { ...storage(id), mqtt: { enabled: true, port: 0 } },
    { realms: { default: { required: false }, acme: { required: false } } },
  );
  const h = await startBroker(
    { ...settings, cluster: clusterBlock(redis.url, prefix, id) } as BrokerSettings,
    { env: {} },
  );
  open.push(h);
  return h;
}

async function cluster(storage: Storage): Promise<{ prefix: string; a: Harness; b: Harness }> {
  const prefix = freshPrefix();
  const a = await node(prefix, 'rn-a', storage);
  const b = await node(prefix, 'rn-b', storage);
  await waitUntil(() => seesNodes(a, 2) && seesNodes(b, 2), 'both nodes see each other');
  return { prefix, a, b };
}

async function enter(h: Harness, realm: string) {
  const s = await h.connect();
  s.emit(ClientEvent.AUTHENTICATION, { realm, role: 'both' });
  await waitFor(s, ServerEvent.AUTH_OK);
  return s;
}

/** Polls an async condition (waitUntil takes sync ones only). */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(20);
  }
}

/** On `h`, in `realm`: three durable copies for offline consumer `w`, an MQTT retained message. */
async function fill(h: Harness, realm: string): Promise<void> {
  const c = await enter(h, realm);
  c.emit(ClientEvent.CONSUMER, { name: 'w', id: 'w' });
  await subscribe(c, 'w', 'p', 'job', { durable: true, ack: true });
  c.disconnect();
  const p = await enter(h, realm);
  p.emit(ClientEvent.PRODUCER, { name: 'p' });
  for (const i of [1, 2, 3]) {
    await p
      .timeout(5_000)
      .emitWithAck(ClientEvent.PRODUCE, { event: 'job', message: i, from: 'p' });
  }
  p.disconnect();
  const m = await mqttClient(h, { username: realm });
  await m.publishAsync('cfg/a', `retained in ${realm}`, { qos: 1, retain: true });
  await m.endAsync();
}

/** The durable copies consumer `w` of `realm` receives on `h` when it comes back. */
async function copiesFor(h: Harness, realm: string, expected: number): Promise<unknown[]> {
  const c = await enter(h, realm);
  const seen = record(c);
  c.emit(ClientEvent.CONSUMER, { name: 'w', id: 'w' });
  await subscribe(c, 'w', 'p', 'job', { durable: true, ack: true });
  const messages = () =>
    seen.all
      .filter((r) => r.event.startsWith('CONSUME'))
      .map((r) => (r.args[0] as { message: unknown }).message);
  if (expected > 0) await waitUntil(() => messages().length >= expected, 'copies delivered');
  // A quiet period: nothing more (no duplicate, nothing for an empty realm) arrives.
  await delay(QUIET_MS);
  c.disconnect();
  return messages();
}

/** The retained messages an MQTT newcomer of `realm` on `h` receives. */
async function retainedIn(h: Harness, realm: string, expected: number): Promise<string[]> {
  const client = mqttConnecting(h, { username: realm });
  const seen: string[] = [];
  client.on('message', (topic, payload) => seen.push(`${topic}=${payload.toString()}`));
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  await client.subscribeAsync('cfg/#', { qos: 1 });
  if (expected > 0) await waitUntil(() => seen.length >= expected, 'retained delivered');
  await delay(QUIET_MS);
  await client.endAsync();
  return seen;
}

const hasRealm = (h: Harness, realm: string): boolean =>
  Object.prototype.hasOwnProperty.call(h.broker.auth.config.realms, realm);

describe('rename_realm across a cluster with a per-node SQLite store', () => {
  it("moves node B's own copies and MQTT state when node A renames; the old name is empty", async () => {
    const { a, b } = await cluster(sqlite);
    await fill(b, 'acme');
    expect(await b.broker.store.countQueued('acme')).toBe(3);
    // A session of the realm on B: ended so that it re-authenticates (no final DISCONNECT).
    const online = await enter(b, 'acme');
    const ended = new Promise<string>((resolve) => online.once('disconnect', resolve));

    const m = await manager(a);
    const reply = await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' });
    expect(reply).toMatchObject({ ok: true, moved: { queued: 0 } });

    expect(await ended).toBe('transport close');
    await waitUntil(() => hasRealm(b, 'acme2') && !hasRealm(b, 'acme'), 'B adopted the rename');
    await until(async () => (await b.broker.store.countQueued('acme2')) === 3, 'B moved copies');
    expect(await b.broker.store.countQueued('acme')).toBe(0);

    // The consumer comes back to B under the new name and gets its copies.
    expect(await copiesFor(b, 'acme2', 3)).toEqual([1, 2, 3]);
    expect(await retainedIn(b, 'acme2', 1)).toEqual(['cfg/a=retained in acme']);

    // A realm created later with the old name sees nothing of the renamed tenant's, on B.
    expect((await m.run({ command: 'add_realm', realm: 'acme', required: false })).ok).toBe(true);
    await waitUntil(() => hasRealm(b, 'acme'), 'B adopted the new realm');
    expect(await copiesFor(b, 'acme', 0)).toEqual([]);
    expect(await retainedIn(b, 'acme', 0)).toEqual([]);
  });

  it('a node that was down during the rename moves its data when it comes back', async () => {
    const { prefix, a, b } = await cluster(sqlite);
    await fill(b, 'acme');
    open.splice(open.indexOf(b), 1);
    await b.close();
    await waitUntil(() => seesNodes(a, 1), 'A sees B gone');

    const m = await manager(a);
    expect((await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' })).ok).toBe(true);

    // B restarts with its settings and store as they were (the realm still named `acme`).
    const back = await node(prefix, 'rn-b', sqlite);
    expect(hasRealm(back, 'acme2')).toBe(true);
    expect(await back.broker.store.countQueued('acme')).toBe(0);
    expect(await back.broker.store.countQueued('acme2')).toBe(3);
    expect(await copiesFor(back, 'acme2', 3)).toEqual([1, 2, 3]);
    expect(await retainedIn(back, 'acme2', 1)).toEqual(['cfg/a=retained in acme']);
  });
});

describe('rename_realm across a cluster with the Redis store', () => {
  it('moves the shared copies once (no duplicate, no loss) and B follows with its MQTT state', async () => {
    const storePrefix = `rename-store-${freshPrefix()}`;
    const { a, b } = await cluster(() => ({
      storage: 'redis',
      storage_options: { url: redis.url, prefix: storePrefix },
    }));
    await fill(b, 'acme');
    expect(await a.broker.store.countQueued('acme')).toBe(3);

    const m = await manager(a);
    const reply = await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' });
    expect(reply).toMatchObject({ ok: true, moved: { queued: 3, subscriptions: 1 } });
    await waitUntil(() => hasRealm(b, 'acme2'), 'B adopted the rename');
    // B's MQTT state lives in B's memory: it follows the name there.
    await until(async () => (await retainedIn(b, 'acme2', 0)).length === 1, 'B moved MQTT state');
    expect(await b.broker.store.countQueued('acme2')).toBe(3);
    expect(await b.broker.store.countQueued('acme')).toBe(0);
    expect(await copiesFor(b, 'acme2', 3)).toEqual([1, 2, 3]);
    expect((await m.run({ command: 'add_realm', realm: 'acme', required: false })).ok).toBe(true);
    await waitUntil(() => hasRealm(b, 'acme'), 'B adopted the new realm');
    expect(await retainedIn(b, 'acme', 0)).toEqual([]);
    expect(await copiesFor(b, 'acme', 0)).toEqual([]);
  });
});
