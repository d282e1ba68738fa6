/**
 * The shapes of the broker's durable-queue account (queue-ledger.ts): one queue
 * `(realm, subscription key, consumer_id)` with its depth, publish-order bookkeeping and live
 * socket, the caps in force, and who owns queues now.
 */
/**
 * The durable subscriptions that own queues in `realm` now, as `(key, consumer_id)` pairs
 * (undefined: the realm has none). Read by `sweepOrphans` only, never per message.
 */
export type QueueOwners = (
  realm: string,
) => Iterable<{ key: string; consumerId: string }> | undefined;

/** Copies held and places reserved by writes in flight. */
export interface Depth {
  stored: number;
  reserved: number;
}

/** One durable queue `(realm, key, consumer_id)`. */
export interface QueueState extends Depth {
  /** Changed only by `renameRealm`. */
  realm: string;
  readonly key: string;
  readonly consumer: string;
  /** Copies stored since the last replay read; a replay loops until none arrived. */
  parked: number;
  /** The socket this queue delivers live to (its replay drained the backlog), else null. */
  liveSocket: string | null;
  /** Bumped by each replay; an older replay that sees a newer one stops. */
  replayGen: number;
  /** The consumer's depth across its queues in this realm (`max_queued_per_consumer`). */
  readonly owner: ConsumerDepth;
  /** Set when the state was dropped from the ledger; cached references must look it up again. */
  dropped: boolean;
  /**
   * Since the broker started (or the queue was last forgotten empty): copies that entered it
   * (published, moved, replayed from the DLQ; not the ones found at start), deliveries made
   * from it (redeliveries too) and ACKs of its copies. `list_queues` reports them; the console
   * turns successive readings into rates.
   */
  totals: { enqueued: number; delivered: number; acked: number };
  /**
   * Publish order of write outcomes (see `Delivery`): the sequence number of the next copy
   * whose write starts, of the next copy whose outcome may be acted on, and the outcomes that
   * settled before an earlier one did (null when none is waiting; the common case).
   */
  outSeq: number;
  outNext: number;
  outHeld: Map<number, () => void> | null;
}

/** Why a copy was refused: the realm's cap or the consumer's. */
export type Refusal = 'realm' | 'consumer';

/**
 * The caps in force for a realm (`limits.max_queued_per_realm`, `limits.max_queued_per_consumer`,
 * with per-realm overrides); read at each reservation, so hot-reloaded limits apply. Unset =
 * no cap. Must be cheap: called once per stored copy.
 */
export interface QueueLimits {
  perRealm(realm: string): number | undefined;
  perConsumer(realm: string): number | undefined;
}

/** A consumer's depth in one realm, and how many of its queues the ledger holds. */
export interface ConsumerDepth extends Depth {
  queues: number;
}

/** A realm's queues, consumers and total depth. */
export interface RealmQueues {
  depth: Depth;
  queues: Map<string, QueueState>;
  consumers: Map<string, ConsumerDepth>;
}

/** The map key of queue `(key, consumer)` in its realm (length-prefixed: no collisions). */
export const queueId = (key: string, consumer: string) => `${key.length}:${key}${consumer}`;
