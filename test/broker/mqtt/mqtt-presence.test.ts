/**
 * `$SYS/<realm>/…` presence topics (issue 14): an MQTT client's connect and disconnect, and a
 * tyo-mq producer's or consumer's, are published in its realm only, and filters starting with a
 * wildcard never match them.
 */
import { describe, expect, it } from 'vitest';
import { scopeTopic, unscopeTopic } from '../../../broker/mqtt/realm-topics';
import { consumerIn, producerIn, useAuthBroker } from '../../helpers/auth-clients';
import { mqttClient } from '../../helpers/mqtt-clients';
import { delay } from '../../helpers/wait';

const ctx = useAuthBroker(
  {
    realms: { alpha: {}, beta: {} },
    tokens: [
      { token: 'alpha-both', realm: 'alpha', role: 'both' },
      { token: 'beta-both', realm: 'beta', role: 'both' },
    ],
  },
  { mqtt: { enabled: true, port: 0 } },
);
const alpha = { username: 'alpha', password: 'alpha-both' };
const beta = { username: 'beta', password: 'beta-both' };

describe('$SYS presence topics', () => {
  it('announce connect and disconnect inside the realm, to $SYS filters only', async () => {
    const watcher = await mqttClient(ctx.h, alpha);
    const wildcards = await mqttClient(ctx.h, alpha);
    const other = await mqttClient(ctx.h, beta);
    const seen: string[] = [];
    const leaked: string[] = [];
    watcher.on('message', (t, p) => seen.push(`${t}=${p.toString()}`));
    wildcards.on('message', (t, p) => leaked.push(`alpha ${t}=${p.toString()}`));
    other.on('message', (t, p) => leaked.push(`beta ${t}=${p.toString()}`));
    await watcher.subscribeAsync('$SYS/#');
    await wildcards.subscribeAsync(['#', '+/alpha/new/clients', '+/+/+/clients']);
    await other.subscribeAsync(['$SYS/#', '#']);

    const device = await mqttClient(ctx.h, { ...alpha, clientId: 'dev-1' });
    await delay(100);
    await device.endAsync();
    for (let i = 0; i < 100 && seen.length < 2; i++) await delay(20);
    await delay(100);
    expect(seen).toEqual(['$SYS/alpha/new/clients=dev-1', '$SYS/alpha/disconnect/clients=dev-1']);
    expect(leaked).toEqual([]);
  });

  it('announce tyo-mq consumers and producers of the realm by name, inside the realm only', async () => {
    const watcher = await mqttClient(ctx.h, alpha);
    const wildcards = await mqttClient(ctx.h, alpha);
    const other = await mqttClient(ctx.h, beta);
    const seen: string[] = [];
    const leaked: string[] = [];
    const inBeta: string[] = [];
    watcher.on('message', (t, p) => seen.push(`${t}=${p.toString()}`));
    wildcards.on('message', (t, p) => leaked.push(`alpha ${t}=${p.toString()}`));
    other.on('message', (t, p) => inBeta.push(`${t}=${p.toString()}`));
    await watcher.subscribeAsync('$SYS/alpha/+/clients');
    await wildcards.subscribeAsync(['#', '+/alpha/new/clients', '+/+/+/clients']);
    await other.subscribeAsync(['$SYS/#', '#']);
    const until = async (list: string[], n: number) => {
      for (let i = 0; i < 100 && list.length < n; i++) await delay(20);
    };

    const consumer = await consumerIn(ctx.h, { token: 'alpha-both' }, 'c-alpha');
    await until(seen, 1);
    const producer = await producerIn(ctx.h, { token: 'alpha-both' }, 'p-alpha');
    await until(seen, 2);
    const stranger = await consumerIn(ctx.h, { token: 'beta-both' }, 'c-beta');
    await until(inBeta, 1);
    consumer.disconnect();
    await until(seen, 3);
    producer.disconnect();
    await until(seen, 4);
    stranger.disconnect();
    await until(inBeta, 2);
    await delay(100);
    expect(seen).toEqual([
      '$SYS/alpha/new/clients=c-alpha',
      '$SYS/alpha/new/clients=p-alpha',
      '$SYS/alpha/disconnect/clients=c-alpha',
      '$SYS/alpha/disconnect/clients=p-alpha',
    ]);
    expect(inBeta).toEqual(['$SYS/beta/new/clients=c-beta', '$SYS/beta/disconnect/clients=c-beta']);
    expect(leaked).toEqual([]);
  });

  it('clients may not publish to $ topics', async () => {
    const watcher = await mqttClient(ctx.h, alpha);
    const seen: string[] = [];
    watcher.on('message', (t) => seen.push(t));
    await watcher.subscribeAsync('$SYS/alpha/fake');
    const forger = await mqttClient(ctx.h, alpha);
    const closed = new Promise<void>((resolve) => forger.once('close', () => resolve()));
    forger.publish('$SYS/alpha/fake', 'x', { qos: 1 });
    await closed;
    expect(seen).toEqual([]);
  });
});

describe('internal names of $ topics', () => {
  it('live under $swb:<realm>/, apart from the realm wildcard space', () => {
    expect(scopeTopic('a', '$SYS/a/new/clients')).toBe('$swb:a/$SYS/a/new/clients');
    expect(scopeTopic('a', '#')).toBe('a/#');
    expect(unscopeTopic('$swb:a%2Fb/$SYS/x')).toEqual({ realm: 'a/b', topic: '$SYS/x' });
    // aedes' own topics, and forged mixes, belong to no realm.
    expect(unscopeTopic('$SYS/broker/heartbeat')).toBeNull();
    expect(unscopeTopic('a/$SYS/x')).toBeNull();
    expect(unscopeTopic('$swb:a/plain')).toBeNull();
  });
});
