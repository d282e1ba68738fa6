/**
 * Delivery of one routed copy to one subscription (`spec/protocol-core.md` §7 step 6):
 * a live consumer gets `CONSUME-<key>` (reliably, with `msgId`, when the subscription asks for
 * ACK — Note 7-A); an offline consumer's copy is kept only for a durable subscription or a
 * guaranteed message (§9.1), which needs the storage layer; otherwise it is dropped.
 */
import { consumeEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { ProducedMessage } from '../routing/produced-message';
import type { RealmRegistry } from '../routing/realm-registry';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { BrokerSocket } from '../transport/socket-types';
import type { AckTracker, Reassignment } from './ack-tracker';
import { emitDelivery } from './chunked-emit';

function liveSocket(realm: RealmRegistry, consumer: string): BrokerSocket | null {
  const c = realm.consumers.get(consumer);
  return c?.online && c.socket?.connected ? c.socket : null;
}

/** Another live member of a group, round-robin, to take over an unacknowledged copy. */
function reassign(
  realm: RealmRegistry,
  members: readonly SubscriptionRecord[],
  leaving: string,
): Reassignment | null {
  const live = members.filter((m) => m.consumer !== leaving && liveSocket(realm, m.consumer));
  if (live.length === 0 || live[0]!.group === null) return null;
  const m = live[(realm.nextGroupCount(live[0]!.group) - 1) % live.length]!;
  return {
    socket: liveSocket(realm, m.consumer)!,
    key: m.key,
    consumer: m.consumer,
    consumerId: m.consumerId,
    ackTimeoutMs: m.ackTimeoutMs,
    retry: m.retry,
    currentSocket: () => liveSocket(realm, m.consumer),
  };
}

export class Delivery {
  constructor(
    private readonly metrics: BrokerMetrics,
    private readonly acks: AckTracker,
    private readonly logger: Logger,
  ) {}

  /**
   * Delivers `envelope` to the consumer owning `record`, following §7 step 6. `group` lists
   * the other members of the record's consumer group, for ACK copies to move to when this
   * member leaves before acknowledging.
   */
  toSubscription(
    realm: RealmRegistry,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    msg: ProducedMessage,
    group?: readonly SubscriptionRecord[],
  ): void {
    const consumer = realm.consumers.get(record.consumer);
    const socket = consumer?.online ? consumer.socket : null;
    if (socket?.connected) {
      if (record.ackRequired) {
        this.acks.deliver(socket, {
          realm: realm.name,
          key: record.key,
          consumer: record.consumer,
          consumerId: record.consumerId,
          producer: msg.from,
          envelope,
          ackTimeoutMs: record.ackTimeoutMs,
          retry: record.retry,
          currentSocket: () => liveSocket(realm, record.consumer),
          reassign: group ? () => reassign(realm, group, record.consumer) : undefined,
        });
        return;
      }
      this.emit(realm.name, socket, consumeEvent(record.key), envelope);
      return;
    }
    if (record.durable || msg.guaranteed) {
      // Offline durable copies need a store; until the storage layer exists they are dropped.
      this.logger.debug(
        { realm: realm.name, key: record.key, consumer: record.consumer },
        'offline durable copy dropped: no message store configured',
      );
    }
  }

  /** Emits one delivery on `eventName` and counts it. */
  emit(
    realm: string,
    socket: BrokerSocket,
    eventName: `CONSUME-${string}`,
    envelope: DeliveryEnvelope,
  ): void {
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
    for (const name of eventNames) emitDelivery(socket, name, envelope);
    this.metrics.messageDelivered(realm, envelope.event);
  }
}
