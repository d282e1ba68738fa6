/**
 * Cluster idle-node scenario (`BENCH_ONLY=cluster-idle`; issue 21, docs/cluster.md): how much
 * CPU a cluster node spends per message it has no subscriber for.
 *
 * Set-up: a private `redis-server` and 4 cluster nodes `a`–`d` (each its own child process,
 * `cluster: {enabled, redis_url, node_id, prefix}`, otherwise default settings). The producer
 * is on node a, the consumers (stock-default clients, exact subscription) on node b; nodes c
 * and d have no client at all. 1 KiB messages, closed loop with a bounded window (as the
 * fan-out scenario), after one unmeasured warm-up phase.
 *
 * One measurement, per repeat:
 *   1. load: every node's `process.cpuUsage()` (over the bench IPC) and Redis's counters are
 *      read before and after one throughput phase of `messages` messages;
 *   2. settle for `settleMs` (garbage of the load phase is collected outside both windows);
 *   3. idle: the same counters over a window of the same wall-clock length, no traffic.
 * A node's CPU per message = (CPU over the load window − CPU over the idle window, scaled to
 * the load window's length) ÷ messages produced, µs. The idle window removes the node's own
 * timers (heartbeat, idle eviction, metrics) and the samples' IPC round trips.
 *
 * The figure depends only on what node c's process does, not on how the relay routes: today
 * every node receives and parses every message; with interest routing node c should get none
 * of them (issue 21's goal: ≤ 2 µs per message). `redis_pushes_per_message` (Redis bytes out ÷
 * bytes in per message) estimates how many nodes Redis sends each message to.
 *
 * Units: CPU times in µs, CPU in % of one core, rates per second, sizes in bytes.
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
import { parseInfo, redisCounters, type RedisCounters } from '../lib/server-group';
import { median, round } from '../lib/stats';
import {
  forkServer,
  type ForkOptions,
  type ServerHandle,
  type ServerSample,
} from '../servers/server-process';

export interface ClusterIdleConfig {
  payloadBytes: number;
  /** Consumers, all on node b. */
  consumers: number;
  /** Messages per throughput phase. */
  messages: number;
  /** Most messages in flight. */
  window: number;
  /** Cap on a throughput phase, ms. */
  capMs: number;
  /** Pause between the load and the idle window, ms. */
  settleMs: number;
  repeats: number;
}

export const clusterIdleConfig = (quick: boolean, repeats: number): ClusterIdleConfig => ({
  payloadBytes: 1024,
  consumers: 1,
  messages: quick ? 3_000 : 20_000,
  window: 32,
  capMs: quick ? 4_000 : 10_000,
  settleMs: quick ? 500 : 1_000,
  repeats,
});

/** Issue 21's goal: CPU of a node without interest, per message produced, at most (µs). */
export const IDLE_NODE_GOAL_US_PER_MESSAGE = 2;

const NODE_IDS = ['a', 'b', 'c', 'd'] as const;
const ROLES: Record<(typeof NODE_IDS)[number], string> = {
  a: 'producer',
  b: 'consumers',
  c: 'no clients',
  d: 'no clients',
};

/** Counters of every node and Redis at one instant. */
interface Snapshot {
  nodes: ServerSample[];
  redis: RedisCounters;
}

/** One repeat's figures. */
interface IdleRun {
  published: number;
  messagesPerS: number;
  loadMs: number;
  /** Per node: CPU over the load window, over the idle window (scaled), µs. */
  loadCpuUs: number[];
  idleCpuUs: number[];
  redisInBytes: number;
  redisOutBytes: number;
}

export interface ClusterIdleNode {
  node_id: string;
  role: string;
  /** Median (load CPU − idle CPU) ÷ messages produced, µs. */
  cpu_us_per_message: number | null;
  cpu_us_per_message_runs: Array<number | null>;
  /** Median CPU over the load window, % of one core. */
  load_cpu_pct: number | null;
  /** Median CPU over the idle window, % of one core. */
  idle_cpu_pct: number | null;
}

export interface ClusterIdleResult {
  redis_version: string | null;
  nodes: number;
  consumers_on_b: number;
  payload_bytes: number;
  message_json_bytes: number;
  window_messages: number;
  repeats: number;
  messages_per_run: number[];
  messages_per_s: number | null;
  per_node: ClusterIdleNode[];
  /** Node c's `cpu_us_per_message` (the headline figure), next to the goal. */
  idle_node_cpu_us_per_message: number | null;
  goal_max_us_per_message: number;
  meets_goal: boolean | null;
  /** Median bytes Redis received / sent per message produced. */
  redis_in_bytes_per_message: number | null;
  redis_out_bytes_per_message: number | null;
  /** `redis_out ÷ redis_in` per message: about how many nodes Redis pushes each message to. */
  redis_pushes_per_message: number | null;
  load_avg_start: number[];
  load_avg_end: number[];
}

/** Runs the scenario (see the module comment); `log` gets progress lines. */
export async function runClusterIdle(
  config: ClusterIdleConfig,
  fork: ForkOptions,
  log: (line: string) => void,
): Promise<ClusterIdleResult> {
  const loadStart = loadavg().map((l) => round(l, 2) ?? 0);
  const redis: RedisServer = await startRedisServer();
  const nodes: ServerHandle[] = [];
  const sockets: Socket[] = [];
  let info: Redis | null = null;
  let session: LoadSession | null = null;
  try {
    info = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const redisVersion = parseInfo(await info.info('server')).redis_version ?? null;
    const prefix = `bench-idle-${randomBytes(4).toString('hex')}`;
    for (const id of NODE_IDS) {
      const cluster = { enabled: true, redis_url: redis.url, prefix, node_id: `bench-${id}` };
      const env = { ...fork.env, BENCH_BROKER_SETTINGS: JSON.stringify({ cluster }) };
      nodes.push(await forkServer('broker', { ...fork, env }));
    }
    log(
      `redis ${redisVersion}; pids ${NODE_IDS.map((id, i) => `${id} ${nodes[i]!.pid}`).join(', ')}`,
    );
    session = await connect(nodes, sockets, config);
    await session.phase({ messages: config.messages, window: config.window, capMs: config.capMs });
    const snapshot = async (): Promise<Snapshot> => {
      const [samples, counters] = await Promise.all([
        Promise.all(nodes.map((n) => n.sample())),
        redisCounters(info!),
      ]);
      return { nodes: samples, redis: counters };
    };
    const runs: IdleRun[] = [];
    for (let r = 0; r < config.repeats; r++) {
      const run = await measure(session, snapshot, config);
      runs.push(run);
      const c = (run.loadCpuUs[2]! - run.idleCpuUs[2]!) / run.published;
      log(
        `run ${r + 1}/${config.repeats}: ${run.published} messages, ` +
          `${Math.round(run.messagesPerS)}/s; node c ${c.toFixed(2)} µs/message`,
      );
    }
    return summarise(runs, config, session.messageJsonBytes, redisVersion, loadStart);
  } finally {
    session?.detach();
    closeAll(sockets);
    await Promise.all(nodes.map((n) => n.stop()));
    await info?.quit().catch(() => info?.disconnect());
    await redis.stop();
  }
}

/** Consumers on node b, the producer on node a; resolves once every consumer is fed. */
async function connect(nodes: ServerHandle[], sockets: Socket[], config: ClusterIdleConfig) {
  const producerName = 'bench-idle';
  const event = 'bench/idle';
  const deliveryEvent = consumeEvent(subscriptionKey(producerName, event));
  const consumers = [];
  for (let i = 0; i < config.consumers; i++) {
    const socket = await connectClient(nodes[1]!.url);
    sockets.push(socket);
    registerConsumer(socket, `${producerName}-consumer-${i}`);
    subscribeExact(socket, `${producerName}-consumer-${i}`, producerName, event);
    consumers.push({ socket, deliveryEvent });
  }
  const producer = await connectClient(nodes[0]!.url);
  sockets.push(producer);
  registerProducer(producer, producerName);
  const session = new LoadSession(producer, producerName, event, consumers, config.payloadBytes);
  await session.untilAllReceive();
  return session;
}

const cpuUs = (a: ServerSample, b: ServerSample) =>
  b.cpu.user - a.cpu.user + b.cpu.system - a.cpu.system;

/** One load window and one idle window of the same length (see the module comment). */
async function measure(
  session: LoadSession,
  snapshot: () => Promise<Snapshot>,
  config: ClusterIdleConfig,
): Promise<IdleRun> {
  const l0 = await snapshot();
  const phase = await session.phase({
    messages: config.messages,
    window: config.window,
    capMs: config.capMs,
  });
  const l1 = await snapshot();
  const loadMs = l1.redis.at - l0.redis.at;
  await sleep(config.settleMs);
  const i0 = await snapshot();
  await sleep(loadMs);
  const i1 = await snapshot();
  const idleMs = i1.redis.at - i0.redis.at;
  return {
    published: phase.published,
    messagesPerS: phase.messagesPerS,
    loadMs,
    loadCpuUs: l0.nodes.map((s, n) => cpuUs(s, l1.nodes[n]!)),
    idleCpuUs: i0.nodes.map((s, n) => (cpuUs(s, i1.nodes[n]!) * loadMs) / idleMs),
    redisInBytes: l1.redis.netInBytes - l0.redis.netInBytes,
    redisOutBytes: l1.redis.netOutBytes - l0.redis.netOutBytes,
  };
}

function summarise(
  runs: readonly IdleRun[],
  config: ClusterIdleConfig,
  messageJsonBytes: number,
  redisVersion: string | null,
  loadStart: number[],
): ClusterIdleResult {
  const med = (pick: (r: IdleRun) => number, digits: number) =>
    round(median(runs.map(pick)), digits);
  const perMessage = (r: IdleRun, n: number) => (r.loadCpuUs[n]! - r.idleCpuUs[n]!) / r.published;
  const perNode = NODE_IDS.map((id, n): ClusterIdleNode => ({
    node_id: `bench-${id}`,
    role: ROLES[id],
    cpu_us_per_message: med((r) => perMessage(r, n), 2),
    cpu_us_per_message_runs: runs.map((r) => round(perMessage(r, n), 2)),
    load_cpu_pct: med((r) => (r.loadCpuUs[n]! / 1000 / r.loadMs) * 100, 1),
    idle_cpu_pct: med((r) => (r.idleCpuUs[n]! / 1000 / r.loadMs) * 100, 1),
  }));
  const headline = perNode[2]!.cpu_us_per_message;
  const inPerMessage = med((r) => r.redisInBytes / r.published, 0);
  const outPerMessage = med((r) => r.redisOutBytes / r.published, 0);
  return {
    redis_version: redisVersion,
    nodes: NODE_IDS.length,
    consumers_on_b: config.consumers,
    payload_bytes: config.payloadBytes,
    message_json_bytes: messageJsonBytes,
    window_messages: config.window,
    repeats: config.repeats,
    messages_per_run: runs.map((r) => r.published),
    messages_per_s: med((r) => r.messagesPerS, 0),
    per_node: perNode,
    idle_node_cpu_us_per_message: headline,
    goal_max_us_per_message: IDLE_NODE_GOAL_US_PER_MESSAGE,
    meets_goal: headline === null ? null : headline <= IDLE_NODE_GOAL_US_PER_MESSAGE,
    redis_in_bytes_per_message: inPerMessage,
    redis_out_bytes_per_message: outPerMessage,
    redis_pushes_per_message:
      inPerMessage && outPerMessage !== null ? round(outPerMessage / inPerMessage, 2) : null,
    load_avg_start: loadStart,
    load_avg_end: loadavg().map((l) => round(l, 2) ?? 0),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
