/**
 * `CONSUMER`: registers a consumer name on this socket.
 *
 * Source: `spec/protocol-core.md` §3.1 and §5.2, with Note 5.2-A (a half-open old socket
 * — silent for longer than the ping interval plus a margin — is replaced, not a duplicate).
 * Durable replay is not triggered here but by each `SUBSCRIBE` (§9.4).
 */
import type { ConsumerPayload } from '../../shared/protocol-payloads';
import { Protocol, ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import type { BrokerSocket } from '../transport/socket-types';
import type { EventHandler, HandlerContext } from './handler-context';
import { notifyProducerOfConsumer } from './notify';
import { anonymousRefused } from '../auth/realm-policy';

/**
 * The anonymous policy (§3.1, §3.2): an `ANONYMOUS`/`ANONYMOUS-…` name in a realm that does not
 * allow it gets `ERROR -4` and the socket is disconnected. Returns whether it was refused.
 */
export function refuseAnonymous(
  ctx: HandlerContext,
  socket: BrokerSocket,
  name: string,
  kind: 'consumer' | 'producer',
): boolean {
  const realm = socket.data.realm;
  if (!anonymousRefused(ctx.auth, realm, name)) return false;
  ctx.logger.info({ socket: socket.id, realm, kind }, 'anonymous name refused');
  socket.emit(ServerEvent.ERROR, {
    message: `Anonymous ${kind}s are not allowed in realm '${realm}'`,
    code: ProtocolErrorCode.ANONYMOUS_REFUSED,
  });
  socket.disconnect(true);
  return true;
}

/**
 * Whether `name` may be bound to `socket` now. Refuses (with `ERROR -3` and a disconnect of
 * the newcomer) only when another *live* socket holds it; a half-open holder is dropped.
 */
export function claimConsumerName(ctx: HandlerContext, socket: BrokerSocket, name: string) {
  const realm = ctx.realms.get(socket.data.realm, true);
  const holder = realm.consumers.get(name)?.socket;
  if (!holder || holder.id === socket.id || !holder.connected) return true;
  const silentMs = Date.now() - holder.data.lastSeenAt;
  if (silentMs > ctx.pingIntervalMs + ctx.halfOpenMarginMs) {
    ctx.logger.info({ consumer: name, old: holder.id, silentMs }, 'half-open consumer replaced');
    holder.disconnect(true);
    return true;
  }
  ctx.logger.info({ consumer: name, socket: socket.id }, 'duplicate consumer refused');
  socket.emit(ServerEvent.ERROR, {
    message: `Duplicate consumer name: '${name}' is already registered. Choose a unique consumer name or disconnect the existing consumer first.`,
    code: ProtocolErrorCode.DUPLICATE_CONSUMER,
  });
  socket.disconnect(true);
  return false;
}

/**
 * Binds `name` to `socket` and sends the reconnect notifications (§5.2 steps 3–4). `id`: the
 * notification id; `registeredId`: the id the client gave, if any (durable identity).
 */
export function bindConsumer(
  ctx: HandlerContext,
  socket: BrokerSocket,
  name: string,
  id: string,
  registeredId: string | undefined,
) {
  const realm = ctx.realms.get(socket.data.realm, true);
  const consumer = realm.bindConsumer(name, socket, id);
  consumer.registeredId = registeredId;
  socket.data.consumers.add(name);
  for (const producerName of consumer.subscribeTos) {
    if (producerName === Protocol.ALL_PUBLISHERS) continue;
    const producer = realm.producer(producerName);
    if (producer) notifyProducerOfConsumer(producer, consumer);
  }
  // A cluster node holding its durable records now owns it (consumer-ownership.ts).
  ctx.persistence.bound(realm, name);
  return consumer;
}

export const handleConsumer: EventHandler<ConsumerPayload> = (ctx, socket, payload) => {
  if (refuseAnonymous(ctx, socket, payload.name, 'consumer')) return;
  if (!claimConsumerName(ctx, socket, payload.name)) return;
  // §1.5: registered after the anonymous and duplicate checks passed.
  socket.data.registeredNames.add(payload.name);
  bindConsumer(ctx, socket, payload.name, payload.id ?? socket.id, payload.id || undefined);
};
