/**
 * The delivery core of a broker (part of the composition root, `create-broker.ts`): the queue
 * ledger with its caps, the ACK tracker, chunk reassembly, back-pressure, `Delivery` and the
 * `Replayer`, wired to each other and to the socket.io server they emit on. Wiring only.
 *
 * Source of the behaviours: `spec/protocol-core.md` §9 (durable copies, replay), §10 (ACK,
 * retry, DLQ), §13 (chunked messages); caps and bounds: docs/limits.md.
 */
import { ProtocolErrorCode, ServerEvent } from '../shared/protocol-events';
import type { Settings } from './config/settings-schema';
import { createAckTracker } from './delivery/ack-wiring';
import { ChunkAssembler } from './delivery/chunk-assembler';
import { Delivery } from './delivery/delivery';
import { QueueLedger } from './delivery/queue-ledger';
import { Replayer } from './delivery/replay';
import { BackPressure } from './limits/back-pressure';
import type { LimitMetrics } from './limits/limit-metrics';
import type { LimitsService } from './limits/limits-service';
import type { Logger } from './logging/logger';
import { RepeatedWarnings } from './logging/repeated-warnings';
import type { BrokerMetrics } from './metrics/broker-metrics';
import type { RealmDirectory } from './routing/realm-directory';
import type { MessageStore } from './storage/message-store';
import type { BrokerServer } from './transport/socket-types';

export interface DeliveryCoreDeps {
  /** Start-up settings (input limits, frame size). */
  settings: Settings;
  /** The live back-pressure block (hot reloads apply). */
  backPressure: () => Settings['back_pressure'];
  store: MessageStore;
  realms: RealmDirectory;
  rateLimits: LimitsService;
  limitMetrics: LimitMetrics;
  metrics: BrokerMetrics;
  logger: Logger;
  io: BrokerServer;
}

export function createDeliveryCore(d: DeliveryCoreDeps) {
  const { store, realms, rateLimits, metrics, logger, io, settings } = d;
  const ledger = new QueueLedger(
    store,
    {
      perRealm: (realm) => rateLimits.config.value('max_queued_per_realm', realm),
      // A default bound (100,000) applies without a `limits` block (issue 20 item 9).
      perConsumer: (realm) => rateLimits.config.bound('max_queued_per_consumer', realm),
    },
    logger,
    // Empty queues whose durable subscription is gone are forgotten (issue 20 item 4).
    (realm) => {
      const registry = realms.get(realm);
      if (!registry) return undefined;
      return (function* () {
        for (const byConsumer of registry.subscriptions.values()) yield* byConsumer.values();
      })();
    },
  );
  // Per-message warnings of a busy realm, and client input a client may repeat at will (unknown
  // events): first one in full, then a count per key (10 s).
  const repeated = new RepeatedWarnings(logger);
  const acks = createAckTracker({ metrics, ledger, store, repeated, logger });
  const limits = settings.input_limits;
  const chunks = new ChunkAssembler(
    {
      maxLength: limits.max_chunked_message_length,
      maxPartialPerSocket: limits.max_partial_transfers_per_socket,
      idleTimeoutMs: limits.transfer_idle_timeout_ms,
      deadlineMs: limits.transfer_deadline_ms,
      maxHeldBytes: limits.max_reassembly_bytes,
    },
    (socketId, transferId, reason) => {
      logger.warn({ socket: socketId, transferId, reason }, 'partial chunked message dropped');
      if (reason === 'deadline') {
        io.sockets.sockets.get(socketId)?.emit(ServerEvent.ERROR, {
          message: chunks.deadlineReason(transferId),
          code: ProtocolErrorCode.LIMIT_EXCEEDED,
        });
      }
    },
  );
  const backPressure = new BackPressure(
    d.backPressure,
    d.limitMetrics,
    logger,
    settings.max_http_buffer_size,
  );
  // `local`: socket ids are this node's; a cluster adapter must not relay these packets.
  const delivery = new Delivery(
    metrics,
    acks,
    store,
    ledger,
    logger,
    (ids, event, envelope) => io.local.to(ids).emit(event, envelope),
    backPressure,
  );
  const replayer = new Replayer(store, acks, delivery, ledger, logger);
  return { ledger, repeated, acks, chunks, backPressure, delivery, replayer };
}
