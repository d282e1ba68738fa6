/**
 * DUP=1 on a PUBLISH sent again after a reconnect (issue 24).
 *
 * [MQTT-4.4.0-1] (MQTT 3.1.1 §4.4; MQTT 5.0 §4.4 likewise): when a client reconnects to a
 * session that is not clean, the server MUST re-send the unacknowledged PUBLISH packets (QoS 1
 * without PUBACK, QoS 2 without PUBREC) with their original Packet Identifiers, and
 * [MQTT-3.3.1-1] says such a re-delivery MUST carry DUP=1. aedes 2.0.0-beta.1 re-sends them from
 * the session's outgoing queue with DUP=0.
 *
 * A queued packet was sent before exactly when it has a message id: aedes assigns one
 * (`outgoingUpdate`) right before it writes a queued copy, while a copy queued for an offline
 * client has none until its first drain. So the queue a reconnect drains is handed to aedes with
 * DUP set on those (a copy: the stored packet is unchanged). PUBRELs (QoS 2 after PUBREC) have
 * no DUP flag and pass as they are. After a broker restart the same rule applies to the copies
 * restored from the store (stored-persistence.ts): one restored with a message id counts as sent.
 */

interface Queued {
  cmd?: string;
  qos?: number;
  messageId?: number;
  dup?: boolean;
}

/** `packet` as it is sent on a drain: a copy with DUP=1 when it was sent before, else itself. */
export function asRedelivery<P extends Queued>(packet: P): P {
  if (packet.cmd !== 'publish' || !packet.qos || packet.messageId === undefined) return packet;
  return { ...packet, dup: true };
}
