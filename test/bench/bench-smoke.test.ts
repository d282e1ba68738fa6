/**
 * Smoke test of `npm run bench`: runs the benchmark end to end in smoke mode (`BENCH_SMOKE=1`:
 * smaller counts than quick mode's and one repeat, one fan-out row, the independent scenarios run at the same time, the
 * server children started from esbuild bundles on plain node) and checks that stdout is one
 * JSON document of the documented shape. It asserts no timings — tests never assert performance — only that every scenario
 * ran, produced numbers, and that the topic index delivered nothing it should not have.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const num = z.number();
const maybeNum = z.number().nullable();
const latency = z.object({ p50: maybeNum, p99: maybeNum });
const summary = z.object({
  runs: z.number().int().positive(),
  deliveries_per_s: num,
  deliveries_per_s_runs: z.array(maybeNum).nonempty(),
  messages_per_s: num,
  latency_loaded_ms: latency,
  latency_idle_ms: latency,
  server_cpu_us_per_delivery: maybeNum,
  server_cpu_pct: maybeNum,
  server_elu: maybeNum,
  client_cpu_pct: maybeNum,
  other_cpu_pct: maybeNum,
  server_rss_mib: maybeNum,
  capped_runs: z.number().int().nonnegative(),
  lost_deliveries: z.number().int(),
  wire_in_bytes_per_message: maybeNum,
  wire_out_bytes_per_delivery: maybeNum,
});
const fanoutEntry = z.object({
  consumers: z.number().int().positive(),
  payload_bytes: z.number().int().positive(),
  message_json_bytes: num,
  window_messages: z.number().int().positive(),
  relay: summary,
  broker: summary,
  ratio: num,
  cpu_per_delivery_ratio: maybeNum,
  idle_latency_p50_ratio: maybeNum,
});
const durableResult = z.object({
  mode: z.enum(['plain', 'memory', 'sqlite-full', 'sqlite-normal']),
  pattern: z.enum(['confirms', 'stock']),
  payload_bytes: z.number().int().positive(),
  messages_per_s: num,
  latency_ms: latency,
  server_cpu_us_per_message: maybeNum,
});
const BenchDocument = z.object({
  schema: z.literal('switchboard-bench/1'),
  quick: z.literal(true),
  started_at: z.string(),
  duration_s: num,
  machine: z.object({
    cpus: z.number().int().positive(),
    cpu_model: z.string(),
    node: z.string().startsWith('v'),
    socket_io: z.string(),
    load_avg_start: z.array(num),
  }),
  parameters: z.object({ repeats: z.number().int().positive() }).passthrough(),
  fanout: z.array(fanoutEntry).nonempty(),
  fanout_variants: z.record(z.string(), fanoutEntry),
  topic_scaling: z.object({
    topic: z.string(),
    consumers: z.number().int().positive(),
    subscriptions_total: z.number().int().positive(),
    matching_subscriptions: z.number().int().positive(),
    setup: z.object({
      baseline: z.object({ subscriptions: num, subscribe_ms: num }).passthrough(),
      loaded: z.object({ subscriptions: num, subscribe_ms: num }).passthrough(),
    }),
    baseline: summary,
    loaded: summary,
    ratio: num,
    target_ratio: num,
    meets_target: z.boolean(),
    unexpected_deliveries: z.number().int(),
  }),
  durable: z.object({
    payload_bytes: z.number().int().positive(),
    results: z.array(durableResult).length(4),
    stock_client: z.object({ results: z.array(durableResult).length(4) }),
    store_only: z.object({
      results: z.record(z.string(), z.object({ messages_per_s: num, us_per_message: num })),
    }),
    sqlite_full_meets_target: z.boolean(),
    stock_sqlite_full_meets_target: z.boolean(),
  }),
  mqtt: z
    .array(
      z.object({
        protocol_version: z.union([z.literal(4), z.literal(5)]),
        qos: z.union([z.literal(0), z.literal(1)]),
        switchboard_median_msgs_per_s: z.number().positive(),
        aedes_median_msgs_per_s: z.number().positive(),
        ratio: num,
      }),
    )
    .length(4),
  errors: z.array(z.string()),
});

function runQuickBench(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bench/run-all.ts'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          BENCH_QUICK: '1',
          // Quick counts, the scenarios at the same time, servers from esbuild bundles.
          BENCH_SMOKE: '1',
          BENCH_SERVER_ENTRY: '',
          BENCH_ONLY: '',
          BENCH_OUT: '',
          BENCH_CPU_PROF_DIR: '',
          BENCH_REPEATS: '',
          // One fan-out row (1→1; the 1→10 one is still the variants row's): each row costs
          // two server start-ups and their runs (issue 26).
          BENCH_FANOUT_CONSUMERS: '1',
          BENCH_FANOUT_PAYLOADS: '',
        },
        maxBuffer: 16 * 2 ** 20,
        timeout: 290_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('npm run bench (BENCH_SMOKE=1)', () => {
  it('prints one JSON document of the documented shape', { timeout: 300_000 }, async () => {
    const { code, stdout, stderr } = await runQuickBench();
    expect(code, stderr.slice(-2000)).toBe(0);
    const doc = BenchDocument.parse(JSON.parse(stdout));
    expect(doc.errors).toEqual([]);
    expect(doc.fanout.map((f) => f.consumers)).toContain(1);
    expect(doc.topic_scaling.unexpected_deliveries).toBe(0);
    // Progress goes to stderr, never into the JSON on stdout.
    expect(stderr).toMatch(/^bench .*deliveries\/s$/m);
  });
});
