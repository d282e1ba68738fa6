/**
 * `PRODUCER`: registers a producer name on this socket and tells its subscribers.
 *
 * Source: `spec/protocol-core.md` §3.2 and §5.3, with Note 5.3-A (every subscription key is
 * announced, not only the first per producer) and Note 5.3-B (the "newly joined" error goes
 * to the previous producer's socket, if still connected). Duplicate names are not refused.
 */
import { ProtocolErrorText, ServerEvent } from '../../shared/protocol-events';
import type { ProducerPayload } from '../../shared/protocol-payloads';
import { parseTtlSeconds } from '../../shared/duration';
import type { EventHandler } from './handler-context';
import { refuseAnonymous } from './consumer-handler';
import { notifyConsumerOfProducer, notifySubscribeTo } from './notify';

export const handleProducer: EventHandler<ProducerPayload> = (ctx, socket, payload) => {
  if (refuseAnonymous(ctx, socket, payload.name, 'producer')) return;
  const realm = ctx.realms.get(socket.data.realm, true);
  const name = payload.name;
  const id = payload.id ?? socket.id;
  const previous = realm.producer(name);
  let resendAll = false;
  if (previous?.id != null && previous.id !== id) {
    resendAll = true;
    const old = previous.socket;
    if (old && old.id !== socket.id && old.connected) {
      old.emit(ServerEvent.ERROR, ProtocolErrorText.PRODUCER_NEWLY_JOINED);
    }
  }
  const producer = realm.bindProducer(name, socket, id);
  if (payload.default_ttl !== undefined && payload.default_ttl !== null) {
    producer.defaultTtl = parseTtlSeconds(payload.default_ttl);
  }
  socket.data.producers.add(name);
  socket.data.registeredNames.add(name);

  // Group this producer's subscriptions by consumer, in registration order.
  const byConsumer = new Map<string, string[]>();
  for (const [key, records] of realm.subscriptions) {
    for (const record of records.values()) {
      if (record.producer !== name) continue;
      const keys = byConsumer.get(record.consumer) ?? [];
      if (resendAll || !record.announced) keys.push(key);
      record.announced = true;
      byConsumer.set(record.consumer, keys);
    }
  }
  for (const [consumerName, keys] of byConsumer) {
    const consumer = realm.consumers.get(consumerName);
    if (!consumer) continue;
    realm.linkSubscriber(producer, consumerName);
    if (keys.length > 0) notifySubscribeTo(producer, consumer, keys);
    notifyConsumerOfProducer(consumer, producer);
  }
};
