/**
 * `SUBSCRIBE` and `UNSUBSCRIBE`.
 *
 * Source: `spec/protocol-core.md` §3.3, §5.4 (notifications), §6.4 (order of effects) and
 * Note 3.4 (UNSUBSCRIBE really removes: a key string or `{event, producer?, consumer?}`, for
 * the consumer names registered on this socket; no reply).
 */
import {
  ClientEvent,
  Protocol,
  ProtocolErrorCode,
  ServerEvent,
  allEventsKey,
  subscriptionKey,
} from '../../shared/protocol-events';
import type { SubscribePayload, UnsubscribePayload } from '../../shared/protocol-payloads';
import { BrokerEvent } from '../policy/embedding-types';
import { authorizeSubscription } from './socket-policy';
import { buildSubscription, subscriptionProblem } from '../routing/subscription-options';
import { guardAsync } from './async-guard';
import { bindConsumer } from './consumer-handler';
import type { EventHandler } from './handler-context';
import { notifySubscribeTo } from './notify';
import { consumerIdRefusal } from '../extensions/identity-ownership';
import { RejectReason } from '../limits/limit-metrics';

export const handleSubscribe: EventHandler<SubscribePayload & { event: string }> = (
  ctx,
  socket,
  payload,
) => {
  // The embedding `authorizeSubscribe` hook decides first, asynchronously (socket-policy.ts).
  const embed = ctx.embed;
  if (embed?.hooks.authorizeSubscribe) {
    authorizeSubscription(ctx, embed, socket, payload, (p) => subscribe(ctx, socket, p, undefined));
    return;
  }
  subscribe(ctx, socket, payload, undefined);
};

const subscribe: EventHandler<SubscribePayload & { event: string }> = (ctx, socket, payload) => {
  const realm = ctx.realms.get(socket.data.realm, true);
  const consumerName = payload.consumer ?? Protocol.ANONYMOUS;

  // §6.4 step 3: register the consumer if no live socket holds the name.
  let consumer = realm.consumers.get(consumerName);
  const bind = !consumer?.socket?.connected;
  const registeredId = bind ? payload.id || consumer?.registeredId : consumer!.registeredId;

  // The record is checked before any effect: what is accepted here is restored after a restart.
  const record = buildSubscription(payload, payload.event, registeredId, ctx.settings.ack_timeout);
  const problem = subscriptionProblem(record);
  if (problem) {
    ctx.logger.info({ consumer: consumerName, key: record.key, problem }, 'SUBSCRIBE refused');
    socket.emit(ServerEvent.ERROR, { message: problem, code: ProtocolErrorCode.BAD_FIELD });
    return;
  }
  // Note 1.5-A applied to the durable queue identity (issue 28): no client drains a queue
  // whose identity another live connection or another principal holds.
  const spoofed = consumerIdRefusal(ctx, socket, record.consumerId);
  if (spoofed) {
    ctx.logger.warn(
      { socket: socket.id, realm: realm.name, key: record.key },
      'SUBSCRIBE refused: consumer_id not owned',
    );
    ctx.limits.rejectedInput(RejectReason.UNAUTHORIZED);
    socket.emit(ServerEvent.ERROR, {
      message: spoofed,
      code: ProtocolErrorCode.IDENTITY_NOT_OWNED,
    });
    return;
  }
  if (bind) {
    const id = payload.id ?? consumer?.id ?? socket.id;
    consumer = bindConsumer(ctx, socket, consumerName, id, registeredId);
  }
  consumer = consumer!;

  // Steps 4–6: upsert the record (the topic index follows it) and remember the producer.
  const previous = realm.upsertSubscription(record);
  ctx.persistence.upserted(realm.name, record, previous)?.catch((err: unknown) => {
    // The subscription works on this connection, but a restart would forget it (and with it
    // the copies stored for the consumer while offline): the subscriber is told.
    if (!socket.connected) return;
    const reason = err instanceof Error ? err.message : String(err);
    socket.emit(ServerEvent.ERROR, {
      message: `Durable subscription not stored (it will not survive a broker restart): ${reason}`,
      code: ProtocolErrorCode.NOT_STORED,
    });
  });
  consumer.subscribeTos.add(record.producer);
  ctx.embed?.emit(
    BrokerEvent.SUBSCRIBE,
    [{ topic: payload.event, qos: record.durable || record.ackRequired ? 1 : 0 }],
    ctx.embed.socketClient(socket),
  );

  // Step 7: notify online producers (§5.4); a specific unknown producer gets a placeholder.
  if (record.producer === Protocol.ALL_PUBLISHERS) {
    for (const producer of realm.producers.values()) {
      if (!producer.online || producer.name === consumerName) continue;
      realm.linkSubscriber(producer, consumerName);
      notifySubscribeTo(producer, consumer, [record.key]);
    }
  } else {
    const producer = realm.producer(record.producer, true)!;
    if (producer.online) {
      realm.linkSubscriber(producer, consumerName);
      notifySubscribeTo(producer, consumer, [record.key]);
      record.announced = true;
    }
  }
  // Step 8: replay stored copies — even for a non-durable subscription, so that queued
  // guaranteed messages get through (§6.4).
  guardAsync(ctx, socket, ClientEvent.SUBSCRIBE, ctx.replayer.replay(realm, record));
};

export const handleUnsubscribe: EventHandler<UnsubscribePayload> = (ctx, socket, payload) => {
  const realm = ctx.realms.get(socket.data.realm);
  if (!realm) return;
  let key: string;
  let only: string | null = null;
  if (typeof payload === 'string') {
    key = payload;
  } else {
    const producer = payload.producer ?? Protocol.ANONYMOUS;
    key =
      payload.event.toUpperCase() === Protocol.EVENT_ALL
        ? allEventsKey(producer)
        : subscriptionKey(producer, payload.event);
    only = payload.consumer ?? null;
  }
  let any = false;
  for (const name of socket.data.consumers) {
    if (only !== null && name !== only) continue;
    if (realm.consumers.get(name)?.socket !== socket) continue;
    const removed = realm.removeSubscription(key, name);
    if (removed) {
      any = true;
      ctx.persistence.removed(realm.name, removed);
      ctx.logger.debug({ consumer: name, key }, 'unsubscribed');
    }
  }
  const embed = ctx.embed;
  if (any && embed) {
    const topic = typeof payload === 'string' ? payload : payload.event;
    embed.emit(BrokerEvent.UNSUBSCRIBE, [topic], embed.socketClient(socket));
  }
};
