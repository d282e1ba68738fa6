/**
 * `PRODUCE`: normalises the message and routes it.
 *
 * Source: `spec/protocol-core.md` §3.5 (fields, guaranteed aliases, the silent producer
 * binding side effect), §9.3 (effective TTL) and §13 (broadcast switch). A socket.io
 * acknowledgement callback, when given, is a publisher confirm (ARCHITECTURE §4): it is
 * answered `{ok: true, msgIds}` only after every durable copy is committed, or
 * `{ok: false, code, message}` when one could not be stored. Without a callback, a copy that
 * could not be stored is reported as `ERROR {code: -8}` (Switchboard extension).
 */
import { parseTtlSeconds } from '../../shared/duration';
import {
  ClientEvent,
  Protocol,
  ProtocolErrorCode,
  ServerEvent,
} from '../../shared/protocol-events';
import type { ProducePayload } from '../../shared/protocol-payloads';
import { authorizeProduce } from './socket-policy';
import type { ProducedMessage } from '../routing/produced-message';
import { PRODUCER_RECENT_EVENTS, type ProducerEntry } from '../routing/registry-types';
import type { BrokerSocket } from '../transport/socket-types';
import { guardAsync } from './async-guard';
import type { EventHandler, HandlerContext } from './handler-context';
import { cleartextRefused } from '../auth/e2ee-policy';
import { e2eeRequiredText } from '../../shared/protocol-extensions';
import { RejectReason } from '../limits/limit-metrics';
import { clientDeliveryId } from '../routing/delivery-id';

const GUARANTEED_VALUE = 'guaranteed';

function isGuaranteed(p: ProducePayload): boolean {
  return Boolean(
    p.guaranteed ||
    p.guaranteed_delivery ||
    p.guaranteedDelivery ||
    p.durable ||
    p.delivery === GUARANTEED_VALUE ||
    p.delivery_mode === GUARANTEED_VALUE,
  );
}

/** `ERROR {code: -8}`: a durable copy of a PRODUCE without confirm callback was not stored. */
function notStored(socket: BrokerSocket, reason: string): void {
  if (!socket.connected) return;
  socket.emit(ServerEvent.ERROR, {
    message: `Durable copy not stored: ${reason}`,
    code: ProtocolErrorCode.NOT_STORED,
  });
}

export const handleProduce: EventHandler<ProducePayload & { event: string }> = (
  ctx,
  socket,
  payload,
  ack,
) => {
  // §2.6: a `required` realm refuses cleartext before anything else (not delivered, stored,
  // relayed or shown to the embedding); the policy is read live on every event (§1.6).
  if (cleartextRefused(ctx.auth, socket.data.realm, payload)) {
    refuseCleartext(ctx, socket, ack);
    return;
  }
  // The embedding `authorizePublish` hook decides first, asynchronously (socket-policy.ts).
  const embed = ctx.embed;
  if (embed?.hooks.authorizePublish) {
    const durable = isGuaranteed(payload);
    authorizeProduce(ctx, embed, socket, payload, ack, durable, (p) =>
      produce(ctx, socket, p, ack),
    );
    return;
  }
  produce(ctx, socket, payload, ack);
};

/** `ERROR {message, code:-6}` to the producer, and the same failure to a confirm callback. */
function refuseCleartext(
  ctx: HandlerContext,
  socket: BrokerSocket,
  ack: ((reply: unknown) => void) | undefined,
): void {
  const realm = socket.data.realm;
  const message = e2eeRequiredText(realm);
  ctx.logger.info({ socket: socket.id, realm }, 'cleartext PRODUCE refused (e2ee required)');
  ctx.limits.rejectedInput(RejectReason.UNAUTHORIZED);
  socket.emit(ServerEvent.ERROR, { message, code: ProtocolErrorCode.E2EE_REQUIRED });
  ack?.({ ok: false, code: ProtocolErrorCode.E2EE_REQUIRED, message });
}

/** Keeps `event` among the producer's recent events (bounded; one Set lookup when known). */
function rememberEvent(producer: ProducerEntry, event: string): void {
  const events = (producer.recentEvents ??= new Set());
  if (events.has(event)) return;
  if (events.size >= PRODUCER_RECENT_EVENTS) events.delete(events.values().next().value as string);
  events.add(event);
}

const produce: EventHandler<ProducePayload & { event: string }> = (ctx, socket, payload, ack) => {
  const realmName = socket.data.realm;
  const realm = ctx.realms.get(realmName, true);
  const from = payload.from ?? Protocol.ANONYMOUS;

  // Silent binding of `from` when no live socket holds it (§3.5 side effect).
  let producer = realm.producer(from);
  if (!producer?.socket?.connected) {
    const id = typeof payload.id === 'string' ? payload.id : (producer?.id ?? socket.id);
    producer = realm.bindProducer(from, socket, id);
    socket.data.producers.add(from);
  }

  rememberEvent(producer, payload.event);

  let ttl = parseTtlSeconds(payload.ttl);
  if (payload.ttl === undefined || payload.ttl === null) {
    ttl =
      payload.lifespan !== undefined && payload.lifespan !== null && payload.lifespan !== -1
        ? parseTtlSeconds(payload.lifespan)
        : producer.defaultTtl;
  }

  const broadcast =
    payload.method === 'broadcast'
      ? payload.broadcast === 'group' && payload.group
        ? 'group'
        : 'realm'
      : null;
  const msg: ProducedMessage = {
    realm: realmName,
    event: payload.event,
    message: payload.message,
    from,
    ttl,
    guaranteed: isGuaranteed(payload),
    broadcast,
    group: payload.group ?? null,
    enc: payload.enc,
    to: payload.to,
    contentType: payload.contentType,
    origin: 'socket.io',
    // The SSE delivery id (extensions §5.6): a well-formed client `id`; the fan-out makes one.
    deliveryId: clientDeliveryId(payload.id),
    receivedAt: performance.now(),
  };
  ctx.metrics.messageProduced(realmName, msg.event);
  const stored = ctx.router.route(msg);
  const embed = ctx.embed;
  if (embed?.observesPublish) embed.routed(msg, embed.socketClient(socket));
  if (stored.length === 0 && !ack) return;
  if (stored.length === 1) {
    // The common case (one durable copy), without `Promise.all`.
    const told = stored[0]!.then((o) => {
      if (o.ok) ack?.({ ok: true, msgIds: [o.msgId] });
      else if (ack) ack({ ok: false, code: o.error.code, message: o.error.message });
      else notStored(socket, o.error.message);
    });
    guardAsync(ctx, socket, ClientEvent.PRODUCE, told, ack);
    return;
  }
  // Outcomes never reject (StoreOutcome), but a continuation may throw: the guard answers it.
  const confirmed = Promise.all(stored).then((outcomes) => {
    const msgIds: string[] = [];
    for (const o of outcomes) {
      if (!o.ok) {
        // Publisher confirm (ARCHITECTURE §4), or an ERROR when no confirm was asked for.
        if (ack) ack({ ok: false, code: o.error.code, message: o.error.message });
        else notStored(socket, o.error.message);
        return;
      }
      msgIds.push(o.msgId);
    }
    ack?.({ ok: true, msgIds });
  });
  guardAsync(ctx, socket, ClientEvent.PRODUCE, confirmed, ack);
};
