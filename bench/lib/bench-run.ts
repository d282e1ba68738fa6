/**
 * One `npm run bench` run's shared set-up, read once from the environment (see
 * `bench/run-all.ts` for every variable): quick mode, the scenarios named in `BENCH_ONLY`,
 * repeats, CPU profiling, the closed loops' window, each scenario's counts, and the run's
 * error list and progress log (stderr).
 */
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { DurableConfig } from '../scenarios/durable';
import type { FanoutConfig } from '../scenarios/fanout';
import { MATCHING_PATTERNS, type TopicConfig } from '../scenarios/topic-scaling';
import type { ForkOptions } from '../servers/server-process';

export const env = process.env;
/**
 * Smoke mode (`BENCH_SMOKE=1`, the smoke test): quick mode with the independent scenarios run
 * at the same time, so its numbers only prove that every scenario runs.
 */
export const smoke = env.BENCH_SMOKE === '1';
export const quick = env.BENCH_QUICK === '1' || smoke;
/** Scenarios to run (`BENCH_ONLY`, comma-separated); all when unset. */
export const only = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',')) : null;
export const runs = (name: string) => only === null || only.has(name);
export const list = (text: string | undefined, fallback: number[]) =>
  text
    ? text
        .split(',')
        .map(Number)
        .filter((n) => Number.isFinite(n) && n > 0)
    : fallback;
export const repeats = Math.max(1, Number(env.BENCH_REPEATS || (quick ? 1 : 3)));
export const fork: ForkOptions = env.BENCH_CPU_PROF_DIR
  ? { cpuProfDir: env.BENCH_CPU_PROF_DIR }
  : {};
if (fork.cpuProfDir) mkdirSync(fork.cpuProfDir, { recursive: true });

/** Messages in flight are bounded to about this many deliveries (at least 4 messages). */
export const IN_FLIGHT_DELIVERIES = Math.max(1, Number(env.BENCH_IN_FLIGHT || 32));
export const windowFor = (consumers: number) =>
  Math.max(4, Math.ceil(IN_FLIGHT_DELIVERIES / consumers));
/**
 * Throughput-phase messages per consumer count: ~1–2 s of work each on a 2-core machine; a
 * fifth of that in smoke mode, whose numbers only prove the runs work (issue 26).
 */
export const FANOUT_MESSAGES: Record<number, number> = smoke
  ? { 1: 200, 10: 40, 100: 10 }
  : quick
    ? { 1: 1_000, 10: 200, 100: 30 }
    : { 1: 20_000, 10: 4_000, 100: 300 };
export const CAP_MS = quick ? 2_000 : 3_000;

export function fanoutConfig(consumers: number, payloadBytes: number): FanoutConfig {
  const messages = FANOUT_MESSAGES[consumers] ?? Math.max(10, Math.ceil(30_000 / consumers));
  return {
    consumers,
    payloadBytes,
    messages,
    window: windowFor(consumers),
    capMs: CAP_MS,
    warmupMessages: Math.ceil(messages / 5),
    latencyMessages: quick ? 20 : 100,
    latencyCapMs: 500,
  };
}

export const durableConfig: DurableConfig = {
  payloadBytes: 1024,
  stockPayloadBytes: [100, 1024],
  messages: smoke ? 200 : quick ? 500 : 20_000,
  window: 256,
  capMs: quick ? 2_000 : 4_000,
  warmupMessages: smoke ? 40 : quick ? 100 : 2_000,
  repeats,
  concurrent: smoke,
};

export const topicConfig: TopicConfig = {
  // Smoke: the same 1,000 subscriptions on fewer sockets (each stock client costs a polling
  // handshake and an upgrade, 2 × 100 of them were a third of the smoke run's client CPU).
  consumers: smoke ? 20 : quick ? 100 : 1_000,
  subscriptionsPerConsumer: smoke ? 50 : quick ? 10 : 100,
  matching: MATCHING_PATTERNS.length,
  payloadBytes: 100,
  messages: smoke ? 200 : quick ? 500 : 3_000,
  window: windowFor(MATCHING_PATTERNS.length),
  capMs: CAP_MS,
  warmupMessages: smoke ? 40 : quick ? 100 : 1_000,
  latencyMessages: quick ? 20 : 100,
  latencyCapMs: 500,
  repeats,
};

export const errors: string[] = [];
const t0 = performance.now();
export const log = (line: string) => {
  const s = ((performance.now() - t0) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`bench ${s} s: ${line}\n`);
};

/**
 * Schedules a scenario: after the previously scheduled one has settled, or at once in smoke
 * mode. Returns the scenario's own promise.
 */
export function scheduler(): <T>(run: () => Promise<T>) => Promise<T> {
  let previous: Promise<unknown> = Promise.resolve();
  return (run) => {
    if (smoke) return run();
    const next = previous.then(run);
    previous = next.catch(() => undefined);
    return next;
  };
}

/** Runs a scenario that quick mode skips unless named (`BENCH_ONLY`); failures land in `errors`. */
export function namedInQuick<T>(name: string, run: () => Promise<T>): Promise<T | null> {
  if (!(only ? only.has(name) : !quick)) return Promise.resolve(null);
  return run().catch((err: unknown) => (errors.push(`${name}: ${(err as Error).message}`), null));
}
