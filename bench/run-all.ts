/**
 * `npm run bench`: measures the broker against a bare socket.io relay and prints ONE JSON
 * document on stdout (progress goes to stderr). Every figure's unit is in its name (`_per_s`,
 * `_ms`, `_pct` of one core, `_mib`, `_bytes`).
 *
 * Scenarios:
 *   - fan-out (`scenarios/fanout.ts`): 1 producer → 1/10/100 consumers, 100 B and 1 KiB
 *     messages, broker vs relay, `ratio = broker / relay` deliveries/s;
 *   - topic scaling (`scenarios/topic-scaling.ts`): 100,000 non-matching topic subscriptions
 *     vs none, `ratio = loaded / baseline` deliveries/s (target ≥ 0.5);
 *   - auth overhead (`scenarios/auth-overhead.ts`): fan-out 1→1 and 1→10 (quick: 1→1) with auth
 *     off vs on (static-token clients), `ratio = on / off` deliveries/s (target ≥ 0.95);
 *   - durable (`scenarios/durable.ts`): persisted-and-ACKed 1 KiB messages/s with memory,
 *     SQLite FULL and SQLite NORMAL storage, next to the non-durable run, with publisher
 *     confirms; and the stock-client pattern (no confirms, 100 B and 1 KiB, memory and SQLite
 *     FULL). Target: SQLite FULL ≥ 10,000 msg/s in both patterns.
 *   - MQTT (`scenarios/mqtt.ts`): QoS 0 and QoS 1 msgs/s through Switchboard's MQTT listener vs
 *     plain aedes, `ratio = switchboard / aedes` (goal ≥ 0.8).
 *   - fan-out variants: 1→10 1 KiB under other client/server options (see `variantsScenario`).
 *   - renderer DLQ (`scenarios/renderer-dlq.ts`): the console's Dead letters view in Chromium
 *     with 10,000 entries: time to first rows and to all loaded, long tasks while scrolling.
 *   - renderer queues (`scenarios/renderer-queues.ts`, BENCH_ONLY=renderer-queues): the console's
 *     Queues view with 5,000 durable queues — first rows, sort and filter times.
 *   - renderer topics (`scenarios/renderer-topics.ts`, BENCH_ONLY=renderer-topics): the console's
 *     Topic tree at 5,000 msg/s over 10,000 topics for 30 s (long tasks, heap, update interval)
 *   - renderer tap (`scenarios/renderer-tap.ts`, BENCH_ONLY=renderer-tap): the console's Live tap
 *     in Chromium at 5,000 messages/s — long tasks per second, pause latency, renderer heap.
 *   - protocol fuzzer (`scenarios/protocol-fuzz.ts`, BENCH_ONLY=fuzz): issue 20's long fuzz
 *     run, ≥ 100,000 generated events (auth off, then on) with the invariants checked after
 *     every batch; the seed is printed for replay (`FUZZ_SEED=<n>`). Skipped in quick mode
 *     unless named; a failed invariant is an error (exit 1).
 *   - cluster (`scenarios/cluster.ts`, BENCH_ONLY=cluster): a private redis-server, one broker and
 *     a 2-node cluster; 1 KiB 1→1 on one broker, on node a only, and node a → node b (across
 *     Redis), and 1→10 one broker vs consumers split over a and b and vs all 10 on b;
 *     deliveries/s, idle latency, Redis CPU, `ratio = cluster_cross / single`, and issue 21's
 *     `cross_node` ratios (1→1 and 1→10 node a → node b ÷ one broker, beside the goal ≥ 0.7).
 *     Skipped in quick mode unless named.
 *   - cluster idle node (`scenarios/cluster-idle.ts`, BENCH_ONLY=cluster-idle): 4 cluster nodes,
 *     producer on a, consumer on b, no client on c and d; each node's CPU per message produced
 *     (load window − an equal idle window), node c's beside issue 21's goal (≤ 2 µs/message),
 *     and Redis bytes per message. Skipped in quick mode unless named.
 *   - cluster catch-up (`scenarios/cluster-catchup.ts`, BENCH_ONLY=cluster-catchup): 3 CLI nodes
 *     (SQLite data dirs), a durable consumer on c; node c SIGKILLed, a → produced at 500 msg/s
 *     for 30 s (quick: 200 msg/s for 5 s), node c restarted with the same node_id and data dir,
 *     the consumer back: copies owed vs received (`lost`), duplicates, order violations, time
 *     from the restart to the last owed copy (goal ≤ 10 s). Skipped in quick mode unless named.
 *   - RSS (`scenarios/rss.ts`, BENCH_ONLY=rss): idle RSS and RSS per 1,000 consumer connections
 *     of the installed npm package, `npm run broker` (tsx) and a bare relay on plain Node
 *     (issue 23's goals: idle within 20 MiB, per connection ≤ 1.1 × the relay). Skipped in
 *     quick mode unless named.
 *   - MQTT conformance (`scenarios/mqtt-conformance.ts`, BENCH_ONLY=mqtt-conformance): issue
 *     24's conformance set (test/support/mqtt-conformance/) against Switchboard and Debian's
 *     Mosquitto, pass/fail per case and totals. Skipped in quick mode unless named.
 *   - tail latency (`scenarios/tail-latency.ts`, BENCH_ONLY=tail): open-loop 1→1 100 B at
 *     `BENCH_TAIL_RATE` (default 2,000) msg/s, `npm run broker`'s CLI vs the relay, p50…p99.9
 *     and each server's event-loop delay, plus 2,000 idle connections (issue 25). Skipped in
 *     quick mode unless named.
 *
 * Fairness and noise: every server runs in its own child process (fresh ones for each
 * configuration); each configuration is measured `repeats` times per server, relay and broker
 * interleaved in ABBA order; medians are reported with every run's throughput, the server CPU
 * per delivery (robust to CPU contention) and the CPU other processes used during each run.
 *
 * Environment:
 *   BENCH_QUICK=1               small counts, 1 repeat
 *   BENCH_SMOKE=1               quick mode with the independent scenarios (and the durable
 *                               configurations) run at the same time, on smaller counts: the
 *                               smoke test's mode, which proves every scenario runs; its numbers
 *                               disturb each other
 *   BENCH_SERVER_ENTRY=bundle   start the server children from esbuild bundles on plain node
 *                               (`servers/server-bundle.ts`; default in quick and smoke mode),
 *                               `tsx` from the TypeScript sources (the full run's default)
 *   BENCH_ONLY=fanout,variants,topic,auth,durable,slow,mqtt,renderer-dlq,renderer-tap,
 *              renderer-topics,renderer-queues,cluster,
 *              cluster-idle,cluster-catchup,fuzz,rss,mqtt-conformance,tail
 *                              run only these scenarios (comma-separated; the renderer ones
 *                              start Chromium, and they, the three `cluster*` ones and `fuzz`
 *                              are skipped in quick mode unless named)
 *   BENCH_REPEATS=<n>           repeats per configuration (default 3; quick 1)
 *   BENCH_FANOUT_CONSUMERS=1,10 consumer counts;  BENCH_FANOUT_PAYLOADS=100,1024 sizes (bytes)
 *   BENCH_DURABLE_MODES=sqlite-full,…  durable modes to run (default all)
 *   BENCH_DURABLE_PATTERNS=stock  durable producer patterns (confirms,stock; default both)
 *   BENCH_DURABLE_STOCK_PAYLOADS=1024  stock-pattern payload sizes, bytes (default 100,1024)
 *   BENCH_DURABLE_STORE_ONLY=0  skip the durable scenario's storage-only step
 *   BENCH_REDIS_URL=redis://…   also run the durable `redis` mode against that Redis
 *   BENCH_CPU_PROF_DIR=<dir>    V8 CPU profile of every server during each throughput phase,
 *                               one `.cpuprofile` per phase into <dir> (summarise with
 *                               `npx tsx bench/profile-summary.ts <file>`); perturbs the numbers.
 *                               The durable scenario also puts each configuration's top 10
 *                               frames and groups in its JSON (`cpu_profile`) and log
 *   BENCH_RELAY_EMIT=per-socket relay emits per socket instead of one room broadcast
 *   BENCH_CLIENT_PROFILE=websocket-no-deflate  clients as before issue 7 (default: stock)
 *   BENCH_OUT=<file>            also write the JSON to <file>
 *   BENCH_SAVE_BASELINE=1       make this run's figures the baseline (bench/results/baseline.json)
 *                               that later runs print beside theirs (`vs_baseline`); every full
 *                               run writes bench/results/latest.json (BENCH_RESULTS_DIR=<dir>
 *                               moves both)
 *   BENCH_IN_FLIGHT=<n>         deliveries in flight of the closed loops (default 32); a large
 *                               one (512) makes the servers' CPU, not the round trips, the limit
 *   SWB_LOG_LEVEL               broker log level (default warn), logs go to stderr
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { defaultClientProfile } from './lib/clients';
import { machineInfo } from './lib/machine';
import { MATCHING_PATTERNS, nonMatchingPattern } from './scenarios/topic-scaling';
import { runDurable } from './scenarios/durable-suite';
import { runSlowConsumer, slowConsumerConfig } from './scenarios/slow-consumer';
import { mqttBenchConfig, runMqttBench } from './scenarios/mqtt';
import { runRendererDlqBench } from './scenarios/renderer-dlq';
import { rendererTapConfig, runRendererTap } from './scenarios/renderer-tap';
import { rendererTopicsConfig, runRendererTopics } from './scenarios/renderer-topics';
import { runRendererQueuesBench } from './scenarios/renderer-queues';
import { clusterBenchConfig, runClusterBench } from './scenarios/cluster';
import { clusterIdleConfig, runClusterIdle } from './scenarios/cluster-idle';
import { clusterCatchupConfig, runClusterCatchup } from './scenarios/cluster-catchup';
import { fuzzBenchConfig, runFuzzBench } from './scenarios/protocol-fuzz';
import { rssConfig, runRssBench } from './scenarios/rss';
import { runMqttConformance } from './scenarios/mqtt-conformance';
import { guardAgainstBaseline } from './lib/baseline-compare';
import { stopParkedServers } from './servers/server-process';
import { useServerBundles } from './servers/server-bundle';
import { runTailLatency, tailLatencyConfig } from './scenarios/tail-latency';

import {
  CAP_MS,
  FANOUT_MESSAGES,
  IN_FLIGHT_DELIVERIES,
  durableConfig,
  env,
  errors,
  fork,
  log,
  namedInQuick,
  only,
  quick,
  repeats,
  runs,
  scheduler,
  smoke,
  topicConfig,
  windowFor,
} from './lib/bench-run';
import {
  authScenario,
  fanoutScenario,
  topicScenario,
  variantsScenario,
} from './scenarios/fanout-rows';

async function main(): Promise<void> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  // One scenario after another; all at once in smoke mode (`BENCH_SMOKE=1`), where the
  // numbers only prove that each scenario runs.
  const step = scheduler();
  const fanoutP = runs('fanout') ? step(fanoutScenario) : Promise.resolve([]);
  const fanoutVariantsP =
    runs('fanout') || runs('variants') ? step(variantsScenario) : Promise.resolve(null);
  const topicP = runs('topic') ? step(topicScenario) : Promise.resolve(null);
  const authP = runs('auth') ? step(authScenario) : Promise.resolve([]);
  const durableP = !runs('durable')
    ? Promise.resolve(null)
    : step(() => runDurable(durableConfig, fork, (line) => log(`durable ${line}`), errors));
  // Slow consumer (BENCH_ONLY=slow): broker RSS and healthy latency while one consumer never reads.
  const slowConsumerP = !runs('slow')
    ? Promise.resolve(null)
    : step(() =>
        runSlowConsumer(slowConsumerConfig(quick), fork, (l) => log(`slow ${l}`)).catch(
          (err: unknown) => (errors.push(`slow consumer: ${(err as Error).message}`), null),
        ),
      );
  // MQTT (BENCH_ONLY=mqtt): QoS 0 / QoS 1 through Switchboard vs plain aedes (issue 14).
  const mqttP = !runs('mqtt')
    ? Promise.resolve(null)
    : step(() =>
        runMqttBench(mqttBenchConfig(quick, smoke), fork, (l) => log(`mqtt ${l}`)).catch(
          (err: unknown) => (errors.push(`mqtt: ${(err as Error).message}`), null),
        ),
      );
  // Renderer (BENCH_ONLY=renderer-dlq): the console's Dead letters view in Chromium (issue 13).
  const rendererDlqP = !(only ? only.has('renderer-dlq') : !quick)
    ? Promise.resolve(null)
    : step(() =>
        runRendererDlqBench(quick, (l) => log(`renderer-dlq ${l}`)).catch(
          (err: unknown) => (errors.push(`renderer-dlq: ${(err as Error).message}`), null),
        ),
      );
  // Renderer (BENCH_ONLY=renderer-tap): the console's Live tap in Chromium at 5,000 msg/s. It
  // starts a whole console, so quick mode (the smoke test) runs it only when named.
  const rendererTapP = !(only ? only.has('renderer-tap') : !quick)
    ? Promise.resolve(null)
    : step(() =>
        runRendererTap(rendererTapConfig(quick), (l) => log(l)).catch(
          (err: unknown) => (errors.push(`renderer-tap: ${(err as Error).message}`), null),
        ),
      );
  // Renderer (BENCH_ONLY=renderer-queues): the console's Queues view with 5,000 durable queues.
  // It starts a whole console, so quick mode (the smoke test) runs it only when named.
  const rendererQueuesP = !(only ? only.has('renderer-queues') : !quick)
    ? Promise.resolve(null)
    : step(() =>
        runRendererQueuesBench(quick, (l) => log(l)).catch(
          (err: unknown) => (errors.push(`renderer-queues: ${(err as Error).message}`), null),
        ),
      );
  // Renderer (BENCH_ONLY=renderer-topics): the console's Topic tree in Chromium at 5,000 msg/s
  // over 10,000 topics (issue 27); like renderer-tap, quick mode runs it only when named.
  const rendererTopicsP = !(only ? only.has('renderer-topics') : !quick)
    ? Promise.resolve(null)
    : step(() =>
        runRendererTopics(rendererTopicsConfig(quick), (l) => log(l)).catch(
          (err: unknown) => (errors.push(`renderer-topics: ${(err as Error).message}`), null),
        ),
      );
  // Cluster (BENCH_ONLY=cluster, cluster-idle, cluster-catchup): each starts Redis and 3–4
  // brokers, so quick mode (the smoke test) runs them only when named.
  const clusterP = step(() =>
    namedInQuick('cluster', () =>
      runClusterBench(clusterBenchConfig(quick, repeats, windowFor), fork, (l) =>
        log(`cluster ${l}`),
      ),
    ),
  );
  const clusterIdleP = step(() =>
    namedInQuick('cluster-idle', () =>
      runClusterIdle(clusterIdleConfig(quick, repeats), fork, (l) => log(`cluster-idle ${l}`)),
    ),
  );
  const clusterCatchupP = step(() =>
    namedInQuick('cluster-catchup', () =>
      runClusterCatchup(clusterCatchupConfig(quick), (l) => log(`cluster-catchup ${l}`)),
    ),
  );
  const rssP = step(() =>
    namedInQuick('rss', () => runRssBench(rssConfig(quick, repeats), (l) => log(`rss ${l}`))),
  );
  const mqttConformanceP = step(() =>
    namedInQuick('mqtt-conformance', () => runMqttConformance((l) => log(`mqtt-conformance ${l}`))),
  );
  const tailP = step(() =>
    namedInQuick('tail', () =>
      runTailLatency(tailLatencyConfig(quick, Number(env.BENCH_REPEATS || 3)), (l) =>
        log(`tail ${l}`),
      ),
    ),
  );
  // Protocol fuzzer (BENCH_ONLY=fuzz): ≥ 100,000 generated events against an in-process broker
  // (issue 20). Minutes long, so quick mode (the smoke test) runs it only when named.
  const fuzzP = !(only ? only.has('fuzz') : !quick)
    ? Promise.resolve(null)
    : step(() =>
        runFuzzBench(fuzzBenchConfig(quick), (l) => log(`fuzz ${l}`)).then(
          (r) => (r.passed || errors.push(`fuzz: invariant failed (replay: ${r.replay})`), r),
          (err: unknown) => (errors.push(`fuzz: ${(err as Error).message}`), null),
        ),
      );
  const [fanout, fanoutVariants, topic, auth, durable, slowConsumer, mqtt] = await Promise.all([
    fanoutP,
    fanoutVariantsP,
    topicP,
    authP,
    durableP,
    slowConsumerP,
    mqttP,
  ]);
  const [rendererDlq, rendererTap, rendererTopics, cluster, clusterIdle, clusterCatchup, rss] =
    await Promise.all([
      rendererDlqP,
      rendererTapP,
      rendererTopicsP,
      clusterP,
      clusterIdleP,
      clusterCatchupP,
      rssP,
    ]);
  const [mqttConformance, tail, fuzz] = await Promise.all([mqttConformanceP, tailP, fuzzP]);
  await stopParkedServers();
  const doc = {
    schema: 'switchboard-bench/1',
    quick,
    started_at: startedAt,
    duration_s: Math.round((performance.now() - started) / 100) / 10,
    machine,
    parameters: {
      repeats,
      smoke,
      server_entry: useServerBundles()
        ? 'esbuild bundle on plain node'
        : 'TypeScript sources via tsx',
      order:
        'per configuration: both servers up, measurements interleaved ABBA, warm-up before each',
      clients:
        defaultClientProfile === 'stock'
          ? 'stock socket.io-client defaults: polling then WebSocket upgrade (measured over WebSocket), per-message deflate offered, client threshold 1024 B'
          : 'websocket-only, client deflate off (BENCH_CLIENT_PROFILE=websocket-no-deflate)',
      relay_options: 'stock socket.io server defaults (no per-message deflate)',
      broker_options: 'createBroker settings: defaults unless a row says otherwise',
      relay_emit: env.BENCH_RELAY_EMIT === 'per-socket' ? 'per-socket' : 'room broadcast',
      processes:
        'producer and all consumers in the orchestrator process; each server in its own child process',
      flow_control: `closed loop, about ${IN_FLIGHT_DELIVERIES} deliveries (min 4 messages) in flight`,
      message: '{s: seq, t: send time (performance.now, ms), p: padding} as a JSON object',
      fanout_messages: FANOUT_MESSAGES,
      phase_cap_ms: CAP_MS,
      latency_loaded: 'every delivery of the throughput phase, ms',
      latency_idle: 'one message in flight at a time, ms',
      topic: {
        consumers: topicConfig.consumers,
        subscriptions_per_consumer: topicConfig.subscriptionsPerConsumer,
        payload_bytes: topicConfig.payloadBytes,
        messages: topicConfig.messages,
        window_messages: topicConfig.window,
        warmup_messages: topicConfig.warmupMessages,
        latency_messages: topicConfig.latencyMessages,
        matching_patterns: MATCHING_PATTERNS,
        non_matching_example: nonMatchingPattern(7, 0),
        baseline: 'same consumers connected and registered, only the matching subscriptions',
        note: 'both brokers run during the whole scenario; the idle one counts as other_cpu_pct',
      },
      cpu_profile_dir: fork.cpuProfDir ?? null,
    },
    fanout,
    fanout_variants: fanoutVariants,
    topic_scaling: topic,
    auth_overhead: auth,
    durable,
    slow_consumer: slowConsumer,
    mqtt,
    renderer_dlq: rendererDlq,
    renderer_tap: rendererTap,
    renderer_topics: rendererTopics,
    renderer_queues: await rendererQueuesP,
    cluster,
    cluster_idle: clusterIdle,
    cluster_catchup: clusterCatchup,
    protocol_fuzz: fuzz,
    rss,
    mqtt_conformance: mqttConformance,
    tail_latency: tail,
    load_avg_end: loadavg().map((l) => Math.round(l * 100) / 100),
    how_to_read: [
      'deliveries_per_s is wall-clock throughput (sum over consumers); it drops when neighbours take CPU: check other_cpu_pct (% of one core used by other processes during the phase).',
      'server_cpu_us_per_delivery (server CPU time / deliveries) is much less sensitive to CPU contention; cpu_per_delivery_ratio compares broker and relay by it.',
      'client_cpu_pct near 100 means the single client process was the bottleneck, so that server was not saturated and its throughput is a lower bound.',
      'latency_loaded_ms is measured under the closed-loop window (queueing included); latency_idle_ms with one message in flight.',
      'durable thread_cpu_us_per_message splits the server CPU per message by thread (Linux): main = the event loop, which bounds msg/s; worker = the busiest other thread (the SQLite storage worker); other = GC helpers, libuv pool. Compare these, not msg/s, on a busy machine (load_avg_1m).',
    ],
    errors,
  };
  // The regression guard: this run's figures beside the committed baseline's
  // (bench/lib/baseline-compare.ts; BENCH_SAVE_BASELINE=1 makes this run the baseline).
  // Quick runs (the smoke test) have other counts: they are neither compared nor written.
  const results = env.BENCH_RESULTS_DIR ?? join(import.meta.dirname, 'results');
  const vsBaseline = quick
    ? null
    : guardAgainstBaseline(
        doc,
        { latestFile: join(results, 'latest.json'), baselineFile: join(results, 'baseline.json') },
        { saveBaseline: env.BENCH_SAVE_BASELINE === '1' },
      );
  const json = `${JSON.stringify({ ...doc, vs_baseline: vsBaseline }, null, 2)}\n`;
  if (env.BENCH_OUT) writeFileSync(env.BENCH_OUT, json);
  process.stdout.write(json, () => process.exit(errors.length > 0 ? 1 : 0));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench fatal: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(2);
});
