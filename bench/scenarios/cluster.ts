/**
 * Cluster scenario (`BENCH_ONLY=cluster`; docs/cluster.md): what relaying every message over
 * Redis pub/sub costs, measured against one broker in the same run.
 *
 * Set-up: a private `redis-server` on a free port (test/helpers/redis-server.ts), one plain
 * broker (`single`, cluster off) and two cluster nodes `a` and `b` (`cluster.enabled`, a fresh
 * key prefix), each in its own child process. Configurations, 1 KiB messages (nominal JSON
 * size), stock-default clients, closed loop with a bounded window (as the fan-out scenario):
 *   - `single`: 1 producer → 1 consumer on the plain broker;
 *   - `cluster_local`: producer and consumer both on node a (the relay still publishes every
 *     message to Redis, and node b receives and routes it to nobody);
 *   - `cluster_cross`: producer on a → consumer on b (every delivery crosses Redis);
 *   - `single_fanout`: 1 producer → 10 consumers on the plain broker;
 *   - `cluster_fanout`: producer on a → 10 consumers, 5 on a and 5 on b;
 *   - `cluster_cross_fanout`: producer on a → 10 consumers, all on b (every delivery crosses);
 *   - `cluster_cross_pubsub`: as `cluster_cross` on a second pair of nodes with
 *     `relay: "pubsub"` (the reference's channel), for `streams_vs_pubsub`: the streams relay's
 *     idle latency should stay within 1 ms of pub/sub's.
 * Issue 21's goal: cross-node deliveries/s ≥ 0.7 × one broker's, 1 → 1 and 1 → 10
 * (`cross_node`, reported next to the measured ratios, never asserted).
 * Each configuration uses its own producer name and event, so sessions do not see each
 * other's messages. After one unmeasured full-size pass over every configuration (JIT
 * warm-up), every configuration is measured `repeats` times, interleaved (forward order, then
 * reversed, …), each preceded by a short warm-up phase; one measurement = a throughput phase
 * then an idle-latency phase (one message in flight), as `measureRun`.
 *
 * The "server" figures of a cluster configuration are both nodes together (`ServerGroup`);
 * Redis's CPU and bytes over the throughput phase are reported beside them. Redis's CPU is
 * not counted in `other_cpu_pct`.
 *
 * Units: rates per second, times in ms, CPU in % of one core, sizes in bytes.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { consumeEvent, subscriptionKey } from '../../shared/protocol-events';
import { startRedisServer, type RedisServer } from '../../test/helpers/redis-server';
import {
  closeAll,
  connectClient,
  registerConsumer,
  registerProducer,
  subscribeExact,
  type Socket,
} from '../lib/clients';
import { LoadSession } from '../lib/load-session';
import { measureRun } from '../lib/measure';
import { ServerGroup, parseInfo } from '../lib/server-group';
import { round } from '../lib/stats';
import { forkServer, type ForkOptions, type ServerHandle } from '../servers/server-process';
import {
  summarise,
  type CaseSpec,
  type ClusterBenchResult,
  type MeasuredCase,
} from './cluster-summary';

export type { ClusterBenchResult } from './cluster-summary';

export interface ClusterBenchConfig {
  payloadBytes: number;
  /** Throughput-phase messages by consumer count (1 and `fanoutConsumers`). */
  messages: Record<number, number>;
  /** Most messages in flight, by consumer count. */
  window: (consumers: number) => number;
  fanoutConsumers: number;
  capMs: number;
  latencyMessages: number;
  latencyCapMs: number;
  repeats: number;
}

/** The scenario's defaults; `window` is run-all's in-flight rule (shared with fan-out). */
export const clusterBenchConfig = (
  quick: boolean,
  repeats: number,
  window: (consumers: number) => number,
): ClusterBenchConfig => ({
  payloadBytes: 1024,
  messages: quick ? { 1: 1_000, 10: 200 } : { 1: 20_000, 10: 4_000 },
  window,
  fanoutConsumers: 10,
  capMs: quick ? 2_000 : 3_000,
  latencyMessages: quick ? 20 : 300,
  latencyCapMs: quick ? 500 : 2_000,
  repeats,
});

function caseSpecs(fanout: number): CaseSpec[] {
  const split = Array.from({ length: fanout }, (_, i) => i % 2);
  return [
    { name: 'single', description: '1 → 1, one broker', cluster: false, consumerNodes: [0] },
    {
      name: 'cluster_local',
      description: '1 → 1, producer and consumer on node a (2-node cluster)',
      cluster: true,
      consumerNodes: [0],
    },
    {
      name: 'cluster_cross',
      description: '1 → 1, producer on node a, consumer on node b',
      cluster: true,
      consumerNodes: [1],
    },
    {
      name: 'cluster_cross_pubsub',
      description: '1 → 1, producer on node a, consumer on node b, relay: "pubsub" (reference)',
      cluster: true,
      relay: 'pubsub',
      consumerNodes: [1],
    },
    {
      name: 'single_fanout',
      description: `1 → ${fanout}, one broker`,
      cluster: false,
      consumerNodes: split.map(() => 0),
    },
    {
      name: 'cluster_fanout',
      description: `1 → ${fanout}, producer on node a, consumers split evenly over a and b`,
      cluster: true,
      consumerNodes: split,
    },
    {
      name: 'cluster_cross_fanout',
      description: `1 → ${fanout}, producer on node a, every consumer on node b`,
      cluster: true,
      consumerNodes: split.map(() => 1),
    },
  ];
}

interface Case extends MeasuredCase {
  server: ServerGroup;
  sockets: Socket[];
  session: LoadSession;
}

/** Runs the scenario (see the module comment); `log` gets progress lines. */
export async function runClusterBench(
  config: ClusterBenchConfig,
  fork: ForkOptions,
  log: (line: string) => void,
): Promise<ClusterBenchResult> {
  const loadStart = loadavg().map((l) => round(l, 2) ?? 0);
  const redis: RedisServer = await startRedisServer();
  const servers: ServerHandle[] = [];
  const cases: Case[] = [];
  let info: Redis | null = null;
  try {
    info = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const redisVersion = parseInfo(await info.info('server')).redis_version ?? null;
    const prefix = `bench-${randomBytes(4).toString('hex')}`;
    const start = async (settings: object) => {
      const env = { ...fork.env, BENCH_BROKER_SETTINGS: JSON.stringify(settings) };
      const server = await forkServer('broker', { ...fork, env });
      servers.push(server);
      return server;
    };
    const single = await start({});
    const nodes = [];
    for (const nodeId of ['bench-a', 'bench-b']) {
      nodes.push(
        await start({ cluster: { enabled: true, redis_url: redis.url, prefix, node_id: nodeId } }),
      );
    }
    // A second pair on the reference's pub/sub relay, same run, for the latency comparison.
    const pubsubNodes = [];
    for (const nodeId of ['bench-pa', 'bench-pb']) {
      const cluster = { enabled: true, redis_url: redis.url, node_id: nodeId, relay: 'pubsub' };
      pubsubNodes.push(await start({ cluster: { ...cluster, prefix: `${prefix}-pubsub` } }));
    }
    log(
      `redis ${redisVersion} on ${redis.port}; pids: single ${single.pid}, ` +
        `a ${nodes[0]!.pid}, b ${nodes[1]!.pid} (CPU profiles are named by pid)`,
    );
    for (const spec of caseSpecs(config.fanoutConsumers)) {
      const targets = !spec.cluster ? [single] : spec.relay === 'pubsub' ? pubsubNodes : nodes;
      cases.push(await connectCase(spec, new ServerGroup(targets, info), targets, config));
    }
    // One unmeasured pass over every configuration first: freshly started brokers are far slower
    // on their first phase (the JIT), which would penalise whichever configuration runs first.
    for (const c of cases) await warmUp(c, config, 1, config.capMs);
    for (let r = 0; r < config.repeats; r++) {
      const order = r % 2 === 0 ? cases : [...cases].reverse();
      for (const c of order) await measureCase(c, config, r, log);
    }
    return summarise(cases, config, redisVersion, loadStart);
  } finally {
    for (const c of cases) {
      c.session.detach();
      closeAll(c.sockets);
    }
    await Promise.all(servers.map((s) => s.stop()));
    await info?.quit().catch(() => info?.disconnect());
    await redis.stop();
  }
}

/** Connects and registers one configuration's clients, then waits until every consumer is fed. */
async function connectCase(
  spec: CaseSpec,
  server: ServerGroup,
  nodes: readonly ServerHandle[],
  config: ClusterBenchConfig,
): Promise<Case> {
  const producerName = `bench-${spec.name}`;
  const event = `bench/${spec.name}`;
  const sockets: Socket[] = [];
  const consumers = [];
  const deliveryEvent = consumeEvent(subscriptionKey(producerName, event));
  try {
    for (const [i, node] of spec.consumerNodes.entries()) {
      const socket = await connectClient(nodes[node]!.url);
      sockets.push(socket);
      const name = `${producerName}-consumer-${i}`;
      registerConsumer(socket, name);
      subscribeExact(socket, name, producerName, event);
      consumers.push({ socket, deliveryEvent });
    }
    const producer = await connectClient(nodes[0]!.url);
    sockets.push(producer);
    registerProducer(producer, producerName);
    const session = new LoadSession(producer, producerName, event, consumers, config.payloadBytes);
    await session.untilAllReceive();
    return { spec, server, sockets, session, runs: [], extras: [] };
  } catch (err) {
    closeAll(sockets); // the caller only closes the configurations that are set up
    throw err;
  }
}

/** An unmeasured phase of `share` × the configuration's messages, at most `capMs` long. */
async function warmUp(c: Case, config: ClusterBenchConfig, share: number, capMs: number) {
  const consumers = c.spec.consumerNodes.length;
  const messages = config.messages[consumers] ?? config.messages[1]!;
  await c.session.phase({
    messages: Math.ceil(messages * share),
    window: config.window(consumers),
    capMs,
  });
}

async function measureCase(
  c: Case,
  config: ClusterBenchConfig,
  r: number,
  log: (line: string) => void,
): Promise<void> {
  await warmUp(c, config, 1 / 5, 1_000);
  const consumers = c.spec.consumerNodes.length;
  const messages = config.messages[consumers] ?? config.messages[1]!;
  const window = config.window(consumers);
  const run = await measureRun(c.session, c.server, {
    messages,
    window,
    capMs: config.capMs,
    latencyMessages: config.latencyMessages,
    latencyCapMs: config.latencyCapMs,
  });
  const phase = c.server.lastPhase();
  // LoadProbe counted Redis among "other" processes; it is part of the system under test here.
  run.other_cpu_pct = Math.max(0, run.other_cpu_pct - phase.redis_cpu_pct);
  c.runs.push(run);
  c.extras.push({
    phase,
    published: run.published,
    delivered: run.delivered,
    nodesCpuUs: run.server_cpu_ms * 1000,
  });
  log(
    `${c.spec.name} (${r + 1}/${config.repeats}): ${Math.round(run.deliveries_per_s)} deliveries/s, ` +
      `idle p50 ${run.latency_idle.p50_ms.toFixed(2)} ms, redis ${phase.redis_cpu_pct.toFixed(0)} %`,
  );
}
