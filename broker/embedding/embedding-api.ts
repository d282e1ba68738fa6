/**
 * Puts the embedding API (docs/embedding.md) on the `createBroker` handle: in-process
 * `publish` / `subscribe` / `unsubscribe`, the policy hooks as assignable properties (aedes
 * style: `broker.authorizePublish = async (client, message) => {…}`), and `on` / `once` / `off`
 * for the typed events.
 */
import { HOOK_NAMES, type Embedding } from './embedding';
import type { BrokerEventName, BrokerEvents, EmbeddingApi } from './embedding-types';
import type { InProcessPubSub } from './in-process';

type Listener<E extends BrokerEventName> = (...args: BrokerEvents[E]) => void;

/** Adds the embedding API to `handle` (in place) and returns it. */
export function withEmbedding<T extends object>(
  handle: T,
  embedding: Embedding,
  pubsub: InProcessPubSub,
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
