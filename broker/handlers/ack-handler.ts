/**
 * `ACK {msgId | msg_id | id}` (`spec/protocol-core.md` §3.6, §10.4, Note 10.4-A). The reply is
 * emitted as `ACK_OK` / `ACK_FAIL` and also passed to the callback when one was supplied.
 *
 * Order of checks: the copy awaits this socket's ACK → delete it; else the copy is still
 * stored for one of this socket's consumers (e.g. ACK after a reconnect) → delete it;
 * else another socket/consumer owns it → 403; else 404 (also for another realm's copy, so
 * realms never see each other's ids, `spec/protocol-admin.md` §3.2). A store failure → 500,
 * and the copy is re-armed (retried after its backoff, then dead-lettered): stock clients
 * ignore `ACK_FAIL`, so a copy whose delete failed must not wait for an ACK that never comes.
 */
import { ClientEvent, ServerEvent, type AckReply } from '../../shared/protocol-events';
import type { AckPayload } from '../../shared/protocol-payloads';
import { BrokerEvent } from '../policy/embedding-types';
import { emitJson } from '../delivery/chunked-emit';
import type { BrokerSocket } from '../transport/socket-types';
import { guardAsync } from './async-guard';
import type { EventHandler, HandlerContext } from './handler-context';

/** Emits an ACK reply and passes it to the callback (both, as the reference does). */
export function replyAck(
  socket: BrokerSocket,
  reply: AckReply,
  ack: ((reply: unknown) => void) | undefined,
): void {
  socket.emit(reply.ok ? ServerEvent.ACK_OK : ServerEvent.ACK_FAIL, reply);
  ack?.(reply);
}

/** Consumer names and queue ids (`consumer_id`s) registered on this socket. */
function consumerIds(ctx: HandlerContext, socket: BrokerSocket): Set<string> {
  const realm = ctx.realms.get(socket.data.realm);
  const ids = new Set<string>();
  for (const name of socket.data.consumers) {
    ids.add(name);
    const id = realm?.consumers.get(name)?.id;
    if (id) ids.add(id);
    for (const record of realm?.subscriptionsOf(name) ?? []) ids.add(record.consumerId);
  }
  return ids;
}

/**
 * The common case, an ACK for a copy that awaits this socket's ACK: `ACK_OK` once the delete
 * is committed, with no more promises than the store's (one ACK per message at full rate).
 */
function settleAwaited(
  ctx: HandlerContext,
  socket: BrokerSocket,
  msgId: string,
  ack: ((reply: unknown) => void) | undefined,
): Promise<void> {
  const { realm, stored } = ctx.acks.copyOf(msgId)!;
  ctx.acks.acknowledged(msgId);
  return ctx.ledger.ack(msgId, realm, stored.key, stored.consumer).then(
    () => {
      ctx.acks.release(msgId);
      ctx.ledger.acked(realm, stored.key, stored.consumer);
      ackEvent(ctx, socket, realm, msgId);
      if (ack) replyAck(socket, { ok: true, msgId }, ack);
      // `{ok: true, msgId}` as `socket.emit` would encode it.
      else emitJson(socket, ServerEvent.ACK_OK, `{"ok":true,"msgId":${JSON.stringify(msgId)}}`);
    },
    (err: unknown) => {
      ctx.acks.ackFailed(msgId);
      replyAck(socket, { ok: false, code: 500, message: (err as Error).message }, ack);
    },
  );
}

async function settle(ctx: HandlerContext, socket: BrokerSocket, msgId: string): Promise<AckReply> {
  const owner = ctx.acks.owner(msgId);
  let queue: { realm: string; key: string; consumer: string };
  const tracked = ctx.acks.copyOf(msgId);
  if (owner === socket.id && tracked) {
    queue = { realm: tracked.realm, ...tracked.stored };
  } else {
    const entry = await ctx.store.get(msgId);
    // Another realm's copy does not exist for this socket (same names may repeat across realms).
    if (entry && entry.realm !== socket.data.realm) {
      return { ok: false, code: 404, message: 'Pending ACK not found' };
    }
    if (!entry) {
      return owner
        ? { ok: false, code: 403, message: 'ACK does not belong to this socket' }
        : { ok: false, code: 404, message: 'Pending ACK not found' };
    }
    if (!consumerIds(ctx, socket).has(entry.consumer)) {
      return { ok: false, code: 403, message: 'ACK does not belong to this socket' };
    }
    queue = { realm: entry.realm, key: entry.event, consumer: entry.consumer };
  }
  ctx.acks.acknowledged(msgId);
  try {
    await ctx.ledger.ack(msgId, queue.realm, queue.key, queue.consumer);
  } catch (err) {
    ctx.acks.ackFailed(msgId);
    return { ok: false, code: 500, message: (err as Error).message };
  }
  ctx.acks.release(msgId);
  ctx.ledger.acked(queue.realm, queue.key, queue.consumer);
  ackEvent(ctx, socket, queue.realm, msgId);
  return { ok: true, msgId };
}

/** The embedding API's `ack` event (docs/embedding.md), once the ACK is committed. */
function ackEvent(ctx: HandlerContext, socket: BrokerSocket, realm: string, msgId: string): void {
  const embed = ctx.embed;
  if (embed?.wants(BrokerEvent.ACK)) {
    embed.emit(BrokerEvent.ACK, { realm, msgId }, embed.socketClient(socket));
  }
}

export const handleAck: EventHandler<AckPayload> = (ctx, socket, payload, ack) => {
  const msgId = payload.msgId ?? payload.msg_id ?? payload.id;
  if (!msgId) {
    replyAck(socket, { ok: false, code: 400, message: 'ACK requires msgId' }, ack);
    return;
  }
  if (ctx.acks.owner(msgId) === socket.id && ctx.acks.copyOf(msgId)) {
    guardAsync(ctx, socket, ClientEvent.ACK, settleAwaited(ctx, socket, msgId, ack));
    return;
  }
  guardAsync(
    ctx,
    socket,
    ClientEvent.ACK,
    settle(ctx, socket, msgId).then(
      (reply) => replyAck(socket, reply, ack),
      (err: unknown) =>
        replyAck(socket, { ok: false, code: 500, message: (err as Error).message }, ack),
    ),
  );
};
