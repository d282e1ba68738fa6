/**
 * A removed or expired realm leaves no MQTT state behind (spec/protocol-admin.md §9.4,
 * docs/mqtt.md): its MQTT clients are closed without publishing their wills, and its persistent
 * sessions, queued messages, wills and retained messages are deleted from memory and from the
 * SQLite file, so a realm re-created with the same name starts empty — live, and after a broker
 * restart. Another realm's state with the same client ids and topics is kept.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { IClientOptions, MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrokerMessage } from '../../../broker/policy/embedding-types';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttConnecting, sessionPresent } from '../../helpers/mqtt-clients';
import { delay } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { adminSettings, manager } from '../admin/management-client';

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

async function broker(
  realms: Record<string, unknown> = {},
  storage: Record<string, unknown> = { storage: 'sqlite', storage_options: { filename: file() } },
): Promise<Harness> {
  const settings = adminSettings(
    { ...storage, mqtt: { enabled: true, port: 0 } },
    { realms: { default: { required: false }, tmp: { required: false }, ...realms } },
  );
  const h = await startBroker(settings as BrokerSettings, { env: {} });
  open.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

function record(client: MqttClient): string[] {
  const seen: string[] = [];
  client.on('message', (topic, payload) => seen.push(`${topic}=${payload.toString()}`));
  return seen;
}

const closed = (client: MqttClient) =>
  new Promise<void>((resolve) => {
    if (client.disconnected) resolve();
    else client.once('close', () => resolve());
  });

const keeper = (realm: string): IClientOptions => ({
  clientId: 'keeper',
  clean: false,
  username: realm,
});

/**
 * In `realm`: a persistent subscriber gone offline with a queued QoS 1 message, a retained
 * message, and a connected client with a (retained) will. Returns the will's client.
 */
async function fill(h: Harness, realm: string): Promise<MqttClient> {
  const sub = await mqttClient(h, keeper(realm));
  await sub.subscribeAsync('jobs/#', { qos: 1 });
  await sub.endAsync();
  const p = await mqttClient(h, { username: realm });
  await p.publishAsync('jobs/1', `queued in ${realm}`, { qos: 1 });
  await p.publishAsync('cfg/a', `retained in ${realm}`, { qos: 1, retain: true });
  await p.endAsync();
  return mqttClient(h, {
    clientId: 'dying',
    username: realm,
    will: { topic: 'cfg/will', payload: Buffer.from('bye'), qos: 1, retain: true },
  });
}

/** What `realm` shows a newcomer: session present, backlog and retained messages. */
async function newcomer(h: Harness, realm: string) {
  const back = mqttConnecting(h, keeper(realm));
  const seen = record(back);
  const present = await sessionPresent(back);
  await back.subscribeAsync('cfg/#', { qos: 1 });
  await delay(200);
  await back.endAsync();
  return { present, seen: seen.sort() };
}

/** Rows of each MQTT table whose client id or topic belongs to `realm`. */
function storedRows(realm: string): Record<string, number> {
  const db = new Database(file(), { readonly: true });
  try {
    // Topics and authenticated client ids start `<enc>/`, anonymous client ids `<enc>?/`.
    const prefixes = [`${encodeURIComponent(realm)}/`, `${encodeURIComponent(realm)}?/`];
    const count = (table: string, column: string) =>
      prefixes
        .map(
          (prefix) =>
            (
              db
                .prepare(`SELECT count(*) AS n FROM ${table} WHERE substr(${column}, 1, ?) = ?`)
                .get(prefix.length, prefix) as { n: number }
            ).n,
        )
        .reduce((a, b) => a + b, 0);
    return {
      retained: count('mqtt_retained', 'topic'),
      subscriptions: count('mqtt_subscriptions', 'client_id'),
      outgoing: count('mqtt_outgoing', 'client_id'),
      incoming: count('mqtt_incoming', 'client_id'),
      wills: count('mqtt_wills', 'client_id'),
    };
  } finally {
    db.close();
  }
}

const untouched = {
  present: true,
  seen: ['cfg/a=retained in default', 'jobs/1=queued in default'],
};

describe('removing a realm deletes its MQTT state', () => {
  it('remove_realm: clients closed without wills; a re-created realm starts empty', async () => {
    const h = await broker();
    const published: BrokerMessage[] = [];
    h.broker.on('publish', (msg) => published.push(msg));
    await fill(h, 'default');
    const dying = await fill(h, 'tmp');
    const gone = closed(dying);

    const m = await manager(h);
    expect(await m.run({ command: 'remove_realm', realm: 'tmp' })).toMatchObject({ ok: true });
    await gone;
    expect(await m.run({ command: 'add_realm', realm: 'tmp', required: false })).toMatchObject({
      ok: true,
    });
    expect(await newcomer(h, 'tmp')).toEqual({ present: false, seen: [] });
    expect(published.filter((msg) => msg.topic === 'cfg/will')).toEqual([]);
    // The other realm's session and retained message, under the same names, are kept.
    expect(await newcomer(h, 'default')).toEqual(untouched);
  });

  it('with storage "memory" too (aedes working copy only)', async () => {
    const h = await broker({}, { storage: 'memory' });
    await fill(h, 'default');
    const dying = await fill(h, 'tmp');
    const m = await manager(h);
    await m.run({ command: 'remove_realm', realm: 'tmp' });
    await closed(dying);
    await m.run({ command: 'add_realm', realm: 'tmp', required: false });
    expect(await newcomer(h, 'tmp')).toEqual({ present: false, seen: [] });
    expect(await newcomer(h, 'default')).toEqual(untouched);
  });

  it('an expired ephemeral realm: the same, within its ttl', async () => {
    const h = await broker();
    const m = await manager(h);
    await m.run({ command: 'add_realm', realm: 'eph', required: false, ttl: '1s' });
    const dying = await fill(h, 'eph');
    await closed(dying);
    await m.run({ command: 'add_realm', realm: 'eph', required: false });
    expect(await newcomer(h, 'eph')).toEqual({ present: false, seen: [] });
  });

  it('across a restart: the rows are gone from the SQLite file and nothing comes back', async () => {
    const h1 = await broker();
    const stays = await fill(h1, 'default');
    const dying = await fill(h1, 'tmp');
    const m = await manager(h1);
    expect(await m.run({ command: 'remove_realm', realm: 'tmp' })).toMatchObject({ ok: true });
    await closed(dying);
    await stays.endAsync();
    await stop(h1);
    const none = { retained: 0, subscriptions: 0, outgoing: 0, incoming: 0, wills: 0 };
    expect(storedRows('tmp')).toEqual(none);
    expect(storedRows('default')).toMatchObject({ retained: 1, subscriptions: 1, outgoing: 1 });

    // The next run's settings have realm "tmp" again (no settings file): a new realm.
    const h2 = await broker();
    expect(await newcomer(h2, 'tmp')).toEqual({ present: false, seen: [] });
    expect(await newcomer(h2, 'default')).toEqual(untouched);
  });

  it('a realm that expired while the broker was down is purged at start, before MQTT listens', async () => {
    const h1 = await broker();
    await fill(h1, 'tmp');
    await stop(h1);
    // The will was published (retained) when the broker closed its client.
    expect(storedRows('tmp')).toMatchObject({ retained: 2, subscriptions: 1, outgoing: 1 });

    const expired = { required: false, ephemeral: true, expires_at: Date.now() - 1_000 };
    const h2 = await broker({ tmp: expired });
    const m = await manager(h2);
    await m.run({ command: 'add_realm', realm: 'tmp', required: false });
    expect(await newcomer(h2, 'tmp')).toEqual({ present: false, seen: [] });
  });
});
