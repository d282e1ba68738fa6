/**
 * The last link of every asynchronous handler chain: a failure after the handler returned
 * (a rejected store call, or an exception thrown in a continuation) is logged and answered
 * with `ERROR {message, code:-1}` to the sender — never left as an unhandled rejection, which
 * would end the process.
 *
 * Source: `spec/protocol-core.md` §19 ("Catch every handler exception, log it, and keep
 * serving"), applied to the work a handler starts as well as the handler itself.
 */
import { ProtocolErrorCode, ServerEvent, type ClientEventName } from '../../shared/protocol-events';
import { asError } from '../policy/embedding';
import { BrokerEvent } from '../policy/embedding-types';
import type { BrokerSocket } from '../transport/socket-types';
import type { HandlerContext } from './handler-context';

/** Logs a handler failure and tells the sender, if it is still connected. Never throws. */
export function answerInternalError(
  ctx: Pick<HandlerContext, 'logger' | 'embed'>,
  socket: BrokerSocket,
  event: ClientEventName,
  err: unknown,
): void {
  try {
    ctx.logger.error({ err, socket: socket.id, event }, 'handler failed');
    // Embedding API: reported as `clientError` for the sender (docs/embedding.md).
    if (ctx.embed && socket.data.authenticated) {
      ctx.embed.emit(BrokerEvent.CLIENT_ERROR, ctx.embed.socketClient(socket), asError(err));
    }
    if (socket.connected) {
      socket.emit(ServerEvent.ERROR, {
        message: `Internal error while handling ${event}`,
        code: ProtocolErrorCode.BAD_FIELD,
      });
    }
  } catch {
    // The socket or the logger is gone; nothing more can be done for this event.
  }
}

/**
 * Ends `work` (started by a handler of `event`): a rejection is answered, not left unhandled.
 * A confirm callback (`ack`) still waiting gets `{ok:false, code:"SWB_ERR_INTERNAL"}` too
 * (socket.io ignores a second call of an ack, so one already answered stays answered). The
 * work is tracked in `ctx.pending`, when given, until it settles.
 */
export function guardAsync(
  ctx: Pick<HandlerContext, 'logger' | 'embed'> & Partial<Pick<HandlerContext, 'pending'>>,
  socket: BrokerSocket,
  event: ClientEventName,
  work: Promise<unknown>,
  ack?: (reply: unknown) => void,
): void {
  // A shutdown waits for it (pending-work.ts) before closing transports.
  ctx.pending?.track(work);
  work.catch((err: unknown) => {
    answerInternalError(ctx, socket, event, err);
    try {
      ack?.({
        ok: false,
        code: 'SWB_ERR_INTERNAL',
        message: `Internal error while handling ${event}`,
      });
    } catch {
      // The client is gone.
    }
  });
}
