/**
 * `ACK {msgId | msg_id | id}` (`spec/protocol-core.md` §3.6): the reply is emitted as
 * `ACK_OK` / `ACK_FAIL` and also passed to the callback when one was supplied.
 */
import { ServerEvent, type AckReply } from '../../shared/protocol-events';
import type { AckPayload } from '../../shared/protocol-payloads';
import type { BrokerSocket } from '../transport/socket-types';
import type { EventHandler } from './handler-context';

/** Emits an ACK reply and passes it to the callback (both, as the reference does). */
export function replyAck(
  socket: BrokerSocket,
  reply: AckReply,
  ack: ((reply: unknown) => void) | undefined,
): void {
  socket.emit(reply.ok ? ServerEvent.ACK_OK : ServerEvent.ACK_FAIL, reply);
  ack?.(reply);
}

export const handleAck: EventHandler<AckPayload> = (ctx, socket, payload, ack) => {
  const msgId = payload.msgId ?? payload.msg_id ?? payload.id;
  if (!msgId) {
    replyAck(socket, { ok: false, code: 400, message: 'ACK requires msgId' }, ack);
    return;
  }
  const realm = ctx.realms.get(socket.data.realm);
  const ids = new Set<string>();
  for (const name of socket.data.consumers) {
    ids.add(name);
    const id = realm?.consumers.get(name)?.id;
    if (id) ids.add(id);
  }
  replyAck(socket, ctx.acks.ack(socket, msgId, ids), ack);
};
