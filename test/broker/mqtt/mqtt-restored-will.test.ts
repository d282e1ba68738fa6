/**
 * A will restored from a previous run (its client never came back) reaches MQTT subscribers and
 * tyo-mq topic subscribers (`mode: 'topic'`) of its realm alike, as a live will does
 * (docs/mqtt.md), and a restored will whose identity was revoked meanwhile reaches nobody.
 *
 * The previous run "crashed" with two clients connected: their wills are left in the SQLite file
 * by StoredPersistence itself (a clean shutdown would have published them), with the identities
 * of real tokens. The next broker sweeps wills every 4 heartbeats (shortened here).
 */
import { join } from 'node:path';
import type { AedesPacket } from 'aedes-packet';
import type { Client } from 'aedes';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokenHash } from '../../../broker/auth/auth-state';
import type { MqttIdentity } from '../../../broker/mqtt/mqtt-identity';
import { scopeClientId, scopeTopic } from '../../../broker/mqtt/realm-topics';
import { StoredPersistence } from '../../../broker/mqtt/stored-persistence';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import {
  anyProducerKey,
  consumeEvent,
  type DeliveryEnvelope,
} from '../../../shared/protocol-events';
import { consumerIn, startAuthBroker } from '../../helpers/auth-clients';
import { subscribe, type Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, nextMessage } from '../../helpers/mqtt-clients';
import { delay } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let dir: TempDir;
const open: Harness[] = [];

beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

const file = () => join(dir.path, 'mqtt.sqlite');
const TOKENS = [
  { token: 'sub-token', realm: 'tmp', role: 'both' },
  { token: 'dev-token', realm: 'tmp', role: 'both' },
];
const REVOKED = { token: 'old-token', realm: 'tmp', role: 'both' };
const EVENT = consumeEvent(anyProducerKey('status/+'));

async function broker(tokens: typeof TOKENS, heartbeatMs?: number): Promise<Harness> {
  const h = await startAuthBroker(
    { realms: { tmp: { required: true } }, tokens },
    {
      default_ttl: 60,
      storage: 'sqlite',
      storage_options: { filename: file() },
      mqtt: { enabled: true, port: 0 },
    },
    { env: {}, mqttHeartbeatMs: heartbeatMs },
  );
  open.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

/** Leaves the will of MQTT client `id` (admitted with `token`) as a crashed run would. */
async function leaveWill(id: string, token: string): Promise<void> {
  const identity: MqttIdentity = {
    realm: 'tmp',
    role: 'both',
    clientId: id,
    tokenHash: tokenHash(token),
    authenticated: true,
  };
  const store = new SqliteStore({ filename: file() });
  const persistence = new StoredPersistence(
    store.mqttState,
    () => identity,
    () => true,
  );
  await persistence.setup({ id: 'crashed-run', counter: 0 });
  const will = {
    cmd: 'publish',
    topic: scopeTopic('tmp', `status/${id}`),
    payload: Buffer.from(`${id} lost`),
    qos: 1,
    retain: false,
    dup: false,
  } as unknown as AedesPacket;
  await persistence.putWill({ id: scopeClientId('tmp', id) } as unknown as Client, will);
  await store.close();
}

describe('wills restored after a restart', () => {
  it("reach MQTT and tyo-mq topic subscribers; a revoked identity's will reaches nobody", async () => {
    // Run 1: a durable tyo-mq topic subscription and a persistent MQTT session in realm tmp.
    const h1 = await broker([...TOKENS, REVOKED]);
    const c1 = await consumerIn(h1, { token: 'sub-token' }, 'w1');
    await subscribe(c1, 'w1', 'TYO-MQ-ALL', 'status/+', { mode: 'topic', durable: true });
    const sub = { clientId: 'watch', clean: false, username: 'tmp', password: 'sub-token' };
    const m1 = await mqttClient(h1, sub);
    await m1.subscribeAsync('status/+', { qos: 1 });
    await m1.endAsync();
    await stop(h1);
    // The crash: two wills left behind; "old" first, so it is swept before "dev".
    await leaveWill('old', REVOKED.token);
    await leaveWill('dev', 'dev-token');

    // Run 2: old-token was revoked meanwhile.
    const h2 = await broker(TOKENS, 50);
    const tyo: DeliveryEnvelope[] = [];
    const c2 = await consumerIn(h2, { token: 'sub-token' }, 'w1');
    c2.on(EVENT, (env: DeliveryEnvelope) => tyo.push(env));
    // Live or replayed from its durable copy, whichever comes first: the will arrives once.
    await subscribe(c2, 'w1', 'TYO-MQ-ALL', 'status/+', { mode: 'topic', durable: true });
    const m2 = mqttConnecting(h2, sub);
    const seen: string[] = [];
    m2.on('message', (topic, payload) => seen.push(`${topic}=${payload.toString()}`));
    // The sweep has run once the persistent session got the will (queued or live).
    expect(await nextMessage(m2, 5_000)).toMatchObject({ topic: 'status/dev', text: 'dev lost' });
    for (let i = 0; i < 100 && tyo.length === 0; i++) await delay(20);
    await delay(250);
    expect(tyo.map((e) => ({ event: e.event, message: e.message, from: e.from }))).toEqual([
      { event: 'status/dev', message: 'dev lost', from: 'dev' },
    ]);
    expect(seen).toEqual(['status/dev=dev lost']);

    // Swept once: a live MQTT subscriber connected now gets nothing more.
    const late = await mqttClient(h2, { username: 'tmp', password: 'sub-token' });
    const lateSeen: string[] = [];
    late.on('message', (topic) => lateSeen.push(topic));
    await late.subscribeAsync('status/+', { qos: 1 });
    await delay(300);
    expect(lateSeen).toEqual([]);
  });
});
