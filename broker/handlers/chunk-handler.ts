/**
 * `PRODUCE_CHUNK` (`spec/protocol-core.md` §14.1, Note 14-A): chunks are collected by the
 * `ChunkAssembler`; a complete message is parsed and handled exactly like a `PRODUCE`.
 * Limit breaches get `ERROR {code: -7}` (Switchboard extension, `LIMIT_EXCEEDED`).
 */
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import type { ProduceChunkPayload } from '../../shared/protocol-payloads';
import type { EventHandler } from './handler-context';

export const handleProduceChunk: EventHandler<ProduceChunkPayload> = (ctx, socket, chunk, ack) => {
  const result = ctx.chunks.add(socket.id, chunk);
  if (result.status === 'partial') return;
  if (result.status === 'rejected') {
    ctx.logger.warn({ socket: socket.id, transferId: chunk.transferId }, result.reason);
    socket.emit(ServerEvent.ERROR, {
      message: result.reason,
      code: ProtocolErrorCode.LIMIT_EXCEEDED,
    });
    ack?.({ ok: false, code: 'SWB_ERR_PAYLOAD_TOO_LARGE', message: result.reason });
    return;
  }
  // The joined text goes through the full PRODUCE pipeline (JSON parse, guard, schema).
  ctx.dispatch(socket, ClientEvent.PRODUCE, result.text, ack);
};
