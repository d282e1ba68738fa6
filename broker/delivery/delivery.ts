/**
 * Delivery of one routed copy to one subscription (`spec/protocol-core.md` §7 step 6, §9.1):
 * - live consumer, no ACK: `CONSUME-<key>` at once (at most once, in order);
 * - live consumer with ACK (Note 7-A: ACK alone is enough): the copy is committed to the
 *   store, then delivered with `msgId` and tracked until ACKed, retried or dead-lettered;
 * - offline consumer: committed to the store for a durable subscription or a guaranteed
 *   message (replayed on its next `SUBSCRIBE`), dropped otherwise.
 * If a reliable copy cannot be stored (store error, queue cap) it is delivered plain, without
 * `msgId`, rather than not at all (§9.1 recommendation) — and the publisher confirm says so.
 */
import type { ErrorInfo } from '../../shared/error-catalogue';
import { SwitchboardError } from '../../shared/error-catalogue';
import { consumeEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import { OPEN_GATE, type SendGate } from '../limits/back-pressure';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { ProducedMessage } from '../routing/produced-message';
import type { RealmRegistry } from '../routing/realm-registry';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { MessageStore } from '../storage/message-store';
import type { BrokerSocket } from '../transport/socket-types';
import type { AckTracker, ReliableCopy, Reassignment } from './ack-tracker';
import { emitDelivery, needsChunking } from './chunked-emit';
import type { QueueCap } from './queue-cap';

/** Outcome of storing one durable copy; never a rejected promise. */
export type StoreOutcome = { ok: true; msgId: string } | { ok: false; error: ErrorInfo };

export function liveSocket(realm: RealmRegistry, consumer: string): BrokerSocket | null {
  const c = realm.consumers.get(consumer);
  return c?.online && c.socket?.connected ? c.socket : null;
}

/** The fields of a copy that depend on the member holding it (see `Reassignment`). */
function memberOf(realm: RealmRegistry, record: SubscriptionRecord) {
  return {
    key: record.key,
    consumer: record.consumer,
    consumerId: record.consumerId,
    ackTimeoutMs: record.ackTimeoutMs,
    retry: record.retry,
    currentSocket: () => liveSocket(realm, record.consumer),
  };
}

/** The reliable-delivery view of a subscription, for the ACK tracker. */
export function reliableCopy(
  realm: RealmRegistry,
  record: SubscriptionRecord,
  envelope: DeliveryEnvelope,
  group?: readonly SubscriptionRecord[],
): ReliableCopy {
  return {
    ...memberOf(realm, record),
    realm: realm.name,
    envelope,
    reassign: group ? () => reassign(realm, group, record.consumer) : undefined,
  };
}

/** Another live member of a group, round-robin, to take over an unacknowledged copy. */
function reassign(
  realm: RealmRegistry,
  members: readonly SubscriptionRecord[],
  leaving: string,
): Reassignment | null {
  const live = members.filter((m) => m.consumer !== leaving && liveSocket(realm, m.consumer));
  const group = live[0]?.group;
  if (!group) return null;
  const m = live[(realm.nextGroupCount(group) - 1) % live.length]!;
  return { ...memberOf(realm, m), socket: liveSocket(realm, m.consumer)! };
}

/** Emits one packet to several local sockets, encoding it once (socket.io broadcast). */
export type LocalBroadcast = (
  socketIds: string[],
  eventName: `CONSUME-${string}`,
  envelope: DeliveryEnvelope,
) => void;

export class Delivery {
  constructor(
    private readonly metrics: BrokerMetrics,
    private readonly acks: AckTracker,
    private readonly store: MessageStore,
    private readonly cap: QueueCap,
    private readonly logger: Logger,
    private readonly broadcast: LocalBroadcast,
    /** Back-pressure: plain copies to a socket over its write-buffer cap are dropped. */
    private readonly gate: SendGate = OPEN_GATE,
  ) {}

  /** Whether `socket` may be sent copies that would otherwise stay in the store. */
  writable(socket: BrokerSocket): boolean {
    return this.gate.writable(socket);
  }

  /**
   * Plain live deliveries of one message on one key to several sockets (a fan-out): encoded
   * once for all of them unless the envelope needs chunking. Counted per socket.
   */
  emitToSockets(
    realm: string,
    sockets: readonly BrokerSocket[],
    eventName: `CONSUME-${string}`,
    envelope: DeliveryEnvelope,
  ): void {
    for (let i = 0; i < sockets.length; i++) {
      if (this.gate.admit(realm, sockets[i]!)) continue;
      // Rare: one of them is over its cap. Those before `i` passed already.
      sockets = sockets.filter((s, j) => j < i || (j > i && this.gate.admit(realm, s)));
      if (sockets.length === 0) return;
      break;
    }
    const ids = sockets.length === 1 ? null : sockets.map((s) => s.id);
    // A socket listed twice (two consumer names on one connection) gets two copies, as one
    // per subscription record is the protocol's rule; a broadcast would send it one.
    if (ids === null || new Set(ids).size !== ids.length || needsChunking(envelope)) {
      for (const socket of sockets) emitDelivery(socket, eventName, envelope);
    } else {
      this.broadcast(ids, eventName, envelope);
    }
    this.metrics.messageDelivered(realm, envelope.event, sockets.length);
  }

  /**
   * Delivers `envelope` to the consumer owning `record` when the copy involves the store: a
   * live consumer with ACK, or an offline one (stored for a durable subscription or a
   * guaranteed message, dropped otherwise). Plain live copies do not come here: the router
   * gathers them per key for `emitToSockets`. Returns the outcome of the durable write when
   * one was made (for publisher confirms), else null. `group` lists the record's group
   * members, so an unacknowledged copy can move when this member leaves.
   */
  toSubscription(
    realm: RealmRegistry,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    msg: ProducedMessage,
    group?: readonly SubscriptionRecord[],
  ): Promise<StoreOutcome> | null {
    const socket = liveSocket(realm, record.consumer);
    if (!socket && !record.durable && !msg.guaranteed) return null;
    const stored = this.enqueue(realm.name, record, envelope, msg);
    if (!socket) return stored;
    return stored.then((outcome) => {
      const now = liveSocket(realm, record.consumer);
      if (outcome.ok) {
        // If the consumer left meanwhile, the copy waits in the store for its replay.
        // Over its write-buffer cap, the consumer gets the copy by replay instead.
        if (now && this.gate.writable(now))
          this.acks.deliver(now, outcome.msgId, reliableCopy(realm, record, envelope, group));
      } else if (now) {
        this.emit(realm.name, now, consumeEvent(record.key), envelope);
      }
      return outcome;
    });
  }

  /** Emits one delivery on `eventName` and counts it. */
  emit(
    realm: string,
    socket: BrokerSocket,
    eventName: `CONSUME-${string}`,
    envelope: DeliveryEnvelope,
  ) {
    if (!this.gate.admit(realm, socket)) return;
    emitDelivery(socket, eventName, envelope);
    this.metrics.messageDelivered(realm, envelope.event);
  }

  /** Emits one envelope on several event names to one socket, counted as one delivery. */
  emitMany(
    realm: string,
    socket: BrokerSocket,
    eventNames: readonly `CONSUME-${string}`[],
    envelope: DeliveryEnvelope,
  ): void {
    if (!this.gate.admit(realm, socket)) return;
    for (const name of eventNames) emitDelivery(socket, name, envelope);
    this.metrics.messageDelivered(realm, envelope.event);
  }

  private async enqueue(
    realm: string,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    msg: ProducedMessage,
  ): Promise<StoreOutcome> {
    try {
      const admitted = this.cap.admit(realm);
      if (!(admitted === true || (admitted !== false && (await admitted)))) {
        throw new SwitchboardError(
          'SWB_ERR_QUEUE_FULL',
          `Durable queue cap of realm ${realm} reached`,
        );
      }
      const msgId = await this.store.enqueue(realm, record.key, {
        consumer: record.consumerId,
        payload: envelope,
        producer: msg.from,
        ttl: msg.ttl,
      });
      this.metrics.messageQueued(realm);
      return { ok: true, msgId };
    } catch (err) {
      const error =
        err instanceof SwitchboardError
          ? err.toInfo()
          : { code: 'SWB_ERR_STORAGE' as const, message: (err as Error).message };
      this.logger.error(
        { realm, key: record.key, consumer: record.consumerId, error },
        'durable copy not stored',
      );
      return { ok: false, error };
    }
  }
}
