/**
 * Slow-consumer scenario (issue 11, back-pressure): one consumer that never reads (its TCP socket
 * is paused, as a stuck client's would be) and one healthy consumer subscribe to the same event; a
 * producer sends `totalMiB` of incompressible messages, closed-loop on the healthy consumer's
 * receipts. Reports the broker's RSS over its baseline (goal ≤ 150 MiB), the healthy consumer's
 * latency (goal p99 < 50 ms) and the slow-consumer drops the broker counted.
 *
 * Run alone: `npx tsx bench/scenarios/slow-consumer.ts` (prints JSON; BENCH_QUICK=1 sends 16 MiB),
 * or through `bench/run-all.ts` (`BENCH_ONLY=slow`).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MetricName } from '../../shared/metric-names';
import { consumeEvent, subscriptionKey } from '../../shared/protocol-events';
import {
  closeAll,
  connectClient,
  pingBarrier,
  registerConsumer,
  registerProducer,
  subscribeExact,
  type Socket,
} from '../lib/clients';
import { summariseLatency, type LatencySummary } from '../lib/stats';
import { forkServer, type ForkOptions } from '../servers/server-process';

export interface SlowConsumerConfig {
  /** Bytes sent in total, MiB. */
  totalMiB: number;
  /** JSON size of one message's padding, bytes. */
  messageBytes: number;
  /** Messages in flight towards the healthy consumer. */
  window: number;
}

export interface SlowConsumerResult {
  total_mib: number;
  message_bytes: number;
  messages: number;
  broker_rss_baseline_mib: number;
  broker_rss_peak_mib: number;
  broker_rss_over_baseline_mib: number;
  goal_rss_over_baseline_mib: number;
  healthy_latency_ms: LatencySummary;
  goal_healthy_p99_ms: number;
  slow_consumer_drops: number | null;
  duration_s: number;
  meets_goals: boolean;
}

const MIB = 1024 * 1024;
const EVENT = 'blob';
const PRODUCER = 'bulk';

function pauseReading(socket: Socket): void {
  const transport = socket.io.engine.transport as unknown as {
    ws?: { _socket?: { pause(): void } };
  };
  const tcp = transport.ws?._socket;
  if (!tcp) throw new Error('slow consumer: no websocket transport');
  tcp.pause();
}

export async function runSlowConsumer(
  config: SlowConsumerConfig,
  fork: ForkOptions = {},
  log: (line: string) => void = () => {},
): Promise<SlowConsumerResult> {
  const server = await forkServer('broker', {
    ...fork,
    env: { ...fork.env, BENCH_BROKER_SETTINGS: JSON.stringify({ http_api: { enabled: true } }) },
  });
  const sockets: Socket[] = [];
  try {
    const consumerSocket = async (name: string) => {
      const s = await connectClient(server.url);
      sockets.push(s);
      registerConsumer(s, name);
      subscribeExact(s, name, PRODUCER, EVENT);
      await pingBarrier(s);
      return s;
    };
    const slow = await consumerSocket('slow');
    const healthy = await consumerSocket('healthy');
    const producer = await connectClient(server.url);
    sockets.push(producer);
    registerProducer(producer, PRODUCER);
    await pingBarrier(producer);
    pauseReading(slow);

    const baseline = (await server.sample()).rssBytes;
    let peak = baseline;
    const sampler = setInterval(() => {
      void server.sample().then((s) => (peak = Math.max(peak, s.rssBytes)));
    }, 100);

    const messages = Math.ceil((config.totalMiB * MIB) / config.messageBytes);
    // Incompressible padding: per-message deflate must not make the volume vanish.
    const padding = randomBytes(Math.floor((config.messageBytes * 3) / 4)).toString('base64');
    const latencies = new Float64Array(messages);
    let received = 0;
    let sent = 0;
    const started = performance.now();
    await new Promise<void>((resolve) => {
      const send = () => {
        while (sent < messages && sent - received < config.window) {
          producer.emit('PRODUCE', {
            event: EVENT,
            from: PRODUCER,
            message: { s: sent, t: performance.now(), p: padding },
          });
          sent++;
        }
      };
      healthy.on(
        consumeEvent(subscriptionKey(PRODUCER, EVENT)),
        (env: { message: { t: number } }) => {
          latencies[received++] = performance.now() - env.message.t;
          if (received % 1000 === 0)
            log(`${received}/${messages} delivered to the healthy consumer`);
          if (received === messages) resolve();
          else send();
        },
      );
      send();
    });
    const duration = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, (await server.sample()).rssBytes);

    let drops: number | null = null;
    try {
      const text = await (await fetch(`${server.url}/api/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${MetricName.SLOW_CONSUMER_DROPS_TOTAL}{`));
      drops = line ? Number(line.split(' ').pop()) : 0;
    } catch {
      drops = null;
    }
    const latency = summariseLatency(latencies, received);
    const over = (peak - baseline) / MIB;
    return {
      total_mib: config.totalMiB,
      message_bytes: config.messageBytes,
      messages,
      broker_rss_baseline_mib: Math.round((baseline / MIB) * 10) / 10,
      broker_rss_peak_mib: Math.round((peak / MIB) * 10) / 10,
      broker_rss_over_baseline_mib: Math.round(over * 10) / 10,
      goal_rss_over_baseline_mib: 150,
      healthy_latency_ms: latency,
      goal_healthy_p99_ms: 50,
      slow_consumer_drops: drops,
      duration_s: Math.round(duration * 10) / 10,
      meets_goals: over <= 150 && latency.p99_ms < 50,
    };
  } finally {
    closeAll(sockets);
    await server.stop();
  }
}

/** Scenario parameters: 300 MiB of 64 KiB messages (30 MiB with `quick`). */
export function slowConsumerConfig(quick: boolean): SlowConsumerConfig {
  return { totalMiB: quick ? 16 : 300, messageBytes: 64 * 1024, window: 1 };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.env.BENCH_QUICK === '1';
  runSlowConsumer(slowConsumerConfig(quick), {}, (l) => process.stderr.write(`slow: ${l}\n`)).then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`, () => process.exit(0)),
    (err: unknown) => {
      process.stderr.write(`slow-consumer failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
