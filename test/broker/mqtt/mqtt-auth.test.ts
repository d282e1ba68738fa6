/**
 * MQTT auth mapping (issue 14): token as password, realm + PSK for consumers, CONNACK "not
 * authorized" for 3.1.1 (5; MQTT 5 in mqtt5.test.ts), roles on publish/subscribe, realm isolation across
 * both protocols, client ids scoped by realm (no cross-realm takeover).
 */
import { describe, expect, it } from 'vitest';
import { anyProducerKey, consumeEvent } from '../../../shared/protocol-events';
import { consumerIn, producerIn, useAuthBroker } from '../../helpers/auth-clients';
import { produce, subscribe } from '../../helpers/broker-harness';
import { connackCode, mqttClient, nextMessage } from '../../helpers/mqtt-clients';
import { delay, expectNothing } from '../../helpers/wait';

const ctx = useAuthBroker(
  {
    realms: { alpha: { key: 'alpha-psk' }, beta: {} },
    tokens: [
      { token: 'alpha-producer', realm: 'alpha', role: 'producer' },
      { token: 'alpha-consumer', realm: 'alpha', role: 'consumer' },
      { token: 'alpha-both', realm: 'alpha', role: 'both' },
      { token: 'beta-both', realm: 'beta', role: 'both' },
    ],
  },
  { mqtt: { enabled: true, port: 0 } },
);

describe('MQTT CONNECT', () => {
  it('refuses a bad password with return code 5 in MQTT 3.1.1', async () => {
    expect(await connackCode(ctx.h, { protocolVersion: 4, password: 'nope', username: 'x' })).toBe(
      5,
    );
  });

  it('refuses a client without credentials where the realm requires auth', async () => {
    expect(await connackCode(ctx.h, { protocolVersion: 4 })).toBe(5);
  });

  it('refuses a token for another realm than the username names', async () => {
    expect(await connackCode(ctx.h, { username: 'beta', password: 'alpha-both' })).toBe(5);
  });

  it('accepts a token as password, and realm + PSK as a consumer', async () => {
    expect(await connackCode(ctx.h, { username: 'alpha', password: 'alpha-both' })).toBe(0);
    expect(await connackCode(ctx.h, { username: 'alpha', password: 'alpha-psk' })).toBe(0);
  });
});

describe('MQTT roles', () => {
  it('a consumer (PSK) may subscribe but not publish', async () => {
    const m = await mqttClient(ctx.h, { username: 'alpha', password: 'alpha-psk' });
    const granted = await m.subscribeAsync('x/#', { qos: 1 });
    expect(granted[0]?.qos).toBe(1);
    const closed = new Promise<void>((resolve) => m.once('close', () => resolve()));
    m.publish('x/y', 'refused', { qos: 1 });
    await closed;
  });

  it('a producer may publish but its SUBSCRIBE is granted 0x80 (failure)', async () => {
    const m = await mqttClient(ctx.h, { username: 'alpha', password: 'alpha-producer' });
    await expect(m.subscribeAsync('x/#', { qos: 1 })).rejects.toMatchObject({
      packet: { granted: [128] },
    });
    await m.publishAsync('x/y', 'ok', { qos: 1 });
  });
});

describe('realm isolation', () => {
  it('MQTT and tyo-mq clients of realm alpha never see beta messages, and vice versa', async () => {
    const ma = await mqttClient(ctx.h, { username: 'alpha', password: 'alpha-both' });
    const mb = await mqttClient(ctx.h, { username: 'beta', password: 'beta-both' });
    await ma.subscribeAsync('#');
    await mb.subscribeAsync('#');
    const seenA: string[] = [];
    const seenB: string[] = [];
    ma.on('message', (t, p) => seenA.push(`${t}=${p.toString()}`));
    mb.on('message', (t, p) => seenB.push(`${t}=${p.toString()}`));
    const ca = await consumerIn(ctx.h, { token: 'alpha-consumer' }, 'worker');
    await subscribe(ca, 'worker', 'TYO-MQ-ALL', '#', { mode: 'topic' });
    const pb = await producerIn(ctx.h, { token: 'beta-both' }, 'fleet');
    await mb.publishAsync('room/1', 'beta-mqtt', { qos: 1 });
    produce(pb, 'fleet', 'room/2', 'beta-tyo');
    await expectNothing(ca, consumeEvent(anyProducerKey('#')));
    await ma.publishAsync('room/1', 'alpha-mqtt', { qos: 1 });
    for (let i = 0; i < 100 && seenB.length < 2; i++) await delay(20);
    await delay(100);
    expect(seenA).toEqual(['room/1=alpha-mqtt']);
    expect(seenB.sort()).toEqual(['room/1=beta-mqtt', 'room/2=beta-tyo']);
  });

  it('the same client id in two realms are two sessions (no takeover across realms)', async () => {
    const a = await mqttClient(ctx.h, {
      username: 'alpha',
      password: 'alpha-both',
      clientId: 'same',
    });
    let aClosed = false;
    a.on('close', () => {
      aClosed = true;
    });
    const b = await mqttClient(ctx.h, {
      username: 'beta',
      password: 'beta-both',
      clientId: 'same',
    });
    await delay(100);
    expect(aClosed).toBe(false);
    expect(a.connected && b.connected).toBe(true);
    await a.subscribeAsync('t');
    const got = nextMessage(a);
    const p = await producerIn(ctx.h, { token: 'alpha-producer' }, 'fleet');
    produce(p, 'fleet', 't', 'hi');
    expect((await got).text).toBe('hi');
  });
});

describe('revocation', () => {
  it('revoking the static token closes the MQTT client that used it, not the others', async () => {
    const revoked = await mqttClient(ctx.h, { username: 'alpha', password: 'alpha-both' });
    const kept = await mqttClient(ctx.h, { username: 'beta', password: 'beta-both' });
    const closed = new Promise<void>((resolve) => revoked.once('close', () => resolve()));
    ctx.h.broker.auth.update((draft) => {
      draft.tokens = draft.tokens.filter((t) => t.token !== 'alpha-both');
    });
    await closed;
    await delay(50);
    expect(kept.connected).toBe(true);
    expect(await connackCode(ctx.h, { username: 'alpha', password: 'alpha-both' })).toBe(5);
  });
});
