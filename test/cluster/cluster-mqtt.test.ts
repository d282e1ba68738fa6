/**
 * MQTT clients on a cluster (docs/cluster.md): devices connected to different nodes share one
 * topic space. MQTT → MQTT, tyo-mq → MQTT and MQTT → tyo-mq across nodes, each subscriber
 * getting one copy; realms stay apart across nodes.
 */
import type { MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anyProducerKey, consumeEvent } from '../../shared/protocol-events';
import { produce, subscribe, type Harness } from '../helpers/broker-harness';
import { startCluster, type ClusterNodes } from '../helpers/cluster-nodes';
import { mqttClient, nextMessage } from '../helpers/mqtt-clients';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { delay, expectNothing, waitFor } from '../helpers/wait';

let redis: RedisServer;
let cluster: ClusterNodes;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});
beforeEach(async () => {
  cluster = await startCluster(redis.url, ['mqtt-a', 'mqtt-b'], {
    mqtt: { enabled: true, port: 0 },
  });
  [a, b] = cluster.nodes as [Harness, Harness];
});
afterEach(async () => {
  await cluster.close();
});

/** Counts the messages `client` receives from now on. */
function counter(client: MqttClient): { topics: string[] } {
  const seen = { topics: [] as string[] };
  client.on('message', (topic) => seen.topics.push(topic));
  return seen;
}

describe('MQTT across nodes', () => {
  it('delivers an MQTT PUBLISH on node A to an MQTT subscriber on node B, once', async () => {
    const sub = await mqttClient(b, { clientId: 'display' });
    await sub.subscribeAsync('sensors/#', { qos: 1 });
    const seen = counter(sub);
    const got = nextMessage(sub);
    const pub = await mqttClient(a, { clientId: 'probe' });
    await pub.publishAsync('sensors/kitchen/temp', '21.5', { qos: 1 });
    expect(await got).toMatchObject({ topic: 'sensors/kitchen/temp', text: '21.5' });
    await delay(300);
    expect(seen.topics).toEqual(['sensors/kitchen/temp']);
  });

  it('delivers a tyo-mq PRODUCE on A to MQTT on B, and MQTT on B to tyo-mq on A', async () => {
    const device = await mqttClient(b, { clientId: 'truck-7' });
    await device.subscribeAsync('fleet/truck-7/cmd', { qos: 1 });
    const cmd = nextMessage(device);
    const p = await a.producer('dispatch');
    produce(p, 'dispatch', 'fleet/truck-7/cmd', { op: 'stop' });
    expect(JSON.parse((await cmd).text)).toEqual({ op: 'stop' });

    const app = await a.consumer('app');
    await subscribe(app, 'app', 'TYO-MQ-ALL', 'fleet/+/status', { mode: 'topic' });
    const status = waitFor(app, consumeEvent(anyProducerKey('fleet/+/status')));
    await device.publishAsync('fleet/truck-7/status', JSON.stringify({ ok: true }), { qos: 1 });
    expect(await status).toMatchObject({
      event: 'fleet/truck-7/status',
      message: { ok: true },
      from: 'truck-7',
    });
    await expectNothing(app, consumeEvent(anyProducerKey('fleet/+/status')), 300);
  });
});
