/**
 * Refused wills are counted and logged (issue 24, will-refusals.ts): a will on a `$` topic
 * ([MQTT-4.7.2-1]) and a will of a consumer (a role that may not publish) are not published;
 * each moves `tyo_mq_mqtt_wills_refused_total{reason}` and is logged once, with the client id
 * and topic but never the payload. Real broker, auth on, MQTT.js clients whose connections are
 * dropped (so that their wills are due).
 */
import { join } from 'node:path';
import type { Client } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
import Database from 'better-sqlite3';
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parsePrometheusText,
  type PromExposition,
} from '../../../electron/services/prometheus-text';
import type { MqttIdentity } from '../../../broker/mqtt/mqtt-identity';
import { scopeClientId, scopeTopic } from '../../../broker/mqtt/realm-topics';
import { StoredPersistence } from '../../../broker/mqtt/stored-persistence';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { startAuthBroker } from '../../helpers/auth-clients';
import type { Harness } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { waitUntil } from '../../helpers/wait';
import { captureLogs, type CapturedLog } from '../../support/log-capture';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const SECRET_PAYLOAD = 'will-payload-must-not-be-logged';

let h: Harness | undefined;
let log: CapturedLog;
let dir: TempDir | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await dir?.remove();
  dir = undefined;
});

/** A broker with auth on; `sqlite` = its MQTT state in that file, wills swept every 4 × 50 ms. */
async function broker(sqlite?: string): Promise<Harness> {
  log = captureLogs('info');
  h = await startAuthBroker(
    { realms: { open: { required: false }, alpha: { key: 'alpha-psk' } } },
    {
      http_api: { enabled: true, metrics_auth: false },
      mqtt: { enabled: true, port: 0 },
      ...(sqlite ? { storage: 'sqlite', storage_options: { filename: sqlite } } : {}),
    },
    { logger: log.logger, ...(sqlite ? { mqttHeartbeatMs: 50 } : {}) },
  );
  return h;
}

/** Leaves, in `file`, the will of client `id` of realm `open` as a run that crashed would. */
async function leaveWill(file: string, id: string, topic: string): Promise<void> {
  const identity: MqttIdentity = {
    realm: 'open',
    role: 'both',
    clientId: id,
    tokenHash: null,
    authenticated: false,
  };
  const store = new SqliteStore({ filename: file });
  const persistence = new StoredPersistence(
    store.mqttState,
    () => identity,
    () => true,
  );
  await persistence.setup({ id: 'crashed-run', counter: 0 });
  const will = { topic: scopeTopic('open', topic), payload: Buffer.from(SECRET_PAYLOAD), qos: 1 };
  await persistence.putWill(
    { id: scopeClientId('open', id, false) } as unknown as Client,
    will as unknown as AedesPacket,
  );
  await store.close();
}

function willRows(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM mqtt_wills').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function refused(reason: string): Promise<number> {
  const res = await fetch(`${h!.url}${HttpPath.METRICS}`);
  const m: PromExposition = parsePrometheusText(await res.text());
  const hit = m.samples.find(
    (s) => s.name === MetricName.MQTT_WILLS_REFUSED_TOTAL && s.labels.reason === reason,
  );
  return hit?.value ?? 0;
}

/** Drops the client's connection without DISCONNECT, so the broker publishes its will. */
function drop(client: MqttClient): void {
  client.stream.destroy();
}

const refusalLines = () => log.lines.filter((l) => l.msg?.startsWith('MQTT will refused'));

describe('refused wills', () => {
  it.each([4, 5] as const)(
    'a will on a $ topic is not published, counted and logged once (MQTT %i)',
    async (protocolVersion) => {
      await broker();
      const watcher = await mqttClient(h!, { username: 'open', protocolVersion });
      await watcher.subscribeAsync('$x/#');
      const seen: string[] = [];
      watcher.on('message', (t) => seen.push(t));
      const leaver = await mqttClient(h!, {
        username: 'open',
        clientId: 'dollar-willer',
        protocolVersion,
        will: { topic: '$x/will', payload: Buffer.from(SECRET_PAYLOAD), qos: 1, retain: false },
      });
      drop(leaver);
      await waitUntil(() => refusalLines().length === 1, 'the refusal is logged');
      expect(await refused('reserved_topic')).toBe(1);
      expect(refusalLines()[0]).toMatchObject({
        mqttClient: 'dollar-willer',
        realm: 'open',
        topic: '$x/will',
        reason: 'reserved_topic',
      });
      expect(log.text()).not.toContain(SECRET_PAYLOAD);
      expect(log.text()).not.toContain(Buffer.from(SECRET_PAYLOAD).toString('base64'));
      expect(seen).toEqual([]);
    },
  );

  it('a consumer will (realm key) is refused by role, and a producer-capable will still goes out', async () => {
    await broker();
    const watcher = await mqttClient(h!, { username: 'alpha', password: 'alpha-psk' });
    await watcher.subscribeAsync('bye/#', { qos: 1 });
    const got: string[] = [];
    watcher.on('message', (t, p) => got.push(`${t}=${p.toString()}`));
    const consumer = await mqttClient(h!, {
      username: 'alpha',
      password: 'alpha-psk',
      clientId: 'psk-willer',
      will: { topic: 'bye/psk', payload: Buffer.from(SECRET_PAYLOAD), qos: 1, retain: false },
    });
    drop(consumer);
    await waitUntil(() => refusalLines().length === 1, 'the refusal is logged');
    expect(await refused('role')).toBe(1);
    expect(refusalLines()[0]).toMatchObject({ mqttClient: 'psk-willer', reason: 'role' });
    expect(log.text()).not.toContain(SECRET_PAYLOAD);
    // A will that may be published is, and is not counted.
    const open = await mqttClient(h!, { username: 'open' });
    await open.subscribeAsync('bye/#', { qos: 1 });
    const openGot = new Promise<string>((resolve) => open.once('message', (t) => resolve(t)));
    const leaver = await mqttClient(h!, {
      username: 'open',
      will: { topic: 'bye/ok', payload: Buffer.from('ok'), qos: 1, retain: false },
    });
    drop(leaver);
    expect(await openGot).toBe('bye/ok');
    expect(refusalLines()).toHaveLength(1);
    expect(await refused('reserved_topic')).toBe(0);
    expect(got).toEqual([]);
  });

  it('a refused will restored after a restart is counted, logged and deleted by the sweep', async () => {
    dir = await makeTempDir();
    const file = join(dir.path, 'mqtt.sqlite');
    await leaveWill(file, 'crashed', '$x/lost');
    expect(willRows(file)).toBe(1);
    await broker(file);
    await waitUntil(() => refusalLines().length === 1, 'the sweep refused the will');
    expect(refusalLines()[0]).toMatchObject({
      mqttClient: 'crashed',
      realm: 'open',
      topic: '$x/lost',
      reason: 'reserved_topic',
    });
    expect(await refused('reserved_topic')).toBe(1);
    await h!.close();
    h = undefined;
    // Deleted, so later sweeps (and later runs) do not refuse it again.
    expect(willRows(file)).toBe(0);
    expect(log.lines.filter((l) => l.msg === 'MQTT broker error')).toEqual([]);
    expect(log.text()).not.toContain(SECRET_PAYLOAD);
  });
});
