/**
 * Puts the embedding API (docs/embedding.md) on the `createBroker` handle: in-process
 * `publish` / `subscribe` / `unsubscribe`, the policy hooks as assignable properties (aedes
 * style: `broker.authorizePublish = async (client, message) => {…}`), and `on` / `once` / `off`
 * for the typed events.
 */
import type { Aedes } from 'aedes';
import type { AuthState } from '../auth/auth-state';
import type { AckTracker } from '../delivery/ack-tracker';
import type { Delivery } from '../delivery/delivery';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { Router } from '../routing/router';
import { Embedding, HOOK_NAMES } from '../policy/embedding';
import {
  BrokerEvent,
  type BrokerEventName,
  type BrokerEvents,
  type BrokerHooks,
  type EmbeddingApi,
} from '../policy/embedding-types';
import { InProcessPubSub } from './in-process';
import { forwardAedesEvents } from '../mqtt/mqtt-hooks';

/** What `createBroker` wires the embedding API with. */
export interface EmbeddingWiring {
  logger: Logger;
  hooks?: BrokerHooks;
  /** The live auth state: the realm E2EE policy applies to in-process `publish` too. */
  auth: AuthState;
  router: Router;
  delivery: Delivery;
  acks: AckTracker;
  metrics: BrokerMetrics;
}

/** The embedding API's parts, for the composition root. */
export interface EmbeddingParts {
  embed: Embedding;
  pubsub: InProcessPubSub;
  /** After the MQTT listener started: re-emit its aedes client events as broker events. */
  attachAedes(aedes: Aedes | null): void;
  /** `close()`: stops in-process subscriptions and emits `closed`. */
  closed(): void;
}

/** Creates the hooks/events state and in-process pub/sub, wired to delivery and routing. */
export function createEmbedding(w: EmbeddingWiring): EmbeddingParts {
  const embed = new Embedding(w.logger, w.hooks);
  embed.onForward((filter) => {
    w.delivery.forward = filter;
    w.acks.forward = filter;
  });
  const pubsub = new InProcessPubSub(w.router, embed, w.metrics, w.logger, w.auth);
  return {
    embed,
    pubsub,
    attachAedes(aedes) {
      const mqttAuth = embed.mqttSide;
      if (aedes && mqttAuth) forwardAedesEvents(aedes, mqttAuth, embed);
    },
    closed() {
      pubsub.close();
      embed.emit(BrokerEvent.CLOSED);
    },
  };
}

type Listener<E extends BrokerEventName> = (...args: BrokerEvents[E]) => void;

/** Adds the embedding API to `handle` (in place) and returns it. */
export function withEmbedding<T extends object>(
  handle: T,
  { embed: embedding, pubsub }: EmbeddingParts,
): T & EmbeddingApi {
  const api = handle as T & EmbeddingApi;
  for (const name of HOOK_NAMES) {
    Object.defineProperty(api, name, {
      enumerable: true,
      get: () => embedding.hooks[name],
      set: (hook: unknown) => embedding.setHook(name, hook as never),
    });
  }
  const events = embedding.events as unknown as {
    on(e: string, l: (...a: unknown[]) => void): void;
    once(e: string, l: (...a: unknown[]) => void): void;
    off(e: string, l: (...a: unknown[]) => void): void;
  };
  Object.assign(api, {
    publish: (packet: Parameters<EmbeddingApi['publish']>[0]) => pubsub.publish(packet),
    subscribe: (...args: Parameters<EmbeddingApi['subscribe']>) => pubsub.subscribe(...args),
    unsubscribe: (...args: Parameters<EmbeddingApi['unsubscribe']>) => pubsub.unsubscribe(...args),
    on<E extends BrokerEventName>(event: E, listener: Listener<E>) {
      events.on(event, listener as (...a: unknown[]) => void);
      return api;
    },
    once<E extends BrokerEventName>(event: E, listener: Listener<E>) {
      events.once(event, listener as (...a: unknown[]) => void);
      return api;
    },
    off<E extends BrokerEventName>(event: E, listener: Listener<E>) {
      events.off(event, listener as (...a: unknown[]) => void);
      return api;
    },
  });
  return api;
}
