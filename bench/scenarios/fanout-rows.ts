/**
 * The fan-out, variants, topic-scaling and auth-overhead rows of the bench document
 * (`bench/run-all.ts`): each runs its scenario for relay and broker and summarises the runs as
 * medians and broker ÷ relay ratios; failures land in the run's `errors` and give a row of
 * nulls.
 */
import { summariseRuns, type RunSummary } from '../lib/measure';
import { ratio } from '../lib/stats';
import {
  env,
  errors,
  fanoutConfig,
  fork,
  list,
  log,
  quick,
  repeats,
  topicConfig,
} from '../lib/bench-run';
import { runAuthOverhead } from './auth-overhead';
import { runFanoutPair, type FanoutConfig, type FanoutRun, type FanoutVariant } from './fanout';
import { TOPIC, runTopicScaling } from './topic-scaling';
import type { ServerKind } from '../servers/server-process';

export interface FanoutEntry {
  consumers: number;
  payload_bytes: number;
  message_json_bytes: number | null;
  window_messages: number;
  relay: RunSummary;
  broker: RunSummary;
  /** Broker deliveries/s ÷ relay deliveries/s (medians). */
  ratio: number | null;
  /** Broker ÷ relay server CPU per delivery (how much more work a delivery costs). */
  cpu_per_delivery_ratio: number | null;
  /** Broker ÷ relay idle-latency p50 (how much slower one message is through the broker). */
  idle_latency_p50_ratio: number | null;
}

/** Runs one fan-out configuration (relay and broker); failures land in `errors`. */
async function fanoutRow(config: FanoutConfig, variant: FanoutVariant = {}, name = '') {
  const label = `fanout 1→${config.consumers} ${config.payloadBytes} B${name ? ` ${name}` : ''}`;
  try {
    const runs = await runFanoutPair(config, repeats, fork, (l) => log(`${label} ${l}`), variant);
    return fanoutEntry(config, runs);
  } catch (err) {
    errors.push(`${label}: ${(err as Error).message}`);
    log(`${label}: FAILED ${(err as Error).message}`);
    return fanoutEntry(config, { relay: [], broker: [] });
  }
}

export async function fanoutScenario(): Promise<FanoutEntry[]> {
  const configs = list(env.BENCH_FANOUT_CONSUMERS, quick ? [1, 10] : [1, 10, 100]).flatMap((n) =>
    list(env.BENCH_FANOUT_PAYLOADS, quick ? [100] : [100, 1024]).map((b) => fanoutConfig(n, b)),
  );
  const rows: FanoutEntry[] = [];
  for (const config of configs) rows.push(await fanoutRow(config));
  return rows;
}

/**
 * 1→10 1 KiB under other client/server options, each next to its own relay (issue 7):
 * `previous_bench` is how this benchmark ran before (WebSocket-only clients that deflate
 * nothing, relay with the broker's deflate options), which read 0.86 where stock clients
 * against a stock relay read 0.33; `broker_deflate_*` measure the broker with
 * `per_message_deflate` on (throughput and `wire_*_bytes` both ways) against the stock relay.
 */
export async function variantsScenario() {
  const config = fanoutConfig(10, 1024);
  const variants: Record<string, FanoutVariant> = {
    previous_bench: { clients: 'websocket-no-deflate', relayOptions: 'broker' },
    // `per_message_deflate` on (the main rows run the default, off): the reference's settings
    // (clients deflate their ≥ 1 KiB packets, the broker its ≥ 2 KiB ones), then everything.
    broker_deflate_reference: { brokerSettings: { per_message_deflate: true } },
    broker_deflate_all: { brokerSettings: { per_message_deflate: { threshold: 0 } } },
  };
  const out: Record<string, FanoutEntry & { variant: FanoutVariant }> = {};
  // Quick mode (the smoke test) runs one variant: each costs two server start-ups.
  const names = quick ? ['broker_deflate_reference'] : Object.keys(variants);
  for (const [name, variant] of Object.entries(variants).filter(([n]) => names.includes(n))) {
    out[name] = { variant, ...(await fanoutRow(config, variant, name)) };
  }
  return out;
}

function fanoutEntry(config: FanoutConfig, runs: Record<ServerKind, FanoutRun[]>): FanoutEntry {
  const { relay, broker } = runs;
  const relaySummary = summariseRuns(relay);
  const brokerSummary = summariseRuns(broker);
  return {
    consumers: config.consumers,
    payload_bytes: config.payloadBytes,
    message_json_bytes: broker[0]?.message_json_bytes ?? relay[0]?.message_json_bytes ?? null,
    window_messages: config.window,
    relay: relaySummary,
    broker: brokerSummary,
    ratio: ratio(brokerSummary.deliveries_per_s ?? NaN, relaySummary.deliveries_per_s ?? NaN),
    cpu_per_delivery_ratio: ratio(
      brokerSummary.server_cpu_us_per_delivery ?? NaN,
      relaySummary.server_cpu_us_per_delivery ?? NaN,
    ),
    idle_latency_p50_ratio: ratio(
      brokerSummary.latency_idle_ms.p50 ?? NaN,
      relaySummary.latency_idle_ms.p50 ?? NaN,
    ),
  };
}

export async function topicScenario() {
  const c = topicConfig;
  log(
    `topic scaling: ${c.consumers * c.subscriptionsPerConsumer} subscriptions on ${c.consumers} consumers`,
  );
  const base = {
    topic: TOPIC,
    consumers: c.consumers,
    subscriptions_total: c.consumers * c.subscriptionsPerConsumer,
    matching_subscriptions: c.matching,
    baseline_subscriptions: c.matching,
    window_messages: c.window,
    target_ratio: 0.5,
  };
  try {
    const result = await runTopicScaling(c, fork, (line) => log(`topic ${line}`));
    const baseline = summariseRuns(result.runs.baseline);
    const loaded = summariseRuns(result.runs.loaded);
    const r = ratio(loaded.deliveries_per_s ?? NaN, baseline.deliveries_per_s ?? NaN);
    return {
      ...base,
      setup: result.setup,
      baseline,
      loaded,
      /** Loaded deliveries/s ÷ baseline deliveries/s (medians). */
      ratio: r,
      /** Loaded ÷ baseline server CPU per delivery. */
      cpu_per_delivery_ratio: ratio(
        loaded.server_cpu_us_per_delivery ?? NaN,
        baseline.server_cpu_us_per_delivery ?? NaN,
      ),
      meets_target: r !== null && r >= base.target_ratio,
      unexpected_deliveries: result.unexpected_deliveries,
    };
  } catch (err) {
    errors.push(`topic scaling: ${(err as Error).message}`);
    log(`topic scaling FAILED: ${(err as Error).message}`);
    return { ...base, ratio: null, meets_target: false };
  }
}

export async function authScenario() {
  const out = [];
  // Quick mode (the smoke test) runs 1→1 only, to stay within its time budget.
  for (const consumers of quick ? [1] : [1, 10]) {
    const label = `auth 1→${consumers}`;
    try {
      out.push(
        await runAuthOverhead(fanoutConfig(consumers, 100), repeats, fork, (l) =>
          log(`${label} ${l}`),
        ),
      );
    } catch (err) {
      errors.push(`${label}: ${(err as Error).message}`);
      log(`${label}: FAILED ${(err as Error).message}`);
    }
  }
  return out;
}
