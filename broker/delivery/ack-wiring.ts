/**
 * The broker's `AckTracker` wired to its metrics, its store and the DLQ: an exhausted copy is
 * moved to the DLQ (`spec/protocol-core.md` §10.4–§10.5) and counted, each attempt is stored
 * (ARCHITECTURE §4). Failures are logged, never thrown.
 */
import type { Logger } from '../logging/logger';
import type { RepeatedWarnings } from '../logging/repeated-warnings';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { MessageStore } from '../storage/message-store';
import { AckTracker } from './ack-tracker';
import type { QueueLedger } from './queue-ledger';

export interface AckWiring {
  metrics: BrokerMetrics;
  ledger: QueueLedger;
  store: MessageStore;
  /** Per-message warnings of a busy realm, aggregated. */
  repeated: RepeatedWarnings;
  logger: Logger;
}

export function createAckTracker({
  metrics,
  ledger,
  store,
  repeated,
  logger,
}: AckWiring): AckTracker {
  const tracker: AckTracker = new AckTracker({
    delivered: (realm, event, stored) => {
      metrics.messageDelivered(realm, event);
      ledger.delivered(realm, stored.key, stored.consumer);
    },
    ackTimeout: (realm) => metrics.ackTimeout(realm),
    acked: (seconds) => metrics.acked(seconds),
    exhausted: (msgId, copy, reason) => {
      const { key, consumer } = copy.stored;
      ledger
        .deadLetter(msgId, reason, copy.realm, key, consumer)
        .then((id) => {
          if (id === null) return;
          metrics.messageDeadLettered(copy.realm);
          repeated.warn({ realm: copy.realm, event: copy.key, reason }, { id }, 'dead-lettered');
        })
        .catch((err: unknown) => logger.error({ err, id: msgId }, 'dead-letter move failed'));
    },
    attempted: (msgId, n) => {
      store.setAttempts(msgId, n).catch((err: unknown) => {
        // Kept in memory: the next delivery is marked from it and `max_attempts` still counts.
        tracker.notRecorded(msgId, n);
        logger.error({ err, id: msgId }, 'attempt count not stored');
      });
    },
  });
  return tracker;
}
