/**
 * Session-level events: `PING`, `HELLO`, `DEBUG`, `QUIT` (`AUTHENTICATION` is in
 * `authentication-handler.ts`).
 *
 * Source: `spec/protocol-core.md` §3 (HELLO/DEBUG are logged only; QUIT disconnects
 * when the id is the caller's own) and §3.7 (PING answers its callback with a JSON *string*).
 */
import { Protocol } from '../../shared/protocol-events';
import type { EventHandler } from './handler-context';

export const handlePing: EventHandler<unknown> = (_ctx, _socket, payload, ack) => {
  if (!ack) return;
  const fields =
    typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : {};
  ack(JSON.stringify({ ...fields, pong: Protocol.PONG, timestamp: new Date().toISOString() }));
};

export const handleHello: EventHandler<unknown> = (ctx, socket, payload) => {
  const p = (payload ?? {}) as { name?: unknown; type?: unknown };
  ctx.logger.info({ socket: socket.id, name: p.name, type: p.type }, 'HELLO');
};

export const handleDebug: EventHandler<unknown> = (ctx, socket, payload) => {
  ctx.logger.debug({ socket: socket.id, kind: typeof payload }, 'DEBUG');
};

export const handleQuit: EventHandler<unknown> = (_ctx, socket, payload) => {
  if (payload === socket.id) socket.disconnect(true);
};
