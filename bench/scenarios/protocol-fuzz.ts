/**
 * `BENCH_ONLY=fuzz npm run bench`: the protocol fuzzer's long run (issue 20). The campaign of
 * test/helpers/protocol-fuzz/campaign.ts (fast-check inputs to every socket.io event,
 * management command, MQTT packet type and HTTP route; invariants after every batch) with auth
 * off then on, ≥ 100,000 events in all (quick mode: a few thousand). The seed is printed on
 * stderr first and is in the JSON; `FUZZ_SEED=<n>` replays it. Runs in the orchestrator
 * process: the broker is in-process so an uncaught exception fails the run.
 *
 * Environment: FUZZ_SEED, FUZZ_EVENTS (total, default 100,000; quick 4,000),
 * FUZZ_BATCH (actions per batch, default 500; quick 200).
 */
import {
  runCampaign,
  fuzzSeed,
  type CampaignReport,
} from '../../test/helpers/protocol-fuzz/campaign';

export interface FuzzBenchConfig {
  seed: number;
  events: number;
  actionsPerBatch: number;
}

export function fuzzBenchConfig(
  quick: boolean,
  env: NodeJS.ProcessEnv = process.env,
): FuzzBenchConfig {
  return {
    seed: fuzzSeed(env),
    events: Number(env.FUZZ_EVENTS ?? (quick ? 4_000 : 100_000)),
    actionsPerBatch: Number(env.FUZZ_BATCH ?? (quick ? 200 : 500)),
  };
}

export async function runFuzzBench(config: FuzzBenchConfig, log: (line: string) => void) {
  log(`seed ${config.seed} (replay: FUZZ_SEED=${config.seed} BENCH_ONLY=fuzz npm run bench)`);
  const runs: CampaignReport[] = [];
  // Half the events with auth off, half with auth on; an action is ~1.1 events (MQTT: packets).
  const batches = Math.max(1, Math.ceil(config.events / 2 / (config.actionsPerBatch * 1.1)));
  for (const auth of [false, true]) {
    const report = await runCampaign({
      auth,
      seed: config.seed + (auth ? 1 : 0),
      batches,
      actionsPerBatch: config.actionsPerBatch,
      log,
    });
    runs.push(report);
    if (report.failure) log(`auth ${auth ? 'on' : 'off'} FAILED: ${report.failure}`);
  }
  const events = runs.reduce((n, r) => n + r.events, 0);
  return {
    seed: config.seed,
    replay: `FUZZ_SEED=${config.seed} BENCH_ONLY=fuzz npm run bench`,
    events_total: events,
    events_per_s: Math.round(events / (runs.reduce((n, r) => n + r.duration_ms, 0) / 1000)),
    passed: runs.every((r) => r.failure === null),
    runs: runs.map(({ coverage, ...r }) => ({
      ...r,
      coverage: {
        events: coverage.events.length,
        commands: coverage.commands.length,
        http_paths: coverage.http_paths.length,
      },
    })),
  };
}
