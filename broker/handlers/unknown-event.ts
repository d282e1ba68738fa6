/**
 * No silent calls (issue 19): an event on `/` that no route of the dispatcher handles — tyo-mq
 * 1.1's `PREKEY_*`, `SEALED_*` or `PUSH_*` (`spec/protocol-extensions.md` §3, §4, §6), which
 * Switchboard does not implement yet, or any other name — is answered instead of being ignored, so a stock
 * client's promise settles:
 * - with an acknowledgement callback (socket.io passes it as the last argument): the callback
 *   gets `unknownEventReply(name)`, the protocol's error object (`spec/protocol-admin.md` §1,
 *   `spec/protocol-extensions.md` §1.2) with code 501 and the catalogue code as `error`;
 * - without one: `ERROR {message, code: -1}`, as for other input the broker cannot use
 *   (`spec/protocol-core.md` §19).
 * Each is counted in `tyo_mq_rejected_inputs_total{reason="unknown_event"}` and logged through
 * the broker's `RepeatedWarnings`: the first in full, then one summary line per window, whatever
 * names a client invents (the log key does not contain the name).
 */
import { ErrorCatalogue } from '../../shared/error-catalogue';
import { ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import { RejectReason } from '../limits/limit-metrics';
import type { RepeatKey } from '../logging/repeated-warnings';
import type { BrokerSocket } from '../transport/socket-types';
import type { HandlerContext } from './handler-context';

/** Longest event name quoted back or logged (a client may send a name of any length). */
export const MAX_QUOTED_NAME = 64;

/** One log key for every unknown name, so invented names cannot multiply the log lines. */
const LOG_KEY: RepeatKey = { realm: '*', event: '*', reason: RejectReason.UNKNOWN_EVENT };

/** The acknowledgement answer to an event no route handles. */
export interface UnknownEventReply {
  ok: false;
  /** 501 (`SWB_ERR_UNKNOWN_EVENT`'s status): numeric, like every admin-surface error code. */
  code: number;
  /** The catalogue code, `SWB_ERR_UNKNOWN_EVENT`. */
  error: 'SWB_ERR_UNKNOWN_EVENT';
  /** The event name as received (cut to `MAX_QUOTED_NAME` characters). */
  event: string;
  /** `Unknown event '<name>': not handled by this broker`. */
  message: string;
}

/** The event name as text, cut to `MAX_QUOTED_NAME` characters (socket.io allows numbers). */
export function quotedName(name: unknown): string {
  const text = String(name);
  return text.length > MAX_QUOTED_NAME ? `${text.slice(0, MAX_QUOTED_NAME)}…` : text;
}

export function unknownEventReply(name: unknown): UnknownEventReply {
  const event = quotedName(name);
  return {
    ok: false,
    code: ErrorCatalogue.SWB_ERR_UNKNOWN_EVENT.status,
    error: 'SWB_ERR_UNKNOWN_EVENT',
    event,
    message: `Unknown event '${event}': not handled by this broker`,
  };
}

/**
 * Answers, counts and logs one event no route handles. `args` are the event's arguments as
 * socket.io delivered them (the acknowledgement callback, if any, last). The pre-auth budget
 * applies as to any event (`LimitsService.admitEvent`, which answers a refusal itself). Never
 * throws.
 */
export function answerUnknownEvent(
  ctx: HandlerContext,
  socket: BrokerSocket,
  name: unknown,
  args: readonly unknown[],
): void {
  try {
    const last = args.length > 0 ? args[args.length - 1] : undefined;
    const ack = typeof last === 'function' ? (last as (reply: unknown) => void) : undefined;
    if (!ctx.limits.admitEvent(socket, String(name), args[0], ack)) return;
    ctx.limits.rejectedInput(RejectReason.UNKNOWN_EVENT);
    const reply = unknownEventReply(name);
    ctx.repeated.warn(
      LOG_KEY,
      { socket: socket.id, socket_realm: socket.data.realm, name: reply.event, ack: !!ack },
      'unknown event answered',
    );
    if (ack) ack(reply);
    else
      socket.emit(ServerEvent.ERROR, { message: reply.message, code: ProtocolErrorCode.BAD_FIELD });
  } catch (err) {
    ctx.logger.error({ err, socket: socket.id }, 'answering an unknown event failed');
  }
}
