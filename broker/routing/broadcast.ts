/**
 * Broadcast: to every live member of the realm, or to every live member of a group.
 *
 * Source: `spec/protocol-core.md` §13. A broadcast is never stored, carries no `msgId`, and
 * ignores TTL, the guaranteed flag and the topic index. Realm broadcasts go out on five event
 * names per recipient socket, in the order of §13.1; per its recommendation they are chunked
 * when large, like every other delivery. A group broadcast without a group falls back to a
 * realm broadcast (§13.2).
 */
import {
  allEventsKey,
  anyProducerKey,
  broadcastVolatileEvent,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../shared/protocol-events';
import type { Delivery } from '../delivery/delivery';
import type { BrokerSocket } from '../transport/socket-types';
import type { ProducedMessage } from './produced-message';
import type { RealmDirectory } from './realm-directory';

/** Delivers a broadcast; returns the number of recipients. */
export function deliverBroadcast(
  realms: RealmDirectory,
  delivery: Delivery,
  msg: ProducedMessage,
  envelope: DeliveryEnvelope,
): number {
  const realm = realms.get(msg.realm);
  if (!realm) return 0;

  if (msg.broadcast === 'group' && msg.group !== null) {
    // First subscription (in registration order) of each live member of the group.
    const firstKey = new Map<string, string>();
    for (const [key, byConsumer] of realm.subscriptions) {
      for (const record of byConsumer.values()) {
        if (record.group === msg.group && !firstKey.has(record.consumer)) {
          firstKey.set(record.consumer, key);
        }
      }
    }
    let recipients = 0;
    for (const [name, key] of firstKey) {
      const socket = realm.consumers.get(name)?.socket;
      if (!socket?.connected) continue;
      delivery.emit(msg.realm, socket, consumeEvent(key), envelope);
      recipients++;
    }
    return recipients;
  }

  const sockets = new Map<string, BrokerSocket>();
  for (const entry of realm.producers.values()) {
    if (entry.online && entry.socket?.connected) sockets.set(entry.socket.id, entry.socket);
  }
  for (const entry of realm.consumers.values()) {
    if (entry.online && entry.socket?.connected) sockets.set(entry.socket.id, entry.socket);
  }
  const p = msg.from;
  const volatileEvent = broadcastVolatileEvent(p);
  const events = [
    consumeEvent(msg.event),
    consumeEvent(subscriptionKey(p, msg.event)),
    consumeEvent(anyProducerKey(msg.event)),
    consumeEvent(allEventsKey(p)),
  ] as const;
  for (const socket of sockets.values()) {
    // The embedding `authorizeForward` decides once per recipient, for both emissions.
    const copy =
      delivery.forward === null ? envelope : delivery.forward(msg.realm, socket, envelope);
    if (copy === null) continue;
    // The volatile extra exists for fidelity only (§13.1 item 1): no client listens on it.
    socket.volatile.emit(volatileEvent, copy);
    delivery.emitMany(msg.realm, socket, events, copy, true);
  }
  return sockets.size;
}
