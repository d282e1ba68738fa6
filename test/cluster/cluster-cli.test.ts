/**
 * The headless broker's cluster flags, as an operator runs two nodes: `--cluster <redis-url>`
 * and `--node-id <id>`; a message produced on one node reaches a consumer on the other, both
 * nodes list each other in `/api/stats`, and bad flag values exit with the usage code.
 */
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import { startBrokerProcess, runBrokerToExit, type BrokerProcess } from '../helpers/broker-process';
import { exactConsumeEvent } from '../helpers/broker-harness';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  producePayload,
} from '../helpers/stock-clients';
import { waitFor } from '../helpers/wait';
import { makeTempDir, type TempDir } from '../support/temp-dir';

let redis: RedisServer;
let dir: TempDir;
const nodes: BrokerProcess[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  dir = await makeTempDir('switchboard-cluster-cli-');
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await Promise.all(nodes.map((n) => n.stop()));
  await redis.stop();
  await dir.remove();
});

function connect(url: string): Promise<Socket> {
  const s = io(url, { forceNew: true, reconnection: false, transports: ['websocket'] });
  sockets.push(s);
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

async function stats(url: string): Promise<{ cluster?: { nodes: { node_id: string }[] } }> {
  return (await (await fetch(`${url}/api/stats`)).json()) as never;
}

describe('npm run broker -- --cluster <url> --node-id <id>', () => {
  it('runs two nodes that relay to each other', async () => {
    for (const id of ['east', 'west']) {
      nodes.push(
        await startBrokerProcess([
          '--port',
          '0',
          '--storage',
          'memory',
          '--data-dir',
          `${dir.path}/${id}`,
          '--cluster',
          redis.url,
          '--node-id',
          id,
        ]),
      );
    }
    const [east, west] = nodes as [BrokerProcess, BrokerProcess];
    let seen: string[] = [];
    for (let i = 0; i < 100 && seen.length < 2; i++) {
      seen = ((await stats(east.url)).cluster?.nodes ?? []).map((n) => n.node_id).sort();
      if (seen.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toEqual(['east', 'west']);

    const consumer = await connect(west.url);
    consumer.emit(ClientEvent.CONSUMER, consumerPayload('w'));
    consumer.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload('w', 'fleet', 'job'));
    await consumer
      .timeout(2_000)
      .emitWithAck(ClientEvent.PING, {})
      .catch(() => undefined);
    const producer = await connect(east.url);
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
    const got = waitFor(consumer, exactConsumeEvent('fleet', 'job'));
    producer.emit(ClientEvent.PRODUCE, producePayload('job', { n: 1 }, { from: 'fleet' }));
    expect(await got).toEqual({ event: 'job', message: { n: 1 }, from: 'fleet' });
    const health = (await (await fetch(`${west.url}/health`)).json()) as { node_id: string };
    expect(health.node_id).toBe('west');
  });

  it('refuses a --cluster that is not a Redis URL, and a bad --node-id, with exit 2', async () => {
    const badUrl = await runBrokerToExit(['--port', '0', '--cluster', 'http://example']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('Invalid --cluster http://example');
    const badId = await runBrokerToExit(['--port', '0', '--node-id', 'has space']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain('Invalid --node-id');
  });
});
