/**
 * The durable scenario's document (`durable` in `npm run bench`'s JSON): every mode of the
 * `confirms` pattern, the `stock` pattern's modes and payloads (`durable.ts` runs them), the
 * storage-only step (`store-throughput.ts`) and the targets (SQLite FULL ≥ 10,000 msg/s).
 *
 * The measured bench runs one configuration at a time, each on a fresh broker. The smoke run
 * (`config.concurrent`, `BENCH_SMOKE=1`) gives the configurations of one mode one broker and
 * runs the modes and the storage-only step at the same time: 4 broker start-ups instead of 8.
 * Units: messages/s; latency in ms; CPU in µs per message.
 */
import { round } from '../lib/stats';
import type { ForkOptions } from '../servers/server-process';
import {
  DURABLE_MODES,
  REDIS_URL,
  runOnServer,
  type DurableConfig,
  type DurableMode,
  type DurablePattern,
  type DurableResult,
} from './durable';
import { runStoreThroughput } from './store-throughput';

/** Stock-client modes: the default store (memory) and SQLite FULL. */
const STOCK_MODES: readonly DurableMode[] = ['memory', 'sqlite-full'];
const TARGET_PER_S = 10_000;

type Configuration = [DurableMode, DurablePattern, number];

/**
 * Runs `all` (see the module comment for the order) and resolves with one result per entry,
 * null where one failed (reported in `errors`).
 */
async function runConfigurations(
  all: readonly Configuration[],
  config: DurableConfig,
  fork: ForkOptions,
  log: (l: string) => void,
  errors: string[],
): Promise<(DurableResult | null)[]> {
  const out: (DurableResult | null)[] = [];
  if (!config.concurrent) {
    for (const [mode, ...run] of all) {
      out.push(...(await runOnServer(mode, [run], config, fork, log, errors)));
    }
    return out;
  }
  const byMode = new Map<DurableMode, number[]>();
  all.forEach(([mode], i) => byMode.set(mode, [...(byMode.get(mode) ?? []), i]));
  await Promise.all(
    [...byMode].map(async ([mode, indexes]) => {
      const runs = indexes.map((i) => [all[i]![1], all[i]![2]] as [DurablePattern, number]);
      const results = await runOnServer(mode, runs, config, fork, log, errors);
      indexes.forEach((i, k) => (out[i] = results[k]!));
    }),
  );
  return out;
}

/** Every mode of both patterns; a failing one is reported in `errors` and skipped. */
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
  const confirms = (patterns.includes('confirms') ? pick(modes) : []).map((mode): Configuration => [
    mode,
    'confirms',
    config.payloadBytes,
  ]);
  const stockRuns = (patterns.includes('stock') ? stockBytes : []).flatMap((bytes) =>
    pick(REDIS_URL ? [...STOCK_MODES, 'redis'] : STOCK_MODES).map((mode): Configuration => [
      mode,
      'stock',
      bytes,
    ]),
  );
  // Storage alone, in bursts of the window size (what group commit sees at that load).
  // BENCH_DURABLE_STORE_ONLY=0 skips it (profiling the broker alone).
  const storeOnlyRun = () =>
    process.env.BENCH_DURABLE_STORE_ONLY === '0'
      ? Promise.resolve(null)
      : runStoreThroughput({
          messages: config.messages,
          burst: config.window,
          payloadBytes: config.payloadBytes,
        });
  const configurations = runConfigurations([...confirms, ...stockRuns], config, fork, log, errors);
  // Smoke: at the same time as the brokers; measured: after them, on a quiet machine.
  const storeOnlyP = config.concurrent ? storeOnlyRun() : configurations.then(storeOnlyRun);
  const [settled, storeOnly] = await Promise.all([configurations, storeOnlyP]);
  const results = settled.slice(0, confirms.length).filter((r) => r !== null);
  const stock = settled.slice(confirms.length).filter((r) => r !== null);
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
