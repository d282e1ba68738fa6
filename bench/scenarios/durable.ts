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
import { mkdtempSync, rmSync } from 'node:fs';
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
import { profileTop, type DurableProfile } from '../lib/profile-top';
import {
  forkServer,
  serverLoad,
  threadLoad,
  type ForkOptions,
  type ServerHandle,
} from '../servers/server-process';

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
   * The smoke run (`BENCH_SMOKE=1`): the configurations of one mode share a broker and the
   * modes run at the same time. It proves they run; the numbers disturb each other. Default
   * false: one configuration at a time, each on a fresh broker.
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
export const REDIS_URL = process.env.BENCH_REDIS_URL;
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

/** One configuration: a producer pattern and a payload size, on a server of one mode. */
export type DurableRun = [DurablePattern, number];

/**
 * Runs `runs` one after another on ONE broker of `mode` (its own data directory), each with
 * fresh clients; resolves with one result per run, null where the run failed (reported in
 * `errors`). The measured bench passes one run per call (a fresh server per configuration);
 * the smoke run passes every run of a mode, saving the server start-ups.
 */
export async function runOnServer(
  mode: DurableMode,
  runs: readonly DurableRun[],
  config: DurableConfig,
  fork: ForkOptions,
  log: (l: string) => void,
  errors: string[],
): Promise<(DurableResult | null)[]> {
  const failed = (run: DurableRun, err: unknown) => {
    const label = `durable ${[mode, ...run].join(' ')}`;
    errors.push(`${label}: ${(err as Error).message}`);
    log(`${label} FAILED: ${(err as Error).message}`);
    return null;
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'swb-bench-durable-'));
  try {
    const server = await forkServer('broker', {
      ...fork,
      env: {
        BENCH_BROKER_SETTINGS: JSON.stringify(
          mode === 'redis' ? redisSettings() : settingsFor(mode),
        ),
        BENCH_BROKER_DATA_DIR: dataDir,
      },
    });
    try {
      const out: (DurableResult | null)[] = [];
      for (const run of runs) {
        out.push(await measureOn(server, mode, ...run, config, log).catch((e) => failed(run, e)));
      }
      return out;
    } finally {
      await server.stop();
    }
  } catch (err) {
    return runs.map((run) => failed(run, err));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureOn(
  server: ServerHandle,
  mode: DurableMode,
  pattern: DurablePattern,
  payloadBytes: number,
  config: DurableConfig,
  log: (l: string) => void,
): Promise<DurableResult> {
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
  }
}
