/**
 * Redis high availability through Sentinel (issue 21; docs/cluster.md "Redis high availability
 * (Sentinel)"): two nodes that know only the sentinels relay to each other, follow a failover
 * to the promoted replica without operator action — the master killed (SIGKILL), or demoted
 * alive by `SENTINEL FAILOVER` — and relay again. Each test has its own master, replica and
 * sentinel (test/helpers/redis-sentinel.ts), checks that every link ends up on the new master
 * (`CLIENT LIST`), and measures how long relaying paused: the longest gap between arrivals on
 * B of messages produced on A every 50 ms.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type Harness,
} from '../helpers/broker-harness';
import { freshPrefix, seesNodes } from '../helpers/cluster-nodes';
import { pollFor, startSentinelSet, withClient, type SentinelSet } from '../helpers/redis-sentinel';
import { waitFor, waitUntil } from '../helpers/wait';
import { RedisLinks } from '../../broker/cluster/redis-links';
import { captureLogs } from '../support/log-capture';

const JOB = exactConsumeEvent('fleet', 'job');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Deployment {
  set: SentinelSet;
  a: Harness;
  b: Harness;
}

/**
 * A sentinel set and two nodes: A with `cluster.sentinel`, B with a Redis store on the same
 * sentinels and a cluster block that inherits them (`storage_options.sentinel`).
 */
async function deploy(): Promise<Deployment> {
  const set = await startSentinelSet();
  cleanups.push(() => set.stop());
  const sentinel = { sentinels: set.sentinels.map((s) => `${s.host}:${s.port}`), name: set.name };
  const prefix = freshPrefix();
  const cluster = (id: string): Record<string, unknown> => ({
    enabled: true,
    prefix,
    node_id: id,
    heartbeat_ms: 200,
  });
  const a = await startBroker({ cluster: { ...cluster('ha-a'), sentinel } });
  cleanups.push(() => a.close());
  const b = await startBroker({
    storage: 'redis',
    storage_options: { sentinel, prefix: `${prefix}:queue` },
    cluster: cluster('ha-b'),
  });
  cleanups.push(() => b.close());
  await waitUntil(() => seesNodes(a, 2) && seesNodes(b, 2), 'both nodes see each other');
  return { set, a, b };
}

interface Pause {
  /** Longest gap between two arrivals on B (ms). */
  gapMs: number;
  /** From the trigger until both nodes reported Redis up with both nodes listed (ms). */
  upAgainMs: number;
  sent: number;
  arrived: number;
}

/**
 * Produces on A every 50 ms, runs `trigger`, waits for both nodes to see each other again and
 * for a message produced after that to arrive on B, and reports the pause.
 */
async function relayAcross(d: Deployment, trigger: () => Promise<void>): Promise<Pause> {
  const remote = await d.b.consumer('remote');
  await subscribe(remote, 'remote', 'fleet', 'job');
  const p = await d.a.producer('fleet');
  const arrivals: { i: number; at: number }[] = [];
  remote.on(JOB, (m: { message: { i: number } }) => {
    arrivals.push({ i: m.message.i, at: Date.now() });
  });
  let sent = 0;
  const timer = setInterval(() => produce(p, 'fleet', 'job', { i: sent++ }), 50);
  try {
    await waitUntil(() => arrivals.length >= 5, 'relaying before the failover');
    const t0 = Date.now();
    await trigger();
    // The command and subscriber links of both nodes and B's store are on the new master.
    const port = await d.set.masterPort();
    const expected = ['cmd', 'cmd', 'store', 'sub', 'sub'].map((n) => `switchboard-${n}`);
    await pollFor(
      () =>
        withClient(port, async (c) => {
          const list = String(await c.call('CLIENT', 'LIST'));
          const names = [...list.matchAll(/ name=(switchboard-(?:cmd|sub|store)) /g)]
            .map((m) => m[1])
            .sort();
          return JSON.stringify(names) === JSON.stringify(expected) ? names : undefined;
        }),
      'both nodes are connected to the new master',
      30_000,
    );
    await waitUntil(
      () => seesNodes(d.a, 2) && seesNodes(d.b, 2),
      'both nodes report Redis up and see each other',
      30_000,
    );
    const upAgainMs = Date.now() - t0;
    const firstAfter = sent;
    await waitUntil(
      () => arrivals.some((x) => x.i >= firstAfter),
      'relaying after the failover',
      10_000,
    );
    let gapMs = 0;
    for (let k = 1; k < arrivals.length; k++) {
      gapMs = Math.max(gapMs, arrivals[k]!.at - arrivals[k - 1]!.at);
    }
    const order = arrivals.map((x) => x.i);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    return { gapMs, upAgainMs, sent, arrived: arrivals.length };
  } finally {
    clearInterval(timer);
  }
}

describe('Redis Sentinel failover', () => {
  it('follows a killed master to the promoted replica and relays again', async () => {
    const d = await deploy();
    expect(d.a.broker.getStats().cluster?.redis_url).toBe(
      `sentinel://127.0.0.1:${d.set.sentinels[0]!.port}/${d.set.name}`,
    );
    const old = await d.set.masterPort();
    const pause = await relayAcross(d, async () => {
      await (await d.set.master()).kill();
      expect(await d.set.waitForNewMaster(old)).toBe(d.set.servers[1].port);
    });
    console.info(`[sentinel] SIGKILL failover: ${JSON.stringify(pause)}`);
    expect(pause.gapMs).toBeLessThan(15_000);

    // A consumer that subscribes on B after the failover gets what a new producer on A sends.
    const late = await d.b.consumer('late');
    await subscribe(late, 'late', 'fleet', 'job');
    const got = waitFor(late, JOB);
    produce(await d.a.producer('fleet'), 'fleet', 'job', 'after the failover');
    expect(await got).toMatchObject({ message: 'after the failover' });
  }, 60_000);

  it('follows a manual failover (SENTINEL FAILOVER: the old master is demoted alive)', async () => {
    const d = await deploy();
    const old = await d.set.masterPort();
    const pause = await relayAcross(d, async () => {
      await withClient(d.set.sentinels[0]!.port, (s) => s.call('SENTINEL', 'FAILOVER', d.set.name));
      await d.set.waitForNewMaster(old);
    });
    console.info(`[sentinel] SENTINEL FAILOVER: ${JSON.stringify(pause)}`);
    expect(pause.gapMs).toBeLessThan(15_000);
  }, 60_000);
});

describe('a link that reaches a replica', () => {
  it('reconnects on READONLY instead of writing into a read-only server for ever', async () => {
    const set = await startSentinelSet();
    cleanups.push(() => set.stop());
    const replica = set.servers[1];
    const log = captureLogs();
    const links = new RedisLinks(
      { target: { kind: 'url', url: replica.url }, connectTimeoutMs: 2_000 },
      log.logger,
    );
    cleanups.push(() => links.close());
    expect(await links.connect()).toBe(true);
    const reconnecting = new Promise((resolve) => links.command.once('reconnecting', resolve));
    await expect(links.command.set('k', 'v')).rejects.toThrow(/READONLY/);
    await reconnecting;
    await waitUntil(() => links.up, 'the link is back');
  });
});
