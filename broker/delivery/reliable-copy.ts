/**
 * The reliable-delivery view of a subscription for the ACK tracker (`spec/protocol-core.md`
 * §10): which socket holds a consumer now, and, for a consumer group (§12), which other live
 * member takes over an unacknowledged copy (round-robin, the group's counter).
 */
import type { DeliveryEnvelope } from '../../shared/protocol-events';
import type { RealmRegistry } from '../routing/realm-registry';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { BrokerSocket } from '../transport/socket-types';
import type { ReliableCopy, Reassignment } from './ack-tracker';

/** The live socket of `consumer` in `realm`, or null when it is offline. */
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

/**
 * The reliable-delivery view of a subscription, for the ACK tracker. `envelopeJson`: the
 * envelope's JSON text when it fits `emitEncodedDelivery` (see `encodableBase`).
 */
export function reliableCopy(
  realm: RealmRegistry,
  record: SubscriptionRecord,
  envelope: DeliveryEnvelope,
  group?: readonly SubscriptionRecord[],
  envelopeJson?: string,
): ReliableCopy {
  // The fields of `memberOf`, written out: one object per copy, no spread (a hot path).
  return {
    key: record.key,
    consumer: record.consumer,
    consumerId: record.consumerId,
    ackTimeoutMs: record.ackTimeoutMs,
    retry: record.retry,
    currentSocket: () => liveSocket(realm, record.consumer),
    realm: realm.name,
    stored: { key: record.key, consumer: record.consumerId },
    envelope,
    envelopeJson,
    reassign:
      group || record.group !== null ? () => reassign(realm, record, group ?? []) : undefined,
  };
}

/**
 * Another live member of `record`'s group, round-robin, to take over an unacknowledged copy:
 * the members the copy was routed among, and those subscribed on the same key since (a
 * member that joined after the copy was sent takes it too: issue 27 trial, "release now").
 */
function reassign(
  realm: RealmRegistry,
  record: SubscriptionRecord,
  routedAmong: readonly SubscriptionRecord[],
): Reassignment | null {
  const group = record.group ?? routedAmong[0]?.group ?? null;
  if (group === null) return null;
  const members = new Map<string, SubscriptionRecord>();
  for (const m of routedAmong) members.set(m.consumer, m);
  for (const m of realm.subscriptions.get(record.key)?.values() ?? []) {
    if (m.group === group && !members.has(m.consumer)) members.set(m.consumer, m);
  }
  const live = [...members.values()].filter(
    (m) => m.consumer !== record.consumer && liveSocket(realm, m.consumer),
  );
  if (live.length === 0) return null;
  const m = live[(realm.nextGroupCount(group) - 1) % live.length]!;
  return { ...memberOf(realm, m), socket: liveSocket(realm, m.consumer)! };
}
