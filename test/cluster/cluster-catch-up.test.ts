/**
 * The streams relay catches up (issue 21, docs/cluster.md "Node failures"): a node SIGKILLed
 * while its durable consumer is offline gets, once restarted with the same data directory,
 * every message produced on its peer while it was down, in publish order, then the live ones
 * after them; nothing is counted missed. A node that stays away longer than
 * `cluster.retention_ms` gets nothing of what was trimmed, and says exactly how much that was
 * (`/api/stats` `cluster.relay.missed`, `tyo_mq_cluster_relay_missed_total`).
 * Node C is a real broker process (SQLite store, kept node id); node A is in-process.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type Harness,
} from '../helpers/broker-harness';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { clusterBlock, freshPrefix } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil, waitUntilAsync } from '../helpers/wait';
import { connectSocket } from '../support/connect-socket';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { ClientEvent } from '../../shared/protocol-events';
import type { Socket } from 'socket.io-client';
import { inboxMessages } from '../helpers/relay-inbox';

const JOB = exactConsumeEvent('fleet', 'job');

let redis: RedisServer;
let dir: TempDir;
const opened: { close(): Promise<void> | void }[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  dir = await makeTempDir('switchboard-catch-up-');
});
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});
afterAll(async () => {
  await redis.stop();
  await dir.remove();
});

interface NodeC {
  start(): Promise<BrokerProcess>;
}

/** Node C: a broker process with its own data directory and a settings file for the cluster. */
function nodeC(name: string, prefix: string, cluster: Record<string, unknown> = {}): NodeC {
  const dataDir = path.join(dir.path, name);
  const settings = path.join(dir.path, `${name}.json`);
  writeFileSync(
    settings,
    JSON.stringify({
      http_api: { enabled: true },
      // No node_id: the one kept in the data directory is what makes it the same member.
      cluster: { ...clusterBlock(redis.url, prefix, 'unused', cluster), node_id: undefined },
    }),
  );
  return {
    async start() {
      const node = await startBrokerProcess([
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--settings',
        settings,
        '--storage',
        'sqlite',
      ]);
      opened.push({ close: () => node.stop() });
      return node;
    },
  };
}

async function stats(url: string): Promise<{
  realms: Record<string, { queued?: number }>;
  cluster?: { nodes: unknown[]; relay?: { missed?: number; members?: string[] } };
}> {
  return (await (await fetch(`${url}/api/stats`)).json()) as never;
}

async function sleeper(url: string): Promise<Socket> {
  const socket = await connectSocket(url, []);
  opened.push({ close: () => void socket.close() });
  socket.emit(ClientEvent.CONSUMER, { name: 'sleeper', id: 'sleeper-1' });
  return socket;
}

describe('a node SIGKILLed while its durable consumer is offline', () => {
  it('gets everything produced meanwhile on restart, in order, then the live messages', async () => {
    const prefix = freshPrefix();
    const a: Harness = await startBroker({
      // The first node seeds the cluster's shared settings: C adopts its http_api.
      http_api: { enabled: true },
      cluster: clusterBlock(redis.url, prefix, 'node-a'),
    });
    opened.push(a);
    const c = nodeC('c1', prefix);
    let node = await c.start();
    await waitUntilAsync(
      async () => (await stats(node.url)).cluster?.relay?.members?.length === 2,
      'C sees A',
      10_000,
    );
    await waitUntil(() => a.broker.getStats().cluster?.relay?.members?.length === 2, 'A sees C');

    const first = await sleeper(node.url);
    await subscribe(first, 'sleeper', 'fleet', 'job', { durable: true });
    first.close();
    const p = await a.producer('fleet');
    produce(p, 'fleet', 'job', 0);
    await waitUntilAsync(
      async () => (await stats(node.url)).realms.default?.queued === 1,
      'C stores 0',
    );

    node.child.kill('SIGKILL');
    await node.exited;
    for (let n = 1; n <= 300; n++) produce(p, 'fleet', 'job', n);
    const inbox = new Redis(redis.url);
    opened.push({ close: () => void inbox.disconnect() });
    const key = `${prefix}:inbox:${(await stats(a.url)).cluster?.relay?.members?.find((m) => m !== 'node-a')}`;
    await waitUntilAsync(
      async () => (await inboxMessages(inbox, key)) >= 301,
      'the inbox holds what C is owed',
    );

    node = await c.start();
    await waitUntilAsync(
      async () => (await stats(node.url)).realms.default?.queued === 301,
      'C stored all',
    );
    expect((await stats(node.url)).cluster?.relay?.missed).toBe(0);

    const back = await sleeper(node.url);
    const got: number[] = [];
    back.on(JOB, (m: { message: number }) => got.push(m.message));
    await subscribe(back, 'sleeper', 'fleet', 'job', { durable: true });
    await waitUntil(() => got.length >= 301, 'the backlog arrives');
    for (let n = 301; n <= 350; n++) produce(p, 'fleet', 'job', n);
    await waitUntil(() => got.length >= 351, 'the live messages arrive');
    expect(got).toEqual(Array.from({ length: 351 }, (_, n) => n));
  });
});

describe('(control) the same with the pub/sub relay', () => {
  it('loses what was produced while the node was down', async () => {
    const prefix = freshPrefix();
    const pubsub = { relay: 'pubsub' };
    const a: Harness = await startBroker({
      http_api: { enabled: true },
      cluster: clusterBlock(redis.url, prefix, 'node-a', pubsub),
    });
    opened.push(a);
    const c = nodeC('c3', prefix, pubsub);
    let node = await c.start();
    await waitUntil(() => a.broker.getStats().cluster?.nodes.length === 2, 'A sees C');
    const first = await sleeper(node.url);
    await subscribe(first, 'sleeper', 'fleet', 'job', { durable: true });
    first.close();
    const p = await a.producer('fleet');
    node.child.kill('SIGKILL');
    await node.exited;
    for (let n = 1; n <= 100; n++) produce(p, 'fleet', 'job', n);
    node = await c.start();
    await waitUntilAsync(
      async () => (await stats(node.url)).cluster?.nodes.length === 2,
      'C sees A',
      10_000,
    );
    produce(p, 'fleet', 'job', 101);
    await waitUntilAsync(
      async () => (await stats(node.url)).realms.default?.queued === 1,
      'C has 101',
    );
    // Only the marker produced after C's return: the 100 before it never reached C.
    const back = await sleeper(node.url);
    const got: number[] = [];
    back.on(JOB, (m: { message: number }) => got.push(m.message));
    await subscribe(back, 'sleeper', 'fleet', 'job', { durable: true });
    await waitUntil(() => got.length >= 1, 'the marker arrives');
    expect(got).toEqual([101]);
  });
});

describe('a node away longer than the retention', () => {
  it('counts and reports exactly what was trimmed before it read it', async () => {
    const prefix = freshPrefix();
    const a: Harness = await startBroker({
      http_api: { enabled: true },
      cluster: clusterBlock(redis.url, prefix, 'node-a', { retention_ms: 1_000 }),
    });
    opened.push(a);
    const c = nodeC('c2', prefix, { retention_ms: 1_000 });
    let node = await c.start();
    await waitUntil(() => a.broker.getStats().cluster?.relay?.members?.length === 2, 'A sees C');
    const cId = a.broker.getStats().cluster?.relay?.members?.find((m) => m !== 'node-a');
    const first = await sleeper(node.url);
    await subscribe(first, 'sleeper', 'fleet', 'job', { durable: true });
    first.close();
    await node.stop();

    const p = await a.producer('fleet');
    for (let n = 1; n <= 50; n++) produce(p, 'fleet', 'job', n);
    const inbox = new Redis(redis.url);
    opened.push({ close: () => void inbox.disconnect() });
    const key = `${prefix}:inbox:${cId}`;
    await waitUntilAsync(
      async () => (await inboxMessages(inbox, key)) === 50,
      'the inbox holds 50',
    );
    // Node A trims C's inbox by age and drops C from the members once the retention passed.
    await waitUntilAsync(async () => (await inboxMessages(inbox, key)) === 0, 'trimmed', 15_000);

    node = await c.start();
    await waitUntilAsync(
      async () => (await stats(node.url)).cluster?.relay?.missed === 50,
      'missed 50',
    );
    const metrics = await (await fetch(`${node.url}/api/metrics`)).text();
    expect(metrics).toContain('tyo_mq_cluster_relay_missed_total 50');
    expect((await stats(node.url)).realms.default?.queued ?? 0).toBe(0);
  });
});
