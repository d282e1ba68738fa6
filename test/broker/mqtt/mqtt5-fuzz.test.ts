/**
 * Seeded MQTT 5 fuzz (issue 14: "malformed packets of every kind close only the offending
 * connection"): 300 connections each send a random, partly corrupted packet sequence
 * (test/helpers/mqtt5-fuzz.ts). The broker runs in this process, so an exception thrown
 * anywhere in aedes or our hooks fails the test run; afterwards a client connected before all
 * of it still gets messages and new clients are served. Longer runs: MQTT_FUZZ_CONNECTIONS.
 */
import { connect as tcpConnect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useBroker } from '../../helpers/broker-harness';
import { prng } from '../../helpers/fuzz';
import { mqttClient, mqttPort, nextMessage } from '../../helpers/mqtt-clients';
import { mqtt5FuzzSequence } from '../../helpers/mqtt5-fuzz';

const ctx = useBroker({ mqtt: { enabled: true, port: 0, topic_alias_max: 8 } });
const CONNECTIONS = Number(process.env.MQTT_FUZZ_CONNECTIONS ?? 300);

function fuzzOne(port: number, packets: Buffer[]): Promise<void> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.on('error', () => {});
    s.once('close', () => resolve());
    s.once('connect', () => {
      for (const p of packets) s.write(p);
      setTimeout(() => s.destroy(), 40);
    });
  });
}

describe('MQTT 5 fuzz', () => {
  it(`survives ${CONNECTIONS} connections of random and corrupted packets`, async () => {
    const bystander = await mqttClient(ctx.h, { protocolVersion: 5 });
    await bystander.subscribeAsync('still/here', { qos: 1 });
    const random = prng(0x5eed14);
    const port = mqttPort(ctx.h);
    for (let done = 0; done < CONNECTIONS; done += 10) {
      await Promise.all(Array.from({ length: 10 }, () => fuzzOne(port, mqtt5FuzzSequence(random))));
    }
    expect(bystander.connected).toBe(true);
    const got = nextMessage(bystander);
    const p = await mqttClient(ctx.h, { protocolVersion: 5 });
    await p.publishAsync('still/here', 'alive', { qos: 1 });
    expect((await got).text).toBe('alive');
  }, 60_000);
});
