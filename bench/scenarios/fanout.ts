/**
 * Fan-out scenario: one producer, `consumers` consumers with one exact subscription each to
 * the producer's event, against the broker and the bare relay.
 *
 * For one configuration (consumer count × payload size):
 *   1. fork both servers, each in its own child process, and give each its own clients:
 *      connect the consumers and the producer (WebSocket), `CONSUMER` + `SUBSCRIBE` each
 *      consumer, `PRODUCER` the producer — the same client traffic for both servers (the relay
 *      ignores what it does not need);
 *   2. readiness barrier on each: probes until every consumer has received one;
 *   3. `repeats` measurements of each server, interleaved in ABBA order (relay, broker,
 *      broker, relay, …), each preceded by an unmeasured warm-up phase (JIT, socket buffers,
 *      caches after the other server ran) and consisting of a windowed throughput phase and
 *      an idle-latency phase (`measure.ts`);
 *   4. close the clients, stop both servers.
 * The server that is not being measured only answers heartbeats meanwhile.
 *
 * Units: rates per second, times in ms, sizes in bytes.
 */
import { consumeEvent, subscriptionKey } from '../../shared/protocol-events';
import {
  closeAll,
  connectMany,
  defaultClientProfile,
  type ClientProfile,
  registerConsumer,
  registerProducer,
  subscribeExact,
  type Socket,
} from '../lib/clients';
import { LoadSession } from '../lib/load-session';
import { measureRun, type MeasureConfig, type MeasuredRun } from '../lib/measure';
import {
  forkServer,
  type ForkOptions,
  type ServerHandle,
  type ServerKind,
} from '../servers/server-process';

export const FANOUT_PRODUCER = 'bench-producer';
export const FANOUT_EVENT = 'bench/fanout';
/** Cap on each warm-up phase, ms. */
const WARMUP_CAP_MS = 1_000;

export interface FanoutConfig extends MeasureConfig {
  consumers: number;
  /** Nominal JSON size of each message, bytes. */
  payloadBytes: number;
  /** Messages in the unmeasured warm-up phase before each measurement. */
  warmupMessages: number;
}

/** One measurement of one server, plus the measured size of the messages. */
export interface FanoutRun extends MeasuredRun {
  server: ServerKind;
  /** JSON length of one published message, bytes. */
  message_json_bytes: number;
}

/**
 * What the clients and servers run with. Defaults: stock socket.io-client options, a relay with
 * stock socket.io server options, the broker with its default settings.
 */
export interface FanoutVariant {
  clients?: ClientProfile;
  /** `stock` (socket.io defaults) or `broker` (the broker's socket.io options). */
  relayOptions?: 'stock' | 'broker';
  /** Broker settings (as a settings file); default `{}`. */
  brokerSettings?: object;
}

interface Target {
  kind: ServerKind;
  server: ServerHandle;
  sockets: Socket[];
  session: LoadSession | null;
}

/**
 * Measures one configuration `repeats` times on each server (see the module comment).
 * `progress` receives one line per measurement.
 */
export async function runFanoutPair(
  config: FanoutConfig,
  repeats: number,
  fork: ForkOptions = {},
  progress: (line: string) => void = () => {},
  variant: FanoutVariant = {},
): Promise<Record<ServerKind, FanoutRun[]>> {
  const targets: Target[] = [];
  const env: Record<ServerKind, NodeJS.ProcessEnv> = {
    relay: { BENCH_RELAY_OPTIONS: variant.relayOptions ?? 'stock' },
    broker: { BENCH_BROKER_SETTINGS: JSON.stringify(variant.brokerSettings ?? {}) },
  };
  try {
    for (const kind of ['relay', 'broker'] as const) {
      const target: Target = {
        kind,
        server: await forkServer(kind, { ...fork, env: { ...fork.env, ...env[kind] } }),
        sockets: [],
        session: null,
      };
      targets.push(target);
      await connect(target, config, variant.clients ?? defaultClientProfile);
    }
    const runs: Record<ServerKind, FanoutRun[]> = { relay: [], broker: [] };
    for (let r = 0; r < repeats; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const { kind, server, session } of order) {
        await session!.phase({
          messages: config.warmupMessages,
          window: config.window,
          capMs: WARMUP_CAP_MS,
        });
        const run = await measureRun(session!, server, config);
        runs[kind].push({ server: kind, message_json_bytes: session!.messageJsonBytes, ...run });
        progress(`${kind} (${r + 1}/${repeats}): ${Math.round(run.deliveries_per_s)} deliveries/s`);
      }
    }
    return runs;
  } finally {
    for (const target of targets) {
      target.session?.detach();
      closeAll(target.sockets);
    }
    await Promise.all(targets.map((t) => t.server.stop()));
  }
}

/** Connects and registers `target`'s clients, then waits until every consumer is reached. */
async function connect(
  target: Target,
  config: FanoutConfig,
  clients: ClientProfile,
): Promise<void> {
  target.sockets = await connectMany(target.server.url, config.consumers + 1, clients);
  const producer = target.sockets[config.consumers]!;
  const consumers = target.sockets.slice(0, config.consumers);
  consumers.forEach((socket, i) => {
    const name = `bench-consumer-${i}`;
    registerConsumer(socket, name);
    subscribeExact(socket, name, FANOUT_PRODUCER, FANOUT_EVENT);
  });
  registerProducer(producer, FANOUT_PRODUCER);
  const deliveryEvent = consumeEvent(subscriptionKey(FANOUT_PRODUCER, FANOUT_EVENT));
  target.session = new LoadSession(
    producer,
    FANOUT_PRODUCER,
    FANOUT_EVENT,
    consumers.map((socket) => ({ socket, deliveryEvent })),
    config.payloadBytes,
  );
  await target.session.untilAllReceive();
}
