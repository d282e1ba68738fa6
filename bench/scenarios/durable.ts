/**
 * Durable throughput: persisted-and-ACKed messages per second (issue: durable delivery on
 * SQLite; issue 7: with stock clients), next to the non-durable run.
 *
 * One live consumer subscribed `{durable, ack}` ACKs every delivery as the stock JS client does
 * (no callback; the broker replies `ACK_OK`). Two producer patterns:
 *   - `confirms`: PRODUCE with a publisher-confirm callback; a message counts once BOTH its
 *     confirm (every durable copy committed) and its `ACK_OK` (the copy deleted) have arrived;
 *   - `stock`: PRODUCE without a callback, as the stock clients send; a message counts when its
 *     `ACK_OK` reaches the consumer.
 * Either way at most `window` messages are in flight.
 * Modes: `plain` (no durable/ACK: a message counts when delivered), `memory`, `sqlite-full`
 * (`synchronous: FULL`: every commit fsynced) and `sqlite-normal`; with `BENCH_REDIS_URL` set
 * also `redis` (the Redis store on that server, a fresh key prefix per run; opt-in, so the
 * default document keeps its four modes).
 * Units: messages/s; latency in ms (send → counted); CPU in % of one core.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ClientEvent,
  ServerEvent,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../shared/protocol-events';
import {
  closeAll,
  connectClient,
  paddingFor,
  pingBarrier,
  registerConsumer,
  registerProducer,
  type Socket,
} from '../lib/clients';
import { median, round, summariseLatency } from '../lib/stats';
import { summariseProfiles, type ProfileRow } from '../profile-summary';
import { forkServer, serverLoad, threadLoad, type ForkOptions } from '../servers/server-process';
import { runStoreThroughput } from './store-throughput';

export type DurableMode = 'plain' | 'memory' | 'sqlite-full' | 'sqlite-normal' | 'redis';
export const DURABLE_MODES: readonly DurableMode[] = [
  'plain',
  'memory',
  'sqlite-full',
  'sqlite-normal',
];

/** How the producer publishes (see the module comment). */
export type DurablePattern = 'confirms' | 'stock';

export interface DurableConfig {
  /** Payload of the `confirms` pattern, bytes. */
  payloadBytes: number;
  /** Payloads of the `stock` pattern, bytes. */
  stockPayloadBytes: number[];
  messages: number;
  window: number;
  capMs: number;
  warmupMessages: number;
  repeats: number;
  /**
   * Run every configuration at the same time (the smoke run, `BENCH_SMOKE=1`: it proves they
   * run; the numbers of concurrent runs disturb each other). Default false: one at a time.
   */
  concurrent?: boolean;
}

export interface DurableResult {
  mode: DurableMode;
  pattern: DurablePattern;
  payload_bytes: number;
  messages_per_s: number | null;
  messages_per_s_runs: number[];
  latency_ms: { p50: number | null; p99: number | null };
  server_cpu_pct: number | null;
  server_cpu_us_per_message: number | null;
  /**
   * Server CPU per message split by thread (Linux): the event loop (`main`), the busiest
   * other thread (`worker`: the SQLite storage worker in the sqlite modes) and all the others
   * (GC helpers, libuv pool). Far less sensitive to a busy machine than messages/s.
   */
  thread_cpu_us_per_message: { main: number | null; worker: number | null; other: number | null };
  /** 1-minute load average at the end of the configuration. */
  load_avg_1m: number | null;
  /**
   * Where the broker's CPU went over the measured runs (V8 CPU profile, self time): the top
   * functions and the top groups (broker folder / npm package / native / GC), `pct` of the busy
   * time. Null unless profiling was asked for (`BENCH_CPU_PROF_DIR`): the profiler itself adds
   * ~10–20 % CPU, so the numbers of a profiled run are not the headline ones.
   */
  cpu_profile: DurableProfile | null;
}

/** The summary of one configuration's profile (see `DurableResult.cpu_profile`). */
export interface DurableProfile {
  busy_ms: number;
  top_functions: ProfileRow[];
  top_groups: ProfileRow[];
}

/** Rows of a profile summary kept in the JSON (the full one: `bench/profile-summary.ts`). */
const PROFILE_TOP = 10;

/** Summarises the profile written to `file` (null: no profiling) and logs its top frames. */
function profileTop(file: string | null, log: (l: string) => void): DurableProfile | null {
  if (file === null) return null;
  const summary = summariseProfiles([JSON.parse(readFileSync(file, 'utf8'))], PROFILE_TOP);
  const rows = (r: ProfileRow) => `${r.pct.toFixed(1)} % ${r.name}${r.where ? ` ${r.where}` : ''}`;
  log(
    `  profile (${summary.busy_ms} ms busy), top self time: ${summary.functions.map(rows).join('; ')}`,
  );
  const groups = summary.groups.slice(0, PROFILE_TOP);
  log(`  by group: ${groups.map(rows).join('; ')}`);
  return { busy_ms: summary.busy_ms, top_functions: summary.functions, top_groups: groups };
}

const settingsFor = (mode: DurableMode): object =>
  mode.startsWith('sqlite')
    ? {
        storage: 'sqlite',
        storage_options: {
          synchronous: mode === 'sqlite-full' ? 'FULL' : 'NORMAL',
          ...(process.env.BENCH_COMMIT_DELAY_MS
            ? { commit_delay_ms: Number(process.env.BENCH_COMMIT_DELAY_MS) }
            : {}),
        },
      }
    : {};

/** Redis server of the opt-in `redis` mode (never one this benchmark starts). */
const REDIS_URL = process.env.BENCH_REDIS_URL;
let redisRuns = 0;
const redisSettings = (): object => ({
  storage: 'redis',
  storage_options: { url: REDIS_URL, prefix: `bench-${process.pid}-${redisRuns++}` },
});

const JOB = consumeEvent(subscriptionKey('bench', 'job'));

/** One run of `pump`: which sequence numbers it owns and what it has seen of them. */
interface PumpRun {
  base: number;
  count: number;
  parts: Uint8Array;
  sentAt: Float64Array;
  onPart: (index: number) => void;
}

/**
 * The consumer side, attached once per connection: ACKs every durable delivery as the stock JS
 * client does (no callback; the broker answers `ACK_OK`) and reports each delivery (plain) or
 * `ACK_OK` (durable) to the current run. Messages of an earlier run are ACKed but not counted.
 */
class ConsumerSide {
  current: PumpRun | null = null;
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly consumer: Socket,
    mode: DurableMode,
  ) {
    consumer.on(JOB, (env: DeliveryEnvelope) => {
      const seq = (env.message as { s: number }).s;
      if (mode === 'plain') return this.part(seq);
      this.inFlight.set(env.msgId!, seq);
      consumer.emit(ClientEvent.ACK, { msgId: env.msgId });
    });
    consumer.on(ServerEvent.ACK_OK, (reply: { ok: boolean; msgId?: string }) => {
      const seq = reply.msgId === undefined ? undefined : this.inFlight.get(reply.msgId);
      if (seq === undefined) return;
      this.inFlight.delete(reply.msgId!);
      this.part(seq);
    });
  }

  part(seq: number): void {
    const run = this.current;
    if (run && seq >= run.base && seq < run.base + run.count) run.onPart(seq - run.base);
  }

  detach(): void {
    this.consumer.off(JOB);
    this.consumer.off(ServerEvent.ACK_OK);
  }
}

/** Drain wait (ms) after a capped run: in-flight messages finish before the next run. */
const DRAIN_MS = 10_000;
let nextSeq = 0;

/**
 * Runs `count` messages through, `window` in flight; resolves with per-message latencies
 * once every sent message has completed (or `DRAIN_MS` after the cap).
 */
function pump(
  producer: Socket,
  side: ConsumerSide,
  mode: DurableMode,
  pattern: DurablePattern,
  count: number,
  window: number,
  capMs: number,
  padding: string,
) {
  return new Promise<{ done: number; elapsedMs: number; latencies: Float64Array }>((resolve) => {
    const latencies = new Float64Array(count);
    const need = mode === 'plain' || pattern === 'stock' ? 1 : 2;
    const run: PumpRun = {
      base: nextSeq,
      count,
      parts: new Uint8Array(count),
      sentAt: new Float64Array(count),
      onPart: (index) => part(index),
    };
    nextSeq += count;
    let sent = 0;
    let done = 0;
    let last = 0;
    let stopped = false;
    let drain: NodeJS.Timeout | undefined;
    const start = performance.now();
    const finish = () => {
      clearTimeout(drain);
      side.current = null;
      resolve({
        done,
        elapsedMs: (last || performance.now()) - start,
        latencies: latencies.subarray(0, done),
      });
    };
    const part = (index: number) => {
      if (++run.parts[index]! < need) return;
      last = performance.now();
      latencies[done++] = last - run.sentAt[index]!;
      if (!stopped && (done === count || last - start > capMs)) {
        stopped = true;
        drain = setTimeout(finish, DRAIN_MS);
      }
      if (stopped) {
        if (done === sent) finish();
        return;
      }
      send();
    };
    const send = () => {
      while (sent < count && sent - done < window) {
        const index = sent++;
        run.sentAt[index] = performance.now();
        const payload = {
          event: 'job',
          from: 'bench',
          message: { s: run.base + index, t: run.sentAt[index], p: padding },
        };
        if (mode === 'plain' || pattern === 'stock') producer.emit(ClientEvent.PRODUCE, payload);
        else
          producer.emit(ClientEvent.PRODUCE, payload, (reply: { ok: boolean }) => {
            if (reply.ok) side.part(run.base + index);
          });
      }
    };
    side.current = run;
    send();
  });
}

async function runMode(
  mode: DurableMode,
  pattern: DurablePattern,
  payloadBytes: number,
  config: DurableConfig,
  fork: ForkOptions,
  log: (l: string) => void,
): Promise<DurableResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'swb-bench-durable-'));
  const server = await forkServer('broker', {
    ...fork,
    env: {
      BENCH_BROKER_SETTINGS: JSON.stringify(mode === 'redis' ? redisSettings() : settingsFor(mode)),
      BENCH_BROKER_DATA_DIR: dataDir,
    },
  });
  const consumer = await connectClient(server.url);
  const producer = await connectClient(server.url);
  let side: ConsumerSide | undefined;
  try {
    registerConsumer(consumer, 'bench-c');
    consumer.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'bench',
      consumer: 'bench-c',
      consumer_id: 'bench-c',
      ...(mode === 'plain' ? {} : { durable: true, ack: true }),
    });
    registerProducer(producer, 'bench');
    side = new ConsumerSide(consumer, mode);
    await pingBarrier(consumer);
    await pingBarrier(producer);
    const padding = paddingFor(payloadBytes);
    await pump(
      producer,
      side,
      mode,
      pattern,
      config.warmupMessages,
      config.window,
      config.capMs,
      padding,
    );
    const rates: number[] = [];
    const cpu: number[] = [];
    const perMessage: number[] = [];
    const perThread = { main: [] as number[], worker: [] as number[], other: [] as number[] };
    let latencies: Float64Array<ArrayBufferLike> = new Float64Array(0);
    await server.profile('start');
    for (let r = 0; r < config.repeats; r++) {
      const a = await server.sample();
      const run = await pump(
        producer,
        side,
        mode,
        pattern,
        config.messages,
        config.window,
        config.capMs,
        padding,
      );
      const b = await server.sample();
      rates.push(run.done / (run.elapsedMs / 1000));
      const load = serverLoad(a, b);
      cpu.push(load.cpuPct);
      perMessage.push((b.cpu.user - a.cpu.user + b.cpu.system - a.cpu.system) / run.done);
      const threads = threadLoad(a, b, server.pid);
      perThread.main.push(threads.mainUs / run.done);
      perThread.worker.push(threads.topUs / run.done);
      perThread.other.push(threads.restUs / run.done);
      latencies = run.latencies;
      log(
        `${pattern} ${payloadBytes} B ${mode} run ${r + 1}: ${Math.round(rates[r]!)} msg/s, ` +
          `CPU µs/msg main ${perThread.main[r]!.toFixed(1)} worker ${perThread.worker[r]!.toFixed(1)}`,
      );
    }
    const cpuProfile = profileTop(await server.profile('stop'), log);
    const lat = summariseLatency(latencies);
    return {
      mode,
      pattern,
      payload_bytes: payloadBytes,
      messages_per_s: round(median(rates), 0),
      messages_per_s_runs: rates.map((x) => Math.round(x)),
      latency_ms: { p50: round(lat.p50_ms), p99: round(lat.p99_ms) },
      server_cpu_pct: round(median(cpu), 1),
      server_cpu_us_per_message: round(median(perMessage), 1),
      thread_cpu_us_per_message: {
        main: round(median(perThread.main), 1),
        worker: round(median(perThread.worker), 1),
        other: round(median(perThread.other), 1),
      },
      load_avg_1m: round(loadavg()[0]!, 2),
      cpu_profile: cpuProfile,
    };
  } finally {
    side?.detach();
    closeAll([consumer, producer]);
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs one configuration; a failure is reported in `errors` and yields null. */
async function tryMode(
  args: [DurableMode, DurablePattern, number],
  config: DurableConfig,
  fork: ForkOptions,
  log: (l: string) => void,
  errors: string[],
): Promise<DurableResult | null> {
  try {
    return await runMode(...args, config, fork, log);
  } catch (err) {
    errors.push(`durable ${args.join(' ')}: ${(err as Error).message}`);
    log(`durable ${args.join(' ')} FAILED: ${(err as Error).message}`);
    return null;
  }
}

/** Stock-client modes: the default store (memory) and SQLite FULL. */
const STOCK_MODES: readonly DurableMode[] = ['memory', 'sqlite-full'];
const TARGET_PER_S = 10_000;

/** Every mode of both patterns in turn (at once when `concurrent`); a failing one is reported in `errors` and skipped. */
export async function runDurable(
  config: DurableConfig,
  fork: ForkOptions,
  log: (l: string) => void,
  errors: string[],
) {
  // BENCH_DURABLE_MODES=sqlite-full,… limits the modes (profiling one configuration).
  const wanted = process.env.BENCH_DURABLE_MODES?.split(',');
  const pick = (modes: readonly DurableMode[]) =>
    wanted ? modes.filter((m) => wanted.includes(m)) : modes;
  // BENCH_DURABLE_PATTERNS=stock and BENCH_DURABLE_STOCK_PAYLOADS=1024 narrow it further.
  const patterns = process.env.BENCH_DURABLE_PATTERNS?.split(',') ?? ['confirms', 'stock'];
  const stockBytes = process.env.BENCH_DURABLE_STOCK_PAYLOADS
    ? process.env.BENCH_DURABLE_STOCK_PAYLOADS.split(',').map(Number)
    : config.stockPayloadBytes;
  const modes: readonly DurableMode[] = REDIS_URL ? [...DURABLE_MODES, 'redis'] : DURABLE_MODES;
  type Args = [DurableMode, DurablePattern, number];
  const confirmArgs = (patterns.includes('confirms') ? pick(modes) : []).map((mode): Args => [
    mode,
    'confirms',
    config.payloadBytes,
  ]);
  const stockArgs = (patterns.includes('stock') ? stockBytes : []).flatMap((bytes) =>
    pick(REDIS_URL ? [...STOCK_MODES, 'redis'] : STOCK_MODES).map((mode): Args => [
      mode,
      'stock',
      bytes,
    ]),
  );
  // Each configuration has its own server, clients and data directory, so the smoke run
  // (`concurrent`) can run them all at once; measured runs go one at a time.
  const all = [...confirmArgs, ...stockArgs];
  const settled: (DurableResult | null)[] = [];
  if (config.concurrent) {
    settled.push(...(await Promise.all(all.map((a) => tryMode(a, config, fork, log, errors)))));
  } else for (const a of all) settled.push(await tryMode(a, config, fork, log, errors));
  const results = settled.slice(0, confirmArgs.length).filter((r) => r !== null);
  const stock = settled.slice(confirmArgs.length).filter((r) => r !== null);
  // Storage alone, in bursts of the window size (what group commit sees at that load).
  // BENCH_DURABLE_STORE_ONLY=0 skips it (profiling the broker alone).
  const storeOnly =
    process.env.BENCH_DURABLE_STORE_ONLY === '0'
      ? null
      : await runStoreThroughput({
          messages: config.messages,
          burst: config.window,
          payloadBytes: config.payloadBytes,
        });
  const plain = results.find((r) => r.mode === 'plain')?.messages_per_s ?? null;
  const full = results.find((r) => r.mode === 'sqlite-full')?.messages_per_s ?? null;
  const stockFull = stock.filter((r) => r.mode === 'sqlite-full');
  return {
    payload_bytes: config.payloadBytes,
    window_messages: config.window,
    counts:
      'a message counts when its publisher confirm and its ACK_OK have both arrived (plain: when delivered)',
    results: results.map((r) => ({
      ...r,
      ratio_to_plain: plain && r.messages_per_s ? round(r.messages_per_s / plain) : null,
    })),
    stock_client: {
      counts:
        'PRODUCE without a confirm callback; a message counts when the consumer receives its ACK_OK',
      results: stock,
    },
    store_only: storeOnly,
    sqlite_full_target_per_s: TARGET_PER_S,
    sqlite_full_meets_target: full !== null && full >= TARGET_PER_S,
    stock_sqlite_full_meets_target:
      stockFull.length === config.stockPayloadBytes.length &&
      stockFull.length > 0 &&
      stockFull.every((r) => (r.messages_per_s ?? 0) >= TARGET_PER_S),
  };
}
