/**
 * One measurement of a ready load session, and the summary of repeated measurements.
 *
 * A measurement is two phases on an already warmed-up session:
 *   1. throughput: closed loop with the configured window; gives deliveries/s and the latency
 *      under that load, with the CPU picture of the phase (`LoadProbe`);
 *   2. idle latency: one message in flight at a time; gives the latency of a single message
 *      through an otherwise idle server.
 *
 * Summaries take the median over runs of every per-run figure (for latency: the median of the
 * per-run p50s and of the per-run p99s), and keep the per-run throughputs so the spread shows.
 *
 * Units: rates per second, times in ms, CPU in percent of one core.
 */
import type { ServerHandle } from '../servers/server-process';
import type { LoadSession } from './load-session';
import { LoadProbe, type PhaseLoad } from './machine';
import { median, round, type LatencySummary } from './stats';

export interface MeasureConfig {
  /** Messages in the throughput phase (each to every consumer). */
  messages: number;
  /** Most messages in flight during the throughput phase. */
  window: number;
  /** Cap on the throughput phase, ms. */
  capMs: number;
  /** Messages in the idle-latency phase (window 1). */
  latencyMessages: number;
  /** Cap on the idle-latency phase, ms. */
  latencyCapMs: number;
}

/** The figures of one measurement. */
export interface MeasuredRun extends PhaseLoad {
  /** Deliveries per second, summed over consumers. */
  deliveries_per_s: number;
  /** Fully delivered messages per second. */
  messages_per_s: number;
  published: number;
  delivered: number;
  /** `published × consumers`. */
  expected_deliveries: number;
  elapsed_ms: number;
  /** Whether the throughput phase hit `capMs` before publishing every message. */
  capped: boolean;
  /** Latency of every delivery during the throughput phase, ms. */
  latency_loaded: LatencySummary;
  /** Latency with one message in flight, ms. */
  latency_idle: LatencySummary;
  /**
   * Server CPU time per delivery in the throughput phase, µs. Much less sensitive to CPU
   * contention than deliveries/s, so the better figure on a busy machine.
   */
  server_cpu_us_per_delivery: number;
  /** TCP bytes client→server per published message (the producer's PRODUCE, framing and all). */
  wire_in_bytes_per_message: number;
  /** TCP bytes server→client per delivery. */
  wire_out_bytes_per_delivery: number;
}

/** Runs the two phases described above on `session`, sampling `server` around the first. */
export async function measureRun(
  session: LoadSession,
  server: ServerHandle,
  config: MeasureConfig,
): Promise<MeasuredRun> {
  const probe = await LoadProbe.start(server);
  const loaded = await session.phase({
    messages: config.messages,
    window: config.window,
    capMs: config.capMs,
  });
  const load = await probe.stop();
  const idle = await session.phase({
    messages: config.latencyMessages,
    window: 1,
    capMs: config.latencyCapMs,
  });
  return {
    deliveries_per_s: loaded.deliveriesPerS,
    messages_per_s: loaded.messagesPerS,
    published: loaded.published,
    delivered: loaded.delivered,
    expected_deliveries: loaded.expected,
    elapsed_ms: loaded.elapsedMs,
    capped: loaded.capped,
    latency_loaded: loaded.latency,
    latency_idle: idle.latency,
    server_cpu_us_per_delivery: (load.server_cpu_ms * 1000) / loaded.delivered,
    wire_in_bytes_per_message: load.wire_in_bytes / loaded.published,
    wire_out_bytes_per_delivery: load.wire_out_bytes / loaded.delivered,
    ...load,
  };
}

/** Median summary of repeated runs of one configuration against one server. */
export interface RunSummary {
  runs: number;
  /** Median deliveries/s (total across consumers). */
  deliveries_per_s: number | null;
  /** Every run's deliveries/s, in run order. */
  deliveries_per_s_runs: Array<number | null>;
  messages_per_s: number | null;
  latency_loaded_ms: { p50: number | null; p99: number | null };
  latency_idle_ms: { p50: number | null; p99: number | null };
  /** Median server CPU time per delivery, µs (see `MeasuredRun`). */
  server_cpu_us_per_delivery: number | null;
  server_cpu_pct: number | null;
  server_elu: number | null;
  client_cpu_pct: number | null;
  other_cpu_pct: number | null;
  server_rss_mib: number | null;
  /** Runs whose throughput phase hit its time cap. */
  capped_runs: number;
  /** Deliveries missing at the end of a throughput phase, summed over runs (should be 0). */
  lost_deliveries: number;
  /** Median TCP bytes client→server per published message (see `MeasuredRun`). */
  wire_in_bytes_per_message: number | null;
  /** Median TCP bytes server→client per delivery. */
  wire_out_bytes_per_delivery: number | null;
}

/** Summarises `runs` (see the module comment). */
export function summariseRuns(runs: readonly MeasuredRun[]): RunSummary {
  const med = (pick: (r: MeasuredRun) => number, digits = 3) =>
    round(median(runs.map(pick)), digits);
  return {
    runs: runs.length,
    deliveries_per_s: med((r) => r.deliveries_per_s, 0),
    deliveries_per_s_runs: runs.map((r) => round(r.deliveries_per_s, 0)),
    messages_per_s: med((r) => r.messages_per_s, 0),
    latency_loaded_ms: {
      p50: med((r) => r.latency_loaded.p50_ms),
      p99: med((r) => r.latency_loaded.p99_ms),
    },
    latency_idle_ms: {
      p50: med((r) => r.latency_idle.p50_ms),
      p99: med((r) => r.latency_idle.p99_ms),
    },
    server_cpu_us_per_delivery: med((r) => r.server_cpu_us_per_delivery, 2),
    server_cpu_pct: med((r) => r.server_cpu_pct, 1),
    server_elu: med((r) => r.server_elu, 3),
    client_cpu_pct: med((r) => r.client_cpu_pct, 1),
    other_cpu_pct: med((r) => r.other_cpu_pct, 1),
    server_rss_mib: med((r) => r.server_rss_mib, 1),
    capped_runs: runs.filter((r) => r.capped).length,
    lost_deliveries: runs.reduce((sum, r) => sum + (r.expected_deliveries - r.delivered), 0),
    wire_in_bytes_per_message: med((r) => r.wire_in_bytes_per_message, 0),
    wire_out_bytes_per_delivery: med((r) => r.wire_out_bytes_per_delivery, 0),
  };
}
