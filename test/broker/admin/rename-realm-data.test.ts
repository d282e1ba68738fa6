/**
 * `rename_realm` moves the realm's data with its name (issue 20 defect 3, docs/management.md),
 * on every storage backend: durable copies for an offline durable consumer, durable
 * subscriptions, DLQ entries, MQTT retained messages and persistent sessions. The renamed
 * tenant keeps them; a realm later created under the old name sees none of them; a rename onto
 * a name that already holds data is refused and changes nothing.
 */
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import {
  record,
  startBroker,
  subscribe,
  type BrokerSettings,
  type Harness,
} from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { waitFor, waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { adminSettings, manager } from './management-client';

let dir: TempDir;
let redis: RedisServer | null = null;
const open: Harness[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

let prefixes = 0;
const BACKENDS: Record<string, () => Record<string, unknown>> = {
  memory: () => ({ storage: 'memory' }),
  sqlite: () => ({ storage: 'sqlite', storage_options: { filename: join(dir.path, 's.sqlite') } }),
  redis: () => ({
    storage: 'redis',
    storage_options: { url: redis!.url, prefix: `rename-${process.pid}-${++prefixes}` },
  }),
};

async function broker(storage: Record<string, unknown>): Promise<Harness> {
  const settings = adminSettings(
    { ...storage, mqtt: { enabled: true, port: 0 } },
    { realms: { default: { required: false }, acme: { required: false } } },
  );
  const h = await startBroker(settings as BrokerSettings, { env: {} });
  open.push(h);
  return h;
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
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * In `realm`: three durable copies for offline consumer `w` (one dead-lettered), a retained
 * MQTT message and a persistent MQTT session with a queued QoS 1 message.
 */
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
  const [queue] = (await h.broker.store.queueDepths()).filter((q) => q.realm === realm);
  const [first] = await h.broker.store.dequeue(realm, queue!.event, queue!.consumer);
  expect(await h.broker.store.deadLetter(first!.id, 'test')).toBe(first!.id);

  const sub = await mqttClient(h, { clientId: 'keeper', clean: false, username: realm });
  await sub.subscribeAsync('jobs/#', { qos: 1 });
  await sub.endAsync();
  const m = await mqttClient(h, { username: realm });
  await m.publishAsync('jobs/1', `queued in ${realm}`, { qos: 1 });
  await m.publishAsync('cfg/a', `retained in ${realm}`, { qos: 1, retain: true });
  await m.endAsync();
}

/** The durable copies consumer `w` of `realm` receives when it comes back. */
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
  else await new Promise((resolve) => setTimeout(resolve, 250));
  c.disconnect();
  return messages();
}

/** What an MQTT newcomer of `realm` sees: session present, queued and retained messages. */
async function mqttView(h: Harness, realm: string, expected: number) {
  const back: MqttClient = mqttConnecting(h, { clientId: 'keeper', clean: false, username: realm });
  const seen: string[] = [];
  back.on('message', (topic, payload) => seen.push(`${topic}=${payload.toString()}`));
  const present = await sessionPresent(back);
  await back.subscribeAsync('cfg/#', { qos: 1 });
  if (expected > 0) await waitUntil(() => seen.length >= expected, 'MQTT messages delivered');
  else await new Promise((resolve) => setTimeout(resolve, 250));
  await back.endAsync();
  return { present, seen: seen.sort() };
}

describe.each(Object.keys(BACKENDS))('rename_realm moves the data (%s)', (backend) => {
  it('the renamed tenant keeps copies, DLQ, subscriptions and MQTT state; the old name is empty', async () => {
    const h = await broker(BACKENDS[backend]!());
    await fill(h, 'acme');
    const m = await manager(h);
    const reply = await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' });
    expect(reply).toMatchObject({
      ok: true,
      moved: {
        queued: 2,
        dlq: 1,
        subscriptions: 1,
        retained: 1,
        mqtt_sessions: 1,
      },
    });
    // Nothing is left under the old name in the store.
    expect(await h.broker.store.countQueued('acme')).toBe(0);
    expect(await h.broker.store.listDlq('acme')).toEqual([]);
    const dlq = await h.broker.store.listDlq('acme2');
    expect(dlq.map((e) => [e.realm, e.message.message])).toEqual([['acme2', 1]]);
    expect((await m.run({ command: 'dlq_list', realm: 'acme2' })).entries).toHaveLength(1);

    // A realm created with the old name inherits nothing.
    expect((await m.run({ command: 'add_realm', realm: 'acme', required: false })).ok).toBe(true);
    expect(await mqttView(h, 'acme', 0)).toEqual({ present: false, seen: [] });
    expect(await copiesFor(h, 'acme', 0)).toEqual([]);

    // The renamed tenant gets its copies, its MQTT session and retained message.
    expect(await copiesFor(h, 'acme2', 2)).toEqual([2, 3]);
    expect(await mqttView(h, 'acme2', 2)).toEqual({
      present: true,
      seen: ['cfg/a=retained in acme', 'jobs/1=queued in acme'],
    });
    // New copies for the offline durable consumer are stored under the new name.
    const p = await enter(h, 'acme2');
    p.emit(ClientEvent.PRODUCER, { name: 'p' });
    await p
      .timeout(5_000)
      .emitWithAck(ClientEvent.PRODUCE, { event: 'job', message: 4, from: 'p' });
    p.disconnect();
    await until(async () => (await h.broker.store.countQueued('acme2')) >= 1, 'copy stored');
  });

  it('refuses a target that already holds data; nothing changes', async () => {
    const h = await broker(BACKENDS[backend]!());
    await fill(h, 'acme');
    // `busy` holds a durable copy without any realm config (auth off for it: required false).
    await h.broker.store.enqueue('busy', 'k', {
      consumer: 'c',
      payload: { event: 'k', message: 'x', from: 'p' },
      producer: 'p',
    });
    const m = await manager(h);
    const reply = await m.run({ command: 'rename_realm', from: 'acme', to: 'busy' });
    expect(reply).toMatchObject({ ok: false, code: 409 });
    expect(Object.keys(h.broker.auth.config.realms)).toContain('acme');
    expect(await h.broker.store.countQueued('acme')).toBe(2);
    expect(await h.broker.store.countQueued('busy')).toBe(1);
  });
});
