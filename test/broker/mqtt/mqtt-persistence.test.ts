/**
 * MQTT sessions and retained messages on the SQLite store (issue 14): a real broker is closed
 * and a new one opened on the same file; retained messages, persistent subscriptions and the
 * QoS 1 backlog come back, the backlog in order and before newer messages, and client ids stay
 * scoped by realm (no takeover of another realm's stored session).
 */
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAuthBroker } from '../../helpers/auth-clients';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import {
  mqttClient,
  mqttConnecting,
  nextMessage,
  sessionPresent,
} from '../../helpers/mqtt-clients';
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

function settings(): BrokerSettings {
  return {
    storage: 'sqlite',
    storage_options: { filename: join(dir.path, 'mqtt.sqlite') },
    mqtt: { enabled: true, port: 0 },
  } as BrokerSettings;
}

async function broker(): Promise<Harness> {
  const h = await startBroker(settings());
  open.push(h);
  return h;
}

/** Closes `h` now (the restart), so that the next broker can take the file's lock. */
async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

function record(client: MqttClient): string[] {
  const seen: string[] = [];
  client.on('message', (topic, payload) => seen.push(`${topic}=${payload.toString()}`));
  return seen;
}

async function until(seen: unknown[], n: number): Promise<void> {
  for (let i = 0; i < 150 && seen.length < n; i++) await delay(20);
}

describe('MQTT state across a broker restart (SQLite)', () => {
  it('keeps a retained message, and its clearing', async () => {
    const h1 = await broker();
    const p = await mqttClient(h1);
    await p.publishAsync('cfg/a', 'v1', { qos: 1, retain: true });
    await p.publishAsync('cfg/b', 'gone', { qos: 1, retain: true });
    await p.publishAsync('cfg/b', '', { qos: 1, retain: true });
    await stop(h1);

    const h2 = await broker();
    const s = await mqttClient(h2);
    const got = nextMessage(s);
    await s.subscribeAsync('cfg/#', { qos: 1 });
    expect(await got).toMatchObject({ topic: 'cfg/a', text: 'v1', retain: true });
    await delay(100);
    const again = await mqttClient(h2);
    const seen = record(again);
    await again.subscribeAsync('cfg/#', { qos: 1 });
    await delay(150);
    expect(seen).toEqual(['cfg/a=v1']);
  });

  it('delivers the QoS 1 backlog of a persistent session in order, before newer messages', async () => {
    const h1 = await broker();
    const opts = { clientId: 'keeper', clean: false } as const;
    const first = await mqttClient(h1, opts);
    await first.subscribeAsync('jobs/#', { qos: 1 });
    await first.endAsync();
    const p = await mqttClient(h1);
    for (let i = 1; i <= 5; i++) await p.publishAsync(`jobs/${i}`, String(i), { qos: 1 });
    await stop(h1);

    const h2 = await broker();
    const second = mqttConnecting(h2, opts);
    const seen = record(second);
    expect(await sessionPresent(second)).toBe(true);
    const p2 = await mqttClient(h2);
    await p2.publishAsync('jobs/6', '6', { qos: 1 });
    await until(seen, 6);
    expect(seen).toEqual(['jobs/1=1', 'jobs/2=2', 'jobs/3=3', 'jobs/4=4', 'jobs/5=5', 'jobs/6=6']);

    // Acknowledged copies are gone from the store: a third run delivers nothing again.
    await delay(100);
    await second.endAsync();
    await stop(h2);
    const h3 = await broker();
    const third = await mqttClient(h3, opts);
    const none = record(third);
    await delay(200);
    expect(none).toEqual([]);
  });

  it('forgets the stored session when the client connects with a clean session', async () => {
    const h1 = await broker();
    const opts = { clientId: 'fresh', clean: false } as const;
    const first = await mqttClient(h1, opts);
    await first.subscribeAsync('t/#', { qos: 1 });
    await first.endAsync();
    await stop(h1);

    const h2 = await broker();
    const clean = await mqttClient(h2, { clientId: 'fresh', clean: true });
    await clean.endAsync();
    const p = await mqttClient(h2);
    await p.publishAsync('t/1', 'x', { qos: 1 });
    await stop(h2);

    const h3 = await broker();
    const back = await mqttClient(h3, opts);
    const seen = record(back);
    await delay(200);
    expect(seen).toEqual([]);
  });
});

describe('client ids scoped by realm across a restart', () => {
  const auth = {
    realms: { alpha: {}, beta: {} },
    tokens: [
      { token: 'alpha-both', realm: 'alpha', role: 'both' },
      { token: 'beta-both', realm: 'beta', role: 'both' },
    ],
  };
  const authBroker = async () => {
    const h = await startAuthBroker(auth, settings() as Record<string, unknown>);
    open.push(h);
    return h;
  };

  it('a client of another realm with the same id never gets the stored session', async () => {
    const h1 = await authBroker();
    const alpha = { clientId: 'same', clean: false, username: 'alpha', password: 'alpha-both' };
    const a = await mqttClient(h1, alpha);
    await a.subscribeAsync('x/#', { qos: 1 });
    await a.endAsync();
    const p = await mqttClient(h1, { username: 'alpha', password: 'alpha-both' });
    await p.publishAsync('x/1', 'secret', { qos: 1 });
    await stop(h1);

    const h2 = await authBroker();
    const intruder = mqttConnecting(h2, {
      clientId: 'same',
      clean: false,
      username: 'beta',
      password: 'beta-both',
    });
    const stolen = record(intruder);
    expect(await sessionPresent(intruder)).toBe(false);
    await delay(200);
    expect(stolen).toEqual([]);

    const owner = mqttConnecting(h2, alpha);
    const seen = record(owner);
    expect(await sessionPresent(owner)).toBe(true);
    await until(seen, 1);
    expect(seen).toEqual(['x/1=secret']);
    expect(stolen).toEqual([]);
  });
});
