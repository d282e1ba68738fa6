/**
 * Records kept per realm: producers, consumers and subscriptions.
 *
 * Source: `spec/protocol-core.md` §5.1 (registry model) and §6.1 (subscription record).
 * Entries outlive their sockets: a disconnect sets `socket = null` and `offlineAt` (§15).
 */
import type { BrokerSocket } from '../transport/socket-types';

/** A producer name bound (or once bound) to a socket. */
export interface ProducerEntry {
  name: string;
  /** Notification id: the `PRODUCER` id, else the socket id. */
  id: string | null;
  /** `id` is the socket id of its last binding: the client gave none (set by `bindProducer`). */
  idFromSocket?: boolean;
  socket: BrokerSocket | null;
  online: boolean;
  /** Epoch ms of the last disconnect; null while online or never connected. */
  offlineAt: number | null;
  /** A placeholder created by a subscription before the producer ever connected. */
  placeholder: boolean;
  /** Consumer names subscribed to this producer. */
  subscribers: Set<string>;
  /** Seconds; TTL of this producer's messages that carry none (§9.3). */
  defaultTtl: number | null | undefined;
  /**
   * The last few distinct events it produced (at most `PRODUCER_RECENT_EVENTS`, oldest first),
   * so `GET /api/clients` can count the MQTT clients whose filters match them. Absent until it
   * produces.
   */
  recentEvents?: Set<string>;
}

/** Distinct events remembered per producer (`ProducerEntry.recentEvents`). */
export const PRODUCER_RECENT_EVENTS = 16;

/** A consumer name bound (or once bound) to a socket. */
export interface ConsumerEntry {
  name: string;
  /** Notification id: the `CONSUMER` id, else the socket id. */
  id: string;
  /**
   * The id the client registered (`CONSUMER`/`SUBSCRIBE` `id`) on its current binding;
   * undefined when it gave none. Unlike `id`, never a socket id: durable identities use it.
   */
  registeredId?: string;
  socket: BrokerSocket | null;
  online: boolean;
  offlineAt: number | null;
  /** Producer names this consumer subscribed to (`TYO-MQ-ALL` included). */
  subscribeTos: Set<string>;
}

/** Normalised retry policy (§10.3). */
export interface RetryPolicy {
  maxAttempts: number;
  delayMs: number;
  backoff: 'fixed' | 'exponential';
}

/** One subscription: `subscriptions[key][consumerName]` (§6.1). */
export interface SubscriptionRecord {
  key: string;
  consumer: string;
  /** The producer named in `SUBSCRIBE` (exact case) or `TYO-MQ-ALL`. */
  producer: string;
  /** Lowercased pattern when `mode === 'topic'`. */
  pattern: string | null;
  consumerId: string;
  durable: boolean;
  ackRequired: boolean;
  ackTimeoutMs: number;
  retry: RetryPolicy;
  group: string | null;
  mode: 'topic' | null;
  /** Whether this key was announced to the producer in a `SUBSCRIBE-TO` (§5.3). */
  announced: boolean;
}
