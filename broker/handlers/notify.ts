/**
 * Producer/consumer notifications (`spec/protocol-core.md` §4, §5.2–§5.4, §15). Each payload is
 * built fresh with exactly the listed fields (Note 15-B).
 */
import { connectEvent, disconnectEvent, subscribeToEvent } from '../../shared/protocol-events';
import type { ConsumerEntry, ProducerEntry } from '../routing/registry-types';

const live = (e: { online: boolean; socket: { connected: boolean } | null }) =>
  e.online && e.socket?.connected === true;

/** `SUBSCRIBE-TO-<producerId>` to the producer, naming the consumer's keys. */
export function notifySubscribeTo(
  producer: ProducerEntry,
  consumer: ConsumerEntry,
  events: string[],
): void {
  if (!live(producer) || producer.id === null) return;
  producer.socket!.emit(subscribeToEvent(producer.id), {
    name: consumer.name,
    id: consumer.id,
    socket: consumer.socket?.id ?? null,
    events,
    online: consumer.online,
  });
}

/** `CONNECT-<producerId>` to the producer: a subscribed consumer came online. */
export function notifyProducerOfConsumer(producer: ProducerEntry, consumer: ConsumerEntry): void {
  if (!live(producer) || producer.id === null || !consumer.socket) return;
  producer.socket!.emit(connectEvent(producer.id), {
    event: 'CONNECT',
    socket: consumer.socket.id,
    id: consumer.id,
    consumer: consumer.name,
  });
}

/** `CONNECT-<consumerId>` to the consumer: a producer it follows came online. */
export function notifyConsumerOfProducer(consumer: ConsumerEntry, producer: ProducerEntry): void {
  if (!live(consumer) || !producer.socket) return;
  consumer.socket!.emit(connectEvent(consumer.id), {
    event: 'CONNECT',
    socket: producer.socket.id,
    producer: producer.name,
  });
}

/** `DISCONNECT-<producerId>` to the producer: a subscribed consumer went offline. */
export function notifyProducerOfLeave(producer: ProducerEntry, socketId: string, consumer: string) {
  if (!live(producer) || producer.id === null) return;
  producer.socket!.emit(disconnectEvent(producer.id), {
    event: 'DISCONNECT',
    socket: socketId,
    consumer,
  });
}

/** `DISCONNECT-<consumerId>` to the consumer: a producer it follows went offline. */
export function notifyConsumerOfLeave(consumer: ConsumerEntry, socketId: string, producer: string) {
  if (!live(consumer)) return;
  consumer.socket!.emit(disconnectEvent(consumer.id), {
    event: 'DISCONNECT',
    socket: socketId,
    producer,
  });
}
