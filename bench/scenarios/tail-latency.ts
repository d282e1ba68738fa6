/**
 * Tail-latency scenario (`BENCH_ONLY=tail`; issue 25 item 1): at a steady, open-loop rate, is
 * the broker's latency tail (p99, p99.9) close to a bare socket.io relay's, and does the
 * broker's event loop stay free of periodic stalls with many idle connections?
 *
 * Servers, each in its own process with the event-loop delay probe installed first
 * (`servers/probed-entry.ts` → `servers/loop-delay-probe.ts`, `monitorEventLoopDelay` at 1 ms resolution):
 *   - broker: `broker/cli.ts` exactly as `npm run broker` runs it (embedded defaults: SQLite
 *     storage in a fresh temporary data directory, HTTP API on), `--port 0`, no `.env`;
 *   - relay: `servers/relay-server.ts` (stock socket.io server, one room broadcast).
 * A fresh server process per run; runs interleaved relay, broker, relay, broker… (`runs`
 * pairs), so drifting machine load hits both alike.
 *
 * One run: a stock-default socket.io-client producer and consumer (this process; polling, then
 * the WebSocket upgrade), an exact non-durable subscription, then `PacedProducer` at `rate`
 * messages/s with `payloadBytes` messages for `warmupMs` (not recorded) and `measureMs`
 * (recorded). Latency of a message = its arrival at the consumer − its send time (`t`, the same
 * `performance.now()` clock). Reported per run: p50/p90/p99/p99.9/max/mean, messages lost
 * (sent in the window, not arrived 2 s after it), the server's and this process's event-loop
 * delay over the measured window.
 *
 * Idle phase: `idleConnections` stock clients connected to a fresh broker (same CLI command),
 * nothing else; after every connection is up the probe is reset and read `idleMs` later:
 * event-loop delay max/p99.9 (goal: max < 5 ms, i.e. no periodic stall).
 *
 * Units: rates per second, times in ms, sizes in bytes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { consumeEvent, subscriptionKey } from '../../shared/protocol-events';
import {
  closeAll,
  connectClient,
  connectMany,
  registerConsumer,
  registerProducer,
  subscribeExact,
  type BenchMessage,
  type Socket,
} from '../lib/clients';
import { PacedProducer, sleep } from '../lib/paced-traffic';
import { median, percentileSorted, ratio, round } from '../lib/stats';
import type { LoopDelay, LoopDelayReply } from '../servers/loop-delay-probe';

export interface TailLatencyConfig {
  /** Producer rate, messages/s (`BENCH_TAIL_RATE`, default 2,000). */
  rate: number;
  payloadBytes: number;
  /** Unrecorded traffic before each measured window, ms. */
  warmupMs: number;
  /** Recorded traffic per run, ms. */
  measureMs: number;
  /** relay+broker run pairs (`BENCH_TAIL_RUNS`, else `BENCH_REPEATS`, default 3; 0 = idle only). */
  runs: number;
  /** Idle connections of the idle phase (0 skips it). */
  idleConnections: number;
  /** Idle phase length once every connection is up, ms. */
  idleMs: number;
}

export const tailLatencyConfig = (quick: boolean, repeats: number): TailLatencyConfig => ({
  rate: Number(process.env.BENCH_TAIL_RATE || 2_000),
  payloadBytes: 100,
  warmupMs: quick ? 1_000 : 2_000,
  measureMs: quick ? 2_000 : 8_000,
  runs: Math.max(0, Number(process.env.BENCH_TAIL_RUNS ?? repeats)),
  idleConnections: Number(process.env.BENCH_TAIL_IDLE_CONNECTIONS || (quick ? 200 : 2_000)),
  idleMs: quick ? 3_000 : 15_000,
});

/** Issue 25's goals: broker p99 ≤ 1.5 × relay p99; idle event-loop delay max < 5 ms. */
const GOAL_P99_RATIO = 1.5;
const GOAL_IDLE_LOOP_DELAY_MAX_MS = 5;

const PRODUCER = 'tail-producer';
const CONSUMER = 'tail-consumer';
const EVENT = 'tail';

type Kind = 'relay' | 'broker';

/** A server process with the loop-delay probe. */
interface ProbedServer {
  kind: Kind;
  url: string;
  pid: number;
  /** The probe's histogram since the last reset (then reset when `reset`). */
  loopDelay(reset: boolean): Promise<LoopDelay>;
  stop(): Promise<void>;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const PROBED_ENTRY = here('../servers/probed-entry.ts');

/** Forks the broker CLI (`npm run broker`'s command) or the relay, with the probe installed. */
async function startServer(kind: Kind, extraEnv: NodeJS.ProcessEnv = {}): Promise<ProbedServer> {
  const dataDir = kind === 'broker' ? mkdtempSync(join(tmpdir(), 'swb-tail-')) : null;
  const [entry, args] =
    kind === 'broker'
      ? [
          here('../../broker/cli.ts'),
          ['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir!],
        ]
      : [here('../servers/relay-server.ts'), ['relay']];
  const child: ChildProcess = fork(PROBED_ENTRY, args, {
    // BENCH_TAIL_NODE_FLAGS: extra node flags for the servers when diagnosing (`--trace-gc`,
    // `--cpu-prof --cpu-prof-dir=<dir>`…); they perturb the numbers.
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_TAIL_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    ],
    env: {
      ...process.env,
      ...extraEnv,
      BENCH_PROBED_ENTRY: entry,
      SWB_LOG_LEVEL: process.env.SWB_LOG_LEVEL ?? 'warn',
      // No `.env` of the working directory: the broker runs on its defaults.
      TYO_MQ_ENV_FILE: join(dataDir ?? tmpdir(), 'none.env'),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // Server logs go to stderr, never to the JSON on stdout.
  child.stdout?.pipe(process.stderr);
  child.stderr?.pipe(process.stderr);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, (delay: LoopDelay) => void>();
  let nextId = 0;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind}: not ready after 60 s`)), 60_000);
    child.on('message', (m: { type: 'ready' | 'broker-ready'; port: number } | LoopDelayReply) => {
      if (m.type === 'loop-delay') {
        pending.get(m.id)?.(m.delay);
        pending.delete(m.id);
      } else if (m.type === 'ready' || m.type === 'broker-ready') {
        clearTimeout(timer);
        resolve(m.port);
      }
    });
    void exited.then(() => reject(new Error(`${kind} exited before it was ready`)));
  });
  return {
    kind,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    loopDelay: (reset) =>
      new Promise<LoopDelay>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        child.send({ type: 'loop-delay', id, reset });
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // The relay's bench protocol stops on `stop`; the CLI drains on SIGTERM.
        if (kind === 'relay') child.send({ type: 'stop' });
        else child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(kill);
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Client-side latency percentiles of one run, ms. */
export interface TailSummary {
  samples: number;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  p999_ms: number | null;
  max_ms: number | null;
  mean_ms: number | null;
}

function summarise(samples: Float64Array, n: number): TailSummary {
  const sorted = samples.slice(0, n).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    samples: n,
    p50_ms: round(percentileSorted(sorted, 50)),
    p90_ms: round(percentileSorted(sorted, 90)),
    p99_ms: round(percentileSorted(sorted, 99)),
    p999_ms: round(percentileSorted(sorted, 99.9)),
    max_ms: round(n > 0 ? sorted[n - 1]! : Number.NaN),
    mean_ms: round(n > 0 ? sum / n : Number.NaN),
  };
}

export interface TailRun {
  kind: Kind;
  latency: TailSummary;
  /** Messages sent in the measured window that had not arrived 2 s after it. */
  lost: number;
  /** The server process's event-loop delay (and GC, CPU) over the measured window. */
  server_loop_delay: LoopDelay;
  /** Server CPU (all threads) per message sent in the window, µs. */
  server_cpu_us_per_message: number | null;
  /** This (client) process's event-loop delay over the window, max and p99, ms. */
  client_loop_delay_max_ms: number;
  client_loop_delay_p99_ms: number;
  load_avg_1m: number;
}

/** One measured run against a fresh server process. */
async function runOnce(kind: Kind, c: TailLatencyConfig): Promise<TailRun> {
  const server = await startServer(kind);
  const sockets: Socket[] = [];
  try {
    const consumer = await connectClient(server.url);
    sockets.push(consumer);
    const producerSocket = await connectClient(server.url);
    sockets.push(producerSocket);
    registerConsumer(consumer, CONSUMER);
    subscribeExact(consumer, CONSUMER, PRODUCER, EVENT);
    registerProducer(producerSocket, PRODUCER);

    const capacity = Math.ceil((c.rate * c.measureMs) / 1000) + 1_000;
    const samples = new Float64Array(capacity);
    let n = 0;
    let probes = 0;
    let firstSeq = Number.POSITIVE_INFINITY;
    let endSeq = Number.POSITIVE_INFINITY;
    consumer.on(
      consumeEvent(subscriptionKey(PRODUCER, EVENT)),
      (envelope: { message: BenchMessage }) => {
        const now = performance.now();
        const m = envelope.message;
        if (m.s < 0) probes++;
        else if (m.s >= firstSeq && m.s < endSeq && n < capacity) samples[n++] = now - m.t;
      },
    );
    const producer = new PacedProducer(producerSocket, PRODUCER, EVENT, c.rate, c.payloadBytes);
    // The subscription is live once a probe comes back (the relay needs the CONSUMER only).
    const readyBy = performance.now() + 10_000;
    while (probes === 0) {
      if (performance.now() > readyBy) throw new Error(`${kind}: no probe delivered in 10 s`);
      producer.probe();
      await sleep(20);
    }
    const clientDelay = monitorEventLoopDelay({ resolution: 1 });
    producer.start();
    await sleep(c.warmupMs);
    firstSeq = producer.seq;
    await server.loopDelay(true);
    clientDelay.enable();
    await sleep(c.measureMs);
    const serverDelay = await server.loopDelay(true);
    clientDelay.disable();
    endSeq = producer.stop();
    const expected = endSeq - firstSeq;
    const until = performance.now() + 2_000;
    while (n < expected && performance.now() < until) await sleep(20);
    return {
      kind,
      latency: summarise(samples, n),
      lost: expected - n,
      server_loop_delay: serverDelay,
      server_cpu_us_per_message: round(serverDelay.cpu_us / expected, 1),
      client_loop_delay_max_ms: round(clientDelay.max / 1e6, 2) ?? 0,
      client_loop_delay_p99_ms: round(clientDelay.percentile(99) / 1e6, 2) ?? 0,
      load_avg_1m: round(loadavg()[0]!, 2) ?? 0,
    };
  } finally {
    closeAll(sockets);
    await server.stop();
  }
}

/**
 * The idle phase: `idleConnections` idle clients on a fresh `kind` server for `idleMs`.
 * `extraEnv` goes to the server (the relay with the broker's socket.io options).
 */
async function idlePhase(
  kind: Kind,
  c: TailLatencyConfig,
  log: (line: string) => void,
  extraEnv: NodeJS.ProcessEnv = {},
) {
  const server = await startServer(kind, extraEnv);
  const label = extraEnv.BENCH_RELAY_OPTIONS ? `${kind} (broker options)` : kind;
  let sockets: Socket[] = [];
  try {
    const t0 = performance.now();
    sockets = await connectMany(server.url, c.idleConnections);
    log(
      `idle ${label}: ${sockets.length} connections up in ${Math.round(performance.now() - t0)} ms`,
    );
    await server.loopDelay(true);
    await sleep(c.idleMs);
    const delay = await server.loopDelay(true);
    log(
      `idle ${label}: loop delay max ${delay.max_ms} ms p99.9 ${delay.p999_ms} ms, gc max ${delay.gc.max_ms} ms`,
    );
    return { connections: sockets.length, duration_ms: c.idleMs, server_loop_delay: delay };
  } finally {
    closeAll(sockets);
    await server.stop();
  }
}

const med = (runs: TailRun[], pick: (r: TailRun) => number | null) =>
  round(median(runs.map(pick).filter((v): v is number => v !== null)));

function summariseKind(runs: TailRun[]) {
  return {
    p50_ms: med(runs, (r) => r.latency.p50_ms),
    p90_ms: med(runs, (r) => r.latency.p90_ms),
    p99_ms: med(runs, (r) => r.latency.p99_ms),
    p999_ms: med(runs, (r) => r.latency.p999_ms),
    max_ms: med(runs, (r) => r.latency.max_ms),
    server_loop_delay_max_ms: med(runs, (r) => r.server_loop_delay.max_ms),
    server_loop_delay_p99_ms: med(runs, (r) => r.server_loop_delay.p99_ms),
    server_gc_max_ms: med(runs, (r) => r.server_loop_delay.gc.max_ms),
    server_gc_total_ms: med(runs, (r) => r.server_loop_delay.gc.total_ms),
    server_cpu_us_per_message: med(runs, (r) => r.server_cpu_us_per_message),
  };
}

/** Runs the scenario; the result is the `tail_latency` block of the bench JSON. */
export async function runTailLatency(c: TailLatencyConfig, log: (line: string) => void) {
  const relay: TailRun[] = [];
  const broker: TailRun[] = [];
  /** Broker p99 ÷ relay p99 of each relay-then-broker pair (same machine state). */
  const pairRatios: Array<number | null> = [];
  for (let i = 0; i < c.runs; i++) {
    const r = await runOnce('relay', c);
    relay.push(r);
    log(
      `run ${i + 1}/${c.runs} relay  p50 ${r.latency.p50_ms} p99 ${r.latency.p99_ms} p99.9 ${r.latency.p999_ms} max ${r.latency.max_ms} ms, loop max ${r.server_loop_delay.max_ms} ms, gc max ${r.server_loop_delay.gc.max_ms} ms`,
    );
    const b = await runOnce('broker', c);
    broker.push(b);
    log(
      `run ${i + 1}/${c.runs} broker p50 ${b.latency.p50_ms} p99 ${b.latency.p99_ms} p99.9 ${b.latency.p999_ms} max ${b.latency.max_ms} ms, loop max ${b.server_loop_delay.max_ms} ms, gc max ${b.server_loop_delay.gc.max_ms} ms`,
    );
    pairRatios.push(ratio(b.latency.p99_ms ?? NaN, r.latency.p99_ms ?? NaN));
  }
  const relaySummary = summariseKind(relay);
  const brokerSummary = summariseKind(broker);
  const p99Ratio = ratio(brokerSummary.p99_ms ?? NaN, relaySummary.p99_ms ?? NaN);
  // The relay's idle run is the machine's baseline: a stall both show is not the broker's.
  const idleBroker = c.idleConnections > 0 ? await idlePhase('broker', c, log) : null;
  const idleRelay = c.idleConnections > 0 ? await idlePhase('relay', c, log) : null;
  // The stock relay pings every 25 s (socket.io's default), the broker every 5 s (spec §1.1's
  // pingInterval 5000): the same relay with the broker's socket.io options shows what five
  // times the heartbeats cost a bare socket.io server, apart from the broker's own work.
  const idleRelayHeartbeat =
    c.idleConnections > 0
      ? await idlePhase('relay', c, log, { BENCH_RELAY_OPTIONS: 'broker' })
      : null;
  const idle = idleBroker && {
    broker: idleBroker,
    relay: idleRelay,
    relay_broker_options: idleRelayHeartbeat,
    goal_max_ms: GOAL_IDLE_LOOP_DELAY_MAX_MS,
    meets_goal: idleBroker.server_loop_delay.max_ms < GOAL_IDLE_LOOP_DELAY_MAX_MS,
  };
  return {
    parameters: {
      rate_per_s: c.rate,
      payload_bytes: c.payloadBytes,
      warmup_ms: c.warmupMs,
      measure_ms: c.measureMs,
      runs: c.runs,
      broker:
        'broker/cli.ts defaults (npm run broker): SQLite storage in a temp data dir, HTTP API on',
      relay: 'bench/servers/relay-server.ts, stock socket.io server, room broadcast',
      clients: 'stock socket.io-client defaults, producer and consumer in the orchestrator',
      order: 'fresh server process per run; relay, broker, relay, broker…',
      loop_delay: 'perf_hooks.monitorEventLoopDelay, resolution 1 ms, over the measured window',
    },
    relay: relaySummary,
    broker: brokerSummary,
    /** Broker p99 ÷ relay p99 (medians over runs). */
    p99_ratio: p99Ratio,
    p999_ratio: ratio(brokerSummary.p999_ms ?? NaN, relaySummary.p999_ms ?? NaN),
    p50_ratio: ratio(brokerSummary.p50_ms ?? NaN, relaySummary.p50_ms ?? NaN),
    /** Each pair's p99 ratio: the spread on a noisy machine. */
    p99_ratio_per_pair: pairRatios,
    goal_p99_ratio: GOAL_P99_RATIO,
    meets_goal: p99Ratio !== null && p99Ratio <= GOAL_P99_RATIO,
    runs: { relay, broker },
    idle,
  };
}
