/**
 * The cluster scenario's report (`scenarios/cluster.ts`): per-configuration medians, the
 * cluster ÷ single-broker ratios, and issue 21's cross-node goal beside the measured ratios.
 *
 * Units: rates per second, times in ms, CPU in % of one core (CPU times in µs), sizes in bytes.
 */
import { loadavg } from 'node:os';
import type { GroupPhase } from '../lib/server-group';
import { summariseRuns, type MeasuredRun, type RunSummary } from '../lib/measure';
import { median, ratio, round } from '../lib/stats';

export type CaseName =
  | 'single'
  | 'cluster_local'
  | 'cluster_cross'
  | 'single_fanout'
  | 'cluster_fanout'
  | 'cluster_cross_fanout'
  | 'cluster_cross_pubsub';

/** Issue 21's goal: cross-node deliveries/s ÷ one broker's deliveries/s, at least. */
export const CROSS_NODE_GOAL_RATIO = 0.7;

export interface CaseSpec {
  name: CaseName;
  description: string;
  cluster: boolean;
  /** The cluster's relay (`cluster.relay`); default `streams`. */
  relay?: 'streams' | 'pubsub';
  /** Node of each consumer (0 = a, 1 = b; always 0 on the single broker). */
  consumerNodes: number[];
}

/** Figures only a cluster run has (null on the single broker), per run. */
export interface ClusterExtras {
  phase: GroupPhase;
  published: number;
  delivered: number;
  /** CPU time of the nodes over the throughput phase, µs. */
  nodesCpuUs: number;
}

/** One configuration's results. */
export interface ClusterCaseEntry extends RunSummary {
  description: string;
  consumers: number;
  /** Consumers on node a and on node b (`[n]` for the single broker). */
  consumers_per_node: number[];
  window_messages: number;
  /** Median CPU of each node over the throughput phase, % of one core. */
  node_cpu_pct: Array<number | null>;
  /** Median kernel (system) part of `node_cpu_pct`, % of one core. */
  node_system_cpu_pct: Array<number | null>;
  /** Median event-loop utilisation of each node over the throughput phase, 0–1. */
  node_elu: Array<number | null>;
  /** Median Redis server CPU over the throughput phase, % of one core. */
  redis_cpu_pct: number | null;
  /** Median CPU time of the nodes and Redis together per delivery, µs. */
  total_cpu_us_per_delivery: number | null;
  /** Median Redis CPU time per published message, µs. */
  redis_cpu_us_per_message: number | null;
  /** Median bytes Redis received per published message (the relay wrapper and PUBLISH). */
  redis_in_bytes_per_message: number | null;
  /** Median bytes Redis sent per published message (one push to each node subscribed). */
  redis_out_bytes_per_message: number | null;
}

export interface ClusterBenchResult {
  redis_version: string | null;
  nodes: number;
  payload_bytes: number;
  message_json_bytes: number | null;
  repeats: number;
  order: string;
  load_avg_start: number[];
  load_avg_end: number[];
  configurations: Record<CaseName, ClusterCaseEntry>;
  /** `cluster_cross` ÷ `single` deliveries/s (medians): the cost of crossing Redis, 1 → 1. */
  ratio: number | null;
  /**
   * Each cluster configuration ÷ its single-broker twin: deliveries/s, and CPU (nodes + Redis)
   * per delivery — the steadier figure on a busy machine.
   */
  ratios: Record<string, { deliveries: number | null; total_cpu_per_delivery: number | null }>;
  /** Issue 21: cross-node ÷ one broker deliveries/s, 1 → 1 and 1 → 10, beside the goal. */
  cross_node: Record<'one_to_one' | 'one_to_ten', CrossNodeRatio>;
  /**
   * Issue 21: the streams relay (`cluster_cross`) against the reference's pub/sub relay
   * (`cluster_cross_pubsub`): deliveries/s ratio and idle latency differences (ms), with the goal
   * (streams within 1 ms of pub/sub at idle).
   */
  streams_vs_pubsub: {
    deliveries: number | null;
    idle_p50_ms_difference: number | null;
    idle_p99_ms_difference: number | null;
    goal_max_idle_ms_difference: number;
  };
}

/** A measured cross-node ratio next to issue 21's goal (reported, not asserted). */
export interface CrossNodeRatio {
  configurations: string;
  ratio: number | null;
  goal_min_ratio: number;
  meets_goal: boolean | null;
}

/** What the report needs of a measured configuration. */
export interface MeasuredCase {
  spec: CaseSpec;
  session: { readonly messageJsonBytes: number };
  runs: MeasuredRun[];
  extras: ClusterExtras[];
}

/** What the report needs of the scenario's configuration. */
export interface SummaryConfig {
  payloadBytes: number;
  repeats: number;
  /** Most messages in flight, by consumer count. */
  window: (consumers: number) => number;
}

function caseEntry(c: MeasuredCase, config: SummaryConfig): ClusterCaseEntry {
  const { spec, extras } = c;
  const med = (pick: (e: ClusterExtras) => number, digits = 1) =>
    round(median(extras.map(pick)), digits);
  const perMessage = (bytes: (p: GroupPhase) => number) =>
    med((e) => bytes(e.phase) / e.published, 0);
  const nodeCount = spec.cluster ? 2 : 1;
  return {
    description: spec.description,
    consumers: spec.consumerNodes.length,
    consumers_per_node: Array.from(
      { length: nodeCount },
      (_, n) => spec.consumerNodes.filter((x) => x === n).length,
    ),
    window_messages: config.window(spec.consumerNodes.length),
    ...summariseRuns(c.runs),
    node_cpu_pct: Array.from({ length: nodeCount }, (_, n) => med((e) => e.phase.node_cpu_pct[n]!)),
    node_system_cpu_pct: Array.from({ length: nodeCount }, (_, n) =>
      med((e) => e.phase.node_system_cpu_pct[n]!),
    ),
    node_elu: Array.from({ length: nodeCount }, (_, n) => med((e) => e.phase.node_elu[n]!, 3)),
    redis_cpu_pct: med((e) => e.phase.redis_cpu_pct),
    total_cpu_us_per_delivery: med((e) => (e.nodesCpuUs + e.phase.redis_cpu_us) / e.delivered, 2),
    redis_cpu_us_per_message: med((e) => e.phase.redis_cpu_us / e.published, 2),
    redis_in_bytes_per_message: perMessage((p) => p.redis_net_in_bytes),
    redis_out_bytes_per_message: perMessage((p) => p.redis_net_out_bytes),
  };
}

/** The scenario's result document from its measured configurations. */
export function summarise(
  cases: readonly MeasuredCase[],
  config: SummaryConfig,
  redisVersion: string | null,
  loadStart: number[],
): ClusterBenchResult {
  const entries = Object.fromEntries(
    cases.map((c) => [c.spec.name, caseEntry(c, config)]),
  ) as Record<CaseName, ClusterCaseEntry>;
  const compare = (a: CaseName, b: CaseName) => ({
    deliveries: ratio(entries[a].deliveries_per_s ?? NaN, entries[b].deliveries_per_s ?? NaN),
    total_cpu_per_delivery: ratio(
      entries[a].total_cpu_us_per_delivery ?? NaN,
      entries[b].total_cpu_us_per_delivery ?? NaN,
    ),
  });
  return {
    redis_version: redisVersion,
    nodes: 2,
    payload_bytes: config.payloadBytes,
    message_json_bytes: cases[0]?.session.messageJsonBytes ?? null,
    repeats: config.repeats,
    order:
      'all servers up for the whole scenario; one unmeasured pass over every configuration, then configurations interleaved (forward, then reversed), warm-up before each',
    load_avg_start: loadStart,
    load_avg_end: loadavg().map((l) => round(l, 2) ?? 0),
    configurations: entries,
    ratio: compare('cluster_cross', 'single').deliveries,
    ratios: {
      cluster_local_vs_single: compare('cluster_local', 'single'),
      cluster_cross_vs_single: compare('cluster_cross', 'single'),
      cluster_fanout_vs_single_fanout: compare('cluster_fanout', 'single_fanout'),
      cluster_cross_fanout_vs_single_fanout: compare('cluster_cross_fanout', 'single_fanout'),
    },
    cross_node: {
      one_to_one: crossNode('cluster_cross', 'single', compare),
      one_to_ten: crossNode('cluster_cross_fanout', 'single_fanout', compare),
    },
    streams_vs_pubsub: {
      deliveries: compare('cluster_cross', 'cluster_cross_pubsub').deliveries,
      idle_p50_ms_difference: diff(entries.cluster_cross, entries.cluster_cross_pubsub, 'p50'),
      idle_p99_ms_difference: diff(entries.cluster_cross, entries.cluster_cross_pubsub, 'p99'),
      goal_max_idle_ms_difference: 1,
    },
  };
}

/** Idle latency of `a` minus `b` (ms), for the streams-vs-pub/sub goal (within 1 ms). */
function diff(a: ClusterCaseEntry, b: ClusterCaseEntry, key: 'p50' | 'p99'): number | null {
  const x = a.latency_idle_ms[key];
  const y = b.latency_idle_ms[key];
  return typeof x === 'number' && typeof y === 'number' ? round(x - y, 3) : null;
}

function crossNode(
  cross: CaseName,
  single: CaseName,
  compare: (a: CaseName, b: CaseName) => { deliveries: number | null },
): CrossNodeRatio {
  const r = compare(cross, single).deliveries;
  return {
    configurations: `${cross} / ${single}`,
    ratio: r,
    goal_min_ratio: CROSS_NODE_GOAL_RATIO,
    meets_goal: r === null ? null : r >= CROSS_NODE_GOAL_RATIO,
  };
}
