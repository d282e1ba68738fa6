/**
 * The per-recipient forward filter of socket.io copies, shared by live delivery (delivery.ts)
 * and redelivery (ack-tracker.ts); its own module so neither imports the other for it.
 */
import type { DeliveryEnvelope } from '../../shared/protocol-events';
import type { BrokerSocket } from '../transport/socket-types';

/**
 * The embedding API's `authorizeForward` for one socket.io recipient: the envelope to send
 * (the same object, or a rewritten copy), or null to drop the copy for this recipient.
 */
export type SocketForward = (
  realm: string,
  socket: BrokerSocket,
  envelope: DeliveryEnvelope,
) => DeliveryEnvelope | null;
