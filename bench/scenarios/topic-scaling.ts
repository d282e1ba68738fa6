/**
 * Topic-index scaling: does publishing get slower when the broker holds many topic
 * subscriptions that do *not* match?
 *
 * Two brokers run side by side, each in its own child process, with the same clients:
 *   - `loaded`: `consumers` consumers with `subscriptionsPerConsumer` distinct topic patterns
 *     each (`+`, `#` and literals; 1,000 × 100 = 100,000 by default), of which exactly
 *     `matching` subscriptions, on `matching` different consumers, match the published topic;
 *   - `baseline`: the same consumers, connected and registered, holding only those `matching`
 *     subscriptions.
 * So the only difference is the size of the topic index (and of the subscription map). The
 * producer publishes `TOPIC` to both, measured alternately (baseline, loaded, loaded,
 * baseline, …) with `measure.ts`; the result is `ratio = loaded / baseline` deliveries/s.
 *
 * Every consumer socket also counts deliveries it should not get (`unexpected_deliveries`, on
 * any `CONSUME-…` event other than its matching subscription's): a correctness check of the
 * index under load, expected to be 0.
 *
 * Units: rates per second, times in ms.
 */
import { performance } from 'node:perf_hooks';
import { anyProducerKey, consumeEvent } from '../../shared/protocol-events';
import {
  closeAll,
  connectMany,
  pingBarrier,
  registerConsumer,
  registerProducer,
  subscribeTopic,
  type Socket,
} from '../lib/clients';
import { LoadSession } from '../lib/load-session';
import { measureRun, type MeasureConfig, type MeasuredRun } from '../lib/measure';
import { forkServer, type ForkOptions, type ServerHandle } from '../servers/server-process';

/** The published topic. */
export const TOPIC = 'org/acme/dev/sensor/temp';
export const TOPIC_PRODUCER = 'bench-topic-producer';

/** Ten distinct patterns that all match `TOPIC` (spec §11), one per matching consumer. */
export const MATCHING_PATTERNS = [
  'org/acme/dev/+/temp',
  'org/acme/+/sensor/temp',
  'org/+/dev/sensor/temp',
  '+/acme/dev/sensor/temp',
  'org/acme/dev/sensor/#',
  'org/acme/dev/#',
  'org/acme/#',
  'org/#',
  '+/+/+/+/temp',
  'org/+/+/+/+',
] as const;

/**
 * Pattern `i` of consumer `c`: distinct for every `(c, i)`, never matching `TOPIC` (each has a
 * literal level naming `c` where the topic has another word). Most share a prefix with the
 * topic, so that the trie walk for `TOPIC` passes through crowded nodes.
 */
export function nonMatchingPattern(c: number, i: number): string {
  switch (i % 5) {
    case 0:
      return `org/acme/dev/+/c${c}x${i}`;
    case 1:
      return `org/acme/dev/c${c}x${i}/#`;
    case 2:
      return `org/+/c${c}/x${i}/temp`;
    case 3:
      return `+/c${c}/dev/x${i}/#`;
    default:
      return `site/c${c}/+/x${i}/#`;
  }
}

export interface TopicConfig extends MeasureConfig {
  consumers: number;
  subscriptionsPerConsumer: number;
  /** Matching subscriptions (at most `MATCHING_PATTERNS.length`), one per consumer. */
  matching: number;
  payloadBytes: number;
  warmupMessages: number;
  repeats: number;
}

export type TopicVariant = 'baseline' | 'loaded';

/** Set-up figures of one variant. */
export interface VariantSetup {
  subscriptions: number;
  /** From the first `SUBSCRIBE` to the last consumer's barrier, ms. */
  subscribe_ms: number;
  /** Subscriptions handled per second during set-up. */
  subscribe_per_s: number;
}

export interface TopicResult {
  setup: Record<TopicVariant, VariantSetup>;
  runs: Record<TopicVariant, MeasuredRun[]>;
  /** Deliveries on events no subscription of that consumer asked for (should be 0). */
  unexpected_deliveries: number;
}

interface Variant {
  name: TopicVariant;
  server: ServerHandle;
  sockets: Socket[];
  session: LoadSession;
  setup: VariantSetup;
}

/** Runs both variants, interleaved, `config.repeats` times each; `progress` gets status lines. */
export async function runTopicScaling(
  config: TopicConfig,
  fork: ForkOptions = {},
  progress: (line: string) => void = () => {},
): Promise<TopicResult> {
  const unexpected = { count: 0 };
  const variants: Variant[] = [];
  try {
    for (const name of ['baseline', 'loaded'] as const) {
      variants.push(await setUpVariant(name, config, unexpected, fork, progress));
    }
    const runs: Record<TopicVariant, MeasuredRun[]> = { baseline: [], loaded: [] };
    for (let r = 0; r < config.repeats; r++) {
      // ABBA order, so slow drift in machine load does not favour either variant.
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        const run = await measureRun(v.session, v.server, config);
        runs[v.name].push(run);
        progress(
          `${v.name} (${r + 1}/${config.repeats}): ${Math.round(run.deliveries_per_s)} deliveries/s`,
        );
      }
    }
    return {
      setup: { baseline: variants[0]!.setup, loaded: variants[1]!.setup },
      runs,
      unexpected_deliveries: unexpected.count,
    };
  } finally {
    for (const v of variants) {
      v.session.detach();
      closeAll(v.sockets);
    }
    await Promise.all(variants.map((v) => v.server.stop()));
  }
}

async function setUpVariant(
  name: TopicVariant,
  config: TopicConfig,
  unexpected: { count: number },
  fork: ForkOptions,
  progress: (line: string) => void,
): Promise<Variant> {
  const server = await forkServer('broker', fork);
  const sockets: Socket[] = [];
  try {
    progress(`${name}: connecting ${config.consumers} consumers`);
    sockets.push(...(await connectMany(server.url, config.consumers + 1)));
    const producer = sockets[config.consumers]!;
    const consumers = sockets.slice(0, config.consumers);
    const stride = Math.floor(config.consumers / config.matching);
    const matchingIndex = new Map<number, number>(); // consumer index → matching pattern index
    for (let k = 0; k < config.matching; k++) matchingIndex.set(k * stride, k);

    const prefix = consumeEvent('');
    consumers.forEach((socket, c) => {
      registerConsumer(socket, `topic-consumer-${c}`);
      const k = matchingIndex.get(c);
      const expected = k === undefined ? null : consumeEvent(anyProducerKey(MATCHING_PATTERNS[k]!));
      socket.onAny((event: string) => {
        if (event.startsWith(prefix) && event !== expected) unexpected.count++;
      });
    });

    const started = performance.now();
    let subscriptions = 0;
    const batch = 50;
    for (let from = 0; from < consumers.length; from += batch) {
      const slice = consumers.slice(from, from + batch);
      slice.forEach((socket, j) => {
        const c = from + j;
        const consumer = `topic-consumer-${c}`;
        const k = matchingIndex.get(c);
        if (k !== undefined) {
          subscribeTopic(socket, consumer, MATCHING_PATTERNS[k]!);
          subscriptions++;
        }
        if (name === 'baseline') return;
        const extra = config.subscriptionsPerConsumer - (k === undefined ? 0 : 1);
        for (let i = 0; i < extra; i++) subscribeTopic(socket, consumer, nonMatchingPattern(c, i));
        subscriptions += extra;
      });
      await Promise.all(slice.map((socket) => pingBarrier(socket)));
    }
    const subscribeMs = performance.now() - started;
    progress(`${name}: ${subscriptions} subscriptions in ${Math.round(subscribeMs)} ms`);

    // Registered after the subscriptions, so set-up does not send it one notification each.
    registerProducer(producer, TOPIC_PRODUCER);
    const session = new LoadSession(
      producer,
      TOPIC_PRODUCER,
      TOPIC,
      [...matchingIndex].map(([c, k]) => ({
        socket: consumers[c]!,
        deliveryEvent: consumeEvent(anyProducerKey(MATCHING_PATTERNS[k]!)),
      })),
      config.payloadBytes,
    );
    await session.untilAllReceive();
    await session.phase({
      messages: config.warmupMessages,
      window: config.window,
      capMs: config.capMs,
    });
    return {
      name,
      server,
      sockets,
      session,
      setup: {
        subscriptions,
        subscribe_ms: Math.round(subscribeMs),
        subscribe_per_s: Math.round(subscriptions / (subscribeMs / 1000)),
      },
    };
  } catch (err) {
    closeAll(sockets);
    await server.stop();
    throw err;
  }
}
