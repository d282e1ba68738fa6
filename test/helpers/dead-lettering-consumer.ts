/**
 * A stock JS consumer that never ACKs (the DLQ tests' set-up, which stood in several files): it
 * registers as `consumer` and subscribes durably with manual ACK, one attempt and `ackTimeout`,
 * so each copy it is sent lands in the DLQ once the timeout passes (`spec/protocol-core.md`
 * §10.5). The caller waits for the subscription or the dead letters itself.
 */
import type { Socket } from 'socket.io-client';
import { ClientEvent } from '../../shared/protocol-events';
import { consumerPayload, jsSubscribePayload } from './stock-clients';

/** Emits `CONSUMER` and the `SUBSCRIBE` on `socket`; `ackTimeout` default `200ms`. */
export function subscribeWithoutAck(
  socket: Socket,
  consumer: string,
  producer: string,
  event: string,
  ackTimeout = '200ms',
): void {
  socket.emit(ClientEvent.CONSUMER, consumerPayload(consumer));
  socket.emit(
    ClientEvent.SUBSCRIBE,
    jsSubscribePayload(consumer, producer, event, {
      durable: true,
      manualAck: true,
      ackTimeout,
      retry: { max_attempts: 1 },
    }),
  );
}
