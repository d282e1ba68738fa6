/**
 * The plumbing every tyo-mq 1.1 extension family shares (`spec/protocol-extensions.md` §1.2,
 * §1.3): the once-only acknowledgement reply, the failure shape, payload parsing and the
 * `identity`‖`name` rule. A family module declares each event with `defineExtension`, which
 * gives its handler a parsed payload and a `reply` that can be called at most once, and answers
 * a handler that throws with `{ok:false, code:500, message}` instead of leaving the client
 * waiting.
 *
 * The authorization gate (§1.4) runs before, in the dispatcher (`handlers/event-gate.ts`):
 * with Note 1.4-A's Fix its refusal answers the callback too, with the `AUTH_FAIL` payload.
 */
import {
  ExtensionCode,
  ExtensionText,
  type ExtensionFailure,
} from '../../shared/protocol-extensions';
import type { ClientEventName } from '../../shared/protocol-events';
import type { EventHandler, HandlerContext } from '../handlers/handler-context';
import { RejectReason, type RejectReasonValue } from '../limits/limit-metrics';
import type { BrokerSocket } from '../transport/socket-types';

/** The `reason` counted for a refusal, by its code; anything else is malformed input. */
const REASONS: Partial<Record<number, RejectReasonValue>> = {
  [ExtensionCode.FORBIDDEN]: RejectReason.UNAUTHORIZED,
  [ExtensionCode.RATE_LIMITED]: RejectReason.RATE_LIMITED,
};

/** Answers the client's acknowledgement callback; calls after the first are ignored (§1.2). */
export type ExtensionReply = (reply: object) => void;

/** The payload as an object (§1.3), or the reason it is not one. */
export type ExtensionPayload =
  | { ok: true; value: Readonly<Record<string, unknown>> }
  | { ok: false; reason: typeof ExtensionText.INVALID_JSON };

/** A family's handler of one event: `payload` is what §1.3 made of the raw argument. */
export type ExtensionHandler = (
  ctx: HandlerContext,
  socket: BrokerSocket,
  payload: ExtensionPayload,
  reply: ExtensionReply,
) => void | Promise<void>;

/** `{ok:false, code, message}` (§1.2). */
export function failure(code: number, message: string): ExtensionFailure {
  return { ok: false, code, message };
}

/**
 * §1.3: an object as is; a JSON string parsed (anything but an object after parsing counts as
 * `{}`, like `null` and a missing payload); a string that does not parse is `invalid JSON`.
 */
export function parseExtensionPayload(raw: unknown): ExtensionPayload {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return { ok: false, reason: ExtensionText.INVALID_JSON };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: true, value: {} };
  return { ok: true, value: value as Record<string, unknown> };
}

/** §1.3: `identity` when it is truthy, otherwise `name` (either may be anything: check it). */
export function identityField(payload: Readonly<Record<string, unknown>>): unknown {
  return own(payload, 'identity') || own(payload, 'name');
}

/** An own property only: `__proto__`, `constructor` and friends never come from the prototype. */
export function own(payload: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(payload, key) ? payload[key] : undefined;
}

/** A once-only reply over `ack` (absent: the work is still done, nothing is sent, §1.2). */
function onceReply(ack: ((reply: unknown) => void) | undefined): ExtensionReply {
  let sent = false;
  return (reply) => {
    if (sent) return;
    sent = true;
    ack?.(reply);
  };
}

/**
 * Wraps a family's handler as a dispatcher handler (`handlers/dispatcher.ts` routes it with
 * `parseString: false` and no schema: the handler parses, so the texts are the spec's). A
 * refusal the handler answers with a 4xx is counted as rejected input by `refuseInput`.
 */
export function defineExtension(
  event: ClientEventName,
  handler: ExtensionHandler,
): EventHandler<unknown> {
  return (ctx, socket, raw, ack) => {
    const reply = onceReply(ack);
    const internal = (err: unknown) => {
      ctx.logger.error({ err, socket: socket.id, event }, 'extension handler failed');
      reply(failure(ExtensionCode.STORAGE, `${event} failed`));
    };
    try {
      const pending = handler(ctx, socket, parseExtensionPayload(raw), reply);
      if (pending) ctx.pending.track(pending.catch(internal));
    } catch (err) {
      internal(err);
    }
  };
}

/**
 * Logs, counts (`tyo_mq_rejected_inputs_total`) and answers one refused input. The log line
 * names the event and code, never the payload (a key or token must not reach the logs).
 */
export function refuseInput(
  ctx: HandlerContext,
  socket: BrokerSocket,
  event: ClientEventName,
  reply: ExtensionReply,
  code: number,
  message: string,
): void {
  ctx.logger.info(
    { socket: socket.id, realm: socket.data.realm, event, code },
    'extension input refused',
  );
  ctx.limits.rejectedInput(REASONS[code] ?? RejectReason.MALFORMED);
  reply(failure(code, message));
}
