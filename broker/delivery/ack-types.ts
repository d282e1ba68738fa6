/**
 * The shapes of reliable (ACK) delivery (`spec/protocol-core.md` §10, §12): what `AckTracker`
 * needs of a stored copy, its hooks, the state and release outcomes it reports, the retry delay
 * formula, and the key of a queue in its in-flight map. Split from ack-tracker.ts (re-exported
 * there).
 */
import { MAX_TIMER_DELAY_MS } from '../../shared/duration';
import type { DeliveryEnvelope } from '../../shared/protocol-events';
import type { RetryPolicy } from '../routing/registry-types';
import type { BrokerSocket } from '../transport/socket-types';

/** Delay (ms) before retrying after attempt `n` timed out (§10.3), at most `MAX_TIMER_DELAY_MS`. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  const ms =
    policy.backoff === 'exponential' ? policy.delayMs * 2 ** (attempt - 1) : policy.delayMs;
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}

/** What the tracker needs to deliver one stored copy and to retry it later. */
export interface ReliableCopy {
  realm: string;
  /** The queue the copy is stored in (key, consumer_id); unchanged by a group hand-over. */
  stored: { key: string; consumer: string };
  /** Subscription key: the copy goes out on `CONSUME-<key>`. */
  key: string;
  consumer: string;
  consumerId: string;
  /** The §8 envelope, without `msgId` (added per attempt). */
  envelope: DeliveryEnvelope;
  /**
   * `JSON.stringify(envelope)` when it was made already (for the store) and fits
   * `emitEncodedDelivery` (see `encodableBase`): attempts are emitted from it.
   */
  envelopeJson?: string;
  ackTimeoutMs: number;
  retry: RetryPolicy;
  /** The consumer's current live socket, or null (looked up at each retry). */
  currentSocket: () => BrokerSocket | null;
  /**
   * For a consumer-group copy: another live member to take it over when this member's
   * socket closes with the copy unacknowledged (§12: nothing another member can take is lost).
   */
  reassign?: () => Reassignment | null;
}

/** The member a group copy moves to. */
export type Reassignment = Omit<
  ReliableCopy,
  'realm' | 'stored' | 'envelope' | 'envelopeJson' | 'reassign'
> & {
  socket: BrokerSocket;
};

/** A tracked copy's state (`AckTracker.stateOf`); times are epoch ms. */
export interface CopyState {
  attempt: number;
  ackDeadlineAt: number | null;
  nextRetryAt: number | null;
}

/** What `AckTracker.releaseNow` did; `consumer` is the member a redelivery went to. */
export type Released =
  | { outcome: 'redelivered'; attempt: number; consumer: string }
  | { outcome: 'requeued' | 'dead_lettered'; attempt: number };

/** The key of one stored queue `(key, consumer_id)` in `AckTracker.inFlight`'s map. */
export const inFlightKey = (key: string, consumer: string): string =>
  `${key.length}:${key}${consumer}`;

export interface AckTrackerHooks {
  /** An attempt was sent; `stored` is the queue the copy is stored in. */
  delivered(realm: string, event: string, stored: { key: string; consumer: string }): void;
  ackTimeout(realm: string): void;
  /** Attempts ran out: move the stored copy to the DLQ with `reason`. */
  exhausted(msgId: string, copy: ReliableCopy, reason: string): void;
  /**
   * Attempt `n` of stored copy `msgId` is being made (or, for an attempt that never left the
   * broker, `n` is the count again without it): write the count to the store. A write that
   * fails reports `notRecorded(msgId, n)`.
   */
  attempted(msgId: string, n: number): void;
  /** An awaited ACK arrived `seconds` after its attempt was sent. */
  acked?(seconds: number): void;
}
