/**
 * `list_retained`, `delete_retained` (issue 27; docs/management.md "Retained messages") on a
 * real broker with the SQLite store and real MQTT.js clients: listing is realm-scoped with
 * the internal realm prefix hidden, payloads are previewed (text, else base64, ≤ 1 KiB) with
 * their MQTT 5 properties; a delete clears the message so a new subscriber gets nothing and a
 * broker restart does not bring it back; another realm's message of the same topic is kept.
 */
import type { MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { useRestartingBrokers } from '../../helpers/mqtt-restarts';
import { waitUntil, waitUntilAsync } from '../../helpers/wait';
import { adminSettings, manager } from './management-client';

const ALPHA_KEY = 'alpha-manager-key-31c9';
const brokers = useRestartingBrokers('retained.sqlite');

const auth = adminSettings(
  {},
  {
    realms: {
      default: { required: false },
      alpha: { required: false, manager_key: ALPHA_KEY },
      beta: { required: false },
    },
  },
).auth;

const start = (storage: 'sqlite' | 'memory' = 'sqlite', mqttOn = true): Promise<Harness> =>
  brokers.start(storage, {
    auth,
    ...(mqttOn ? {} : { mqtt: { enabled: false } }),
  } as never);

/** Retained messages of `realm` a new subscriber to `filter` gets (ended by a live marker). */
async function retainedSeen(h: Harness, realm: string, filter: string): Promise<string[]> {
  const sub = await mqttClient(h, { username: realm });
  const seen: string[] = [];
  let marked = false;
  sub.on('message', (topic, payload, packet) => {
    if (topic === 'zz/marker') marked = true;
    else if (packet.retain) seen.push(`${topic}=${payload.toString()}`);
  });
  await sub.subscribeAsync([filter, 'zz/marker'], { qos: 1 });
  // Retained copies are sent with the SUBACK; a live message after it ends the wait.
  const pub = await mqttClient(h, { username: realm });
  await pub.publishAsync('zz/marker', 'end', { qos: 1 });
  await waitUntil(() => marked, 'marker received');
  await Promise.all([sub.endAsync(), pub.endAsync()]);
  return seen.sort();
}

async function publishRetained(client: MqttClient, topic: string, payload: string | Buffer) {
  await client.publishAsync(topic, payload, { qos: 1, retain: true });
}

describe('retained commands', () => {
  it('lists per realm, previews payloads, deletes durably', async () => {
    const h = await start();
    const m = await manager(h);
    const a = await mqttClient(h, { username: 'alpha', protocolVersion: 5 });
    const b = await mqttClient(h, { username: 'beta' });
    await publishRetained(a, 'cfg/a', 'alpha A');
    await publishRetained(a, 'cfg/bin', Buffer.from([0xff, 0x00, 0xfe]));
    await publishRetained(a, 'big/text', 'é'.repeat(700)); // 1,400 bytes of 2-byte characters
    await a.publishAsync('cfg/typed', '{"v":1}', {
      qos: 0,
      retain: true,
      properties: { contentType: 'application/json', messageExpiryInterval: 3_600 },
    });
    await publishRetained(b, 'cfg/a', 'beta A');
    await waitUntilAsync(
      async () => (await m.run({ command: 'list_retained', realm: 'alpha' })).entries?.length === 4,
      'alpha retained listed',
    );

    const all = await m.run({ command: 'list_retained', realm: 'alpha' });
    expect(all).toMatchObject({ ok: true, realm: 'alpha', filter: '#', next_cursor: null });
    expect(all.entries.map((e: { topic: string }) => e.topic)).toEqual([
      'big/text',
      'cfg/a',
      'cfg/bin',
      'cfg/typed',
    ]);
    const [big, text, bin, typed] = all.entries;
    expect(text).toMatchObject({
      topic: 'cfg/a',
      qos: 1,
      size_bytes: 7,
      payload: 'alpha A',
      payload_encoding: 'utf8',
      truncated: false,
      content_type: null,
      message_expiry_interval_s: null,
    });
    expect(bin).toMatchObject({ payload: '/wD+', payload_encoding: 'base64', size_bytes: 3 });
    expect(big).toMatchObject({ size_bytes: 1_400, truncated: true, payload: 'é'.repeat(512) });
    expect(typed).toMatchObject({
      content_type: 'application/json',
      message_expiry_interval_s: 3_600,
    });
    expect(typed.expires_in_s).toBeGreaterThan(3_590);

    // One message in full; a filter and pages; the other realm sees its own only.
    const one = await m.run({ command: 'list_retained', realm: 'alpha', topic: 'big/text' });
    expect(one.entries).toHaveLength(1);
    expect(one.entries[0]).toMatchObject({ payload: 'é'.repeat(700), truncated: false });
    const cfg = await m.run({ command: 'list_retained', realm: 'alpha', filter: 'cfg/+' });
    expect(cfg.entries).toHaveLength(3);
    const p1 = await m.run({ command: 'list_retained', realm: 'alpha', limit: 3 });
    expect(p1.next_cursor).toBe('cfg/bin');
    const p2 = await m.run({
      command: 'list_retained',
      realm: 'alpha',
      limit: 3,
      cursor: p1.next_cursor,
    });
    expect(p2.entries.map((e: { topic: string }) => e.topic)).toEqual(['cfg/typed']);
    expect(p2.next_cursor).toBeNull();
    const beta = await m.run({ command: 'list_retained', realm: 'beta' });
    expect(beta.entries).toMatchObject([{ topic: 'cfg/a', payload: 'beta A' }]);

    // The realm's manager key reaches its own realm only.
    const own = await m.run({ command: 'list_retained', realm: 'alpha' }, ALPHA_KEY);
    expect(own.entries).toHaveLength(4);
    const other = await m.run(
      { command: 'delete_retained', realm: 'beta', filter: '#' },
      ALPHA_KEY,
    );
    expect(other).toMatchObject({ ok: false, code: 401 });

    // Bad parameters.
    for (const body of [
      { realm: 'alpha', filter: 'cfg/#/x' },
      { realm: 'alpha', limit: 1_001 },
      { realm: 'alpha', topic: 'cfg/+' },
    ]) {
      expect(await m.run({ command: 'list_retained', ...body })).toMatchObject({
        ok: false,
        code: 400,
      });
    }
    expect(await m.run({ command: 'delete_retained', realm: 'alpha' })).toMatchObject({
      ok: false,
      code: 400,
    });

    // Delete one by topic, then the rest of cfg/# by filter.
    const del = await m.run({ command: 'delete_retained', realm: 'alpha', topic: 'cfg/a' });
    expect(del).toMatchObject({ ok: true, realm: 'alpha', topic: 'cfg/a', deleted: 1 });
    expect(await retainedSeen(h, 'alpha', 'cfg/#')).toEqual([
      'cfg/bin=\ufffd\u0000\ufffd',
      'cfg/typed={"v":1}',
    ]);
    expect(await retainedSeen(h, 'beta', 'cfg/#')).toEqual(['cfg/a=beta A']);
    const byFilter = await m.run({ command: 'delete_retained', realm: 'alpha', filter: 'cfg/#' });
    expect(byFilter).toMatchObject({ ok: true, filter: 'cfg/#', deleted: 2 });
    expect(await retainedSeen(h, 'alpha', 'cfg/#')).toEqual([]);

    // A restart on the same SQLite file does not bring them back.
    await brokers.stop(h);
    const h2 = await start();
    const m2 = await manager(h2);
    const after = await m2.run({ command: 'list_retained', realm: 'alpha' });
    expect(after.entries.map((e: { topic: string }) => e.topic)).toEqual(['big/text']);
    expect(await retainedSeen(h2, 'alpha', 'cfg/#')).toEqual([]);
    expect(await retainedSeen(h2, 'beta', 'cfg/#')).toEqual(['cfg/a=beta A']);
  });

  it('answers 409 when MQTT is not enabled', async () => {
    const h = await start('memory', false);
    const m = await manager(h);
    for (const body of [
      { command: 'list_retained', realm: 'alpha' },
      { command: 'delete_retained', realm: 'alpha', topic: 'cfg/a' },
    ]) {
      expect(await m.run(body)).toMatchObject({
        ok: false,
        code: 409,
        message: 'MQTT is not enabled on this broker',
      });
    }
  });
});
