/**
 * The exhaustive dispatcher: one entry per client event (`ClientEvent`), each with its
 * JSON-string rule, schema and handler. Every inbound event goes through the same steps:
 *   0. the auth gate (`spec/protocol-admin.md` §3.3–§3.4, `broker/handlers/event-gate.ts`);
 *   1. parse a JSON-string payload where §1.2 allows it;
 *   2. structural guard (depth, `__proto__`), §19;
 *   3. zod schema; on failure the protocol's error reply for that event;
 *   4. the handler, inside a try/catch: a handler error is logged and answered, never fatal.
 * An event refused at any step before its handler (limits, the auth queue, the gate, parsing,
 * validation) answers the client's acknowledgement callback too, if it passed one, and an event
 * no route handles is answered by `unknown-event.ts` (issue 19: no call is left hanging).
 *
 * Source: `spec/protocol-core.md` §1.2, §3, §4 (error payloads), §19 (robustness).
 */
import type { ZodType } from 'zod';
import { ErrorCatalogue, errorInfo } from '../../shared/error-catalogue';
import {
  ClientEvent,
  ProtocolErrorCode,
  ProtocolErrorText,
  ServerEvent,
  type ClientEventName,
} from '../../shared/protocol-events';
import {
  AckPayload,
  ConsumerPayload,
  HelloPayload,
  ProduceChunkPayload,
  ProducePayload,
  ProducerPayload,
  SubscribePayload,
  UnsubscribePayload,
} from '../../shared/protocol-payloads';
import { EVENT_GATES, MAX_QUEUED_DURING_AUTH, passGate } from './event-gate';
import { RequestFailure } from '../auth/authorization-requests';
import { RejectReason } from '../limits/limit-metrics';
import type { BrokerSocket } from '../transport/socket-types';
import { handleAck, replyAck } from './ack-handler';
import { answerInternalError } from './async-guard';
import { AuthFailure, handleAuthentication } from './authentication-handler';
import {
  handleAuthorizationDecide,
  handleAuthorizationNext,
  handleAuthorizationRequest,
  replyRequest,
} from './authorization-handlers';
import { handleProduceChunk } from './chunk-handler';
import { handleConsumer } from './consumer-handler';
import type { EventHandler, HandlerContext } from './handler-context';
import { BINARY_PAYLOAD, inspectPayload, parseJsonPayload } from './payload-guard';
import { producePayloadFast } from './produce-fast-path';
import { handleManagementCommand } from './management-handler';
import { handleProduce } from './produce-handler';
import { handleProducer } from './producer-handler';
import { handleRemoteTicketRequest } from './remote-ticket-handler';
import { handleDebug, handleHello, handlePing, handleQuit } from './session-handlers';
import { handleSubscribe, handleUnsubscribe } from './subscribe-handler';
import { answerUnknownEvent } from './unknown-event';
import { EXTENSION_ROUTES, type ExtensionEventName } from '../extensions/extension-routes';

type Ack = ((reply: unknown) => void) | undefined;

interface Route {
  /** Whether a JSON string is parsed into the payload (§1.2). */
  parseString: boolean;
  schema: ZodType | null;
  handler: EventHandler<never>;
  /** The protocol's answer to an invalid payload; default `ERROR {message, code:-1}`. */
  invalid?: (socket: BrokerSocket, detail: string, raw: unknown, ack: Ack) => void;
  /**
   * Whether `invalid` answers the acknowledgement callback itself; when not, `refuse` answers
   * it with `refusal()` after `invalid` has sent the protocol's reply event.
   */
  invalidAnswersAck?: true;
}

function badField(socket: BrokerSocket, message: string): void {
  socket.emit(ServerEvent.ERROR, { message, code: ProtocolErrorCode.BAD_FIELD });
}

/**
 * The route of an extension event: no string parsing or schema here (the family's handler
 * applies §1.3 with the spec's texts), and a refusal of the structural guard answered through
 * the callback only (§1.2: these events have no reply event).
 */
function extensionRoute(event: ExtensionEventName): Route {
  const { handler, invalidReply } = EXTENSION_ROUTES[event];
  return {
    parseString: false,
    schema: null,
    handler,
    invalidAnswersAck: true,
    invalid: (_socket, detail, _raw, ack) => ack?.(invalidReply(detail)),
  };
}

/** One route per client event; `satisfies` makes the compiler check it is exhaustive. */
export const ROUTES = {
  [ClientEvent.AUTHENTICATION]: {
    parseString: true,
    schema: null,
    handler: handleAuthentication,
    // §2.3 step 1: the exact message, whatever was wrong with the payload.
    invalid: (socket) =>
      socket.emit(ServerEvent.AUTH_FAIL, { code: 401, message: AuthFailure.BAD_PAYLOAD }),
  },
  [ClientEvent.AUTHORIZATION_REQUEST]: {
    parseString: true,
    schema: null,
    handler: handleAuthorizationRequest,
    invalidAnswersAck: true,
    invalid: (socket, _detail, raw, ack) =>
      replyRequest(socket, ack, {
        ok: false,
        code: 400,
        message: typeof raw === 'string' ? RequestFailure.BAD_JSON : RequestFailure.FIELDS,
      }),
  },
  // §1: a string payload is not parsed; it simply lacks `body`/`proof`.
  [ClientEvent.AUTHORIZATION_NEXT]: {
    parseString: false,
    schema: null,
    handler: handleAuthorizationNext,
  },
  [ClientEvent.AUTHORIZATION_DECIDE]: {
    parseString: false,
    schema: null,
    handler: handleAuthorizationDecide,
  },
  [ClientEvent.CONSUMER]: {
    parseString: true,
    schema: ConsumerPayload,
    handler: handleConsumer,
    invalid: (socket) => badField(socket, ProtocolErrorText.BAD_CONSUMER_NAME),
  },
  [ClientEvent.PRODUCER]: {
    parseString: true,
    schema: ProducerPayload,
    handler: handleProducer,
    invalid: (socket) => badField(socket, ProtocolErrorText.BAD_PRODUCER_NAME),
  },
  [ClientEvent.SUBSCRIBE]: {
    parseString: true,
    schema: SubscribePayload,
    handler: handleSubscribe,
    invalid: (socket, detail, raw) => {
      const event = (raw as { event?: unknown } | null)?.event;
      // A missing/falsy event gets the reference's verbatim string (§3.3).
      if (!event) socket.emit(ServerEvent.ERROR, ProtocolErrorText.SUBSCRIBE_WITHOUT_EVENT);
      else badField(socket, `Invalid SUBSCRIBE: ${detail}`);
    },
  },
  [ClientEvent.UNSUBSCRIBE]: {
    parseString: false,
    schema: UnsubscribePayload,
    handler: handleUnsubscribe,
  },
  [ClientEvent.PRODUCE]: { parseString: true, schema: ProducePayload, handler: handleProduce },
  [ClientEvent.PRODUCE_CHUNK]: {
    parseString: true,
    schema: ProduceChunkPayload,
    handler: handleProduceChunk,
  },
  [ClientEvent.ACK]: {
    parseString: true,
    schema: AckPayload,
    handler: handleAck,
    invalidAnswersAck: true,
    invalid: (socket, detail, raw, ack) =>
      replyAck(
        socket,
        {
          ok: false,
          code: 400,
          message: typeof raw === 'string' ? 'Invalid ACK JSON' : `Invalid ACK: ${detail}`,
        },
        ack,
      ),
  },
  [ClientEvent.PING]: { parseString: false, schema: null, handler: handlePing },
  [ClientEvent.HELLO]: { parseString: false, schema: HelloPayload, handler: handleHello },
  [ClientEvent.DEBUG]: { parseString: false, schema: null, handler: handleDebug },
  [ClientEvent.QUIT]: { parseString: false, schema: null, handler: handleQuit },
  [ClientEvent.AUTH_MANAGEMENT_COMMAND]: {
    // §1: a string payload is not parsed (it simply lacks body/proof → 401).
    parseString: false,
    schema: null,
    handler: handleManagementCommand,
    invalidAnswersAck: true,
    invalid: (socket, detail, _raw, ack) => {
      const reply = {
        ok: false as const,
        code: 400,
        message: `Invalid AUTH_MANAGEMENT_COMMAND: ${detail}`,
      };
      if (ack) ack(reply);
      else socket.emit(ServerEvent.AUTH_MANAGEMENT_FAIL, reply);
    },
  },
  [ClientEvent.REMOTE_TICKET_REQUEST]: {
    parseString: true,
    schema: null,
    handler: handleRemoteTicketRequest,
  },
  // tyo-mq 1.1 extensions (`spec/protocol-extensions.md` §1): the handler parses (§1.3).
  [ClientEvent.KEY_PUBLISH]: extensionRoute(ClientEvent.KEY_PUBLISH),
  [ClientEvent.KEY_LOOKUP]: extensionRoute(ClientEvent.KEY_LOOKUP),
  [ClientEvent.PREKEY_PUBLISH]: extensionRoute(ClientEvent.PREKEY_PUBLISH),
  [ClientEvent.PREKEY_TAKE]: extensionRoute(ClientEvent.PREKEY_TAKE),
  [ClientEvent.SEALED_CERT_REQUEST]: extensionRoute(ClientEvent.SEALED_CERT_REQUEST),
  [ClientEvent.SEALED_UAK_SET]: extensionRoute(ClientEvent.SEALED_UAK_SET),
  [ClientEvent.SEALED_DELIVER]: extensionRoute(ClientEvent.SEALED_DELIVER),
  [ClientEvent.SEALED_SUBSCRIBE]: extensionRoute(ClientEvent.SEALED_SUBSCRIBE),
  [ClientEvent.PUSH_REGISTER]: extensionRoute(ClientEvent.PUSH_REGISTER),
  [ClientEvent.PUSH_UNREGISTER]: extensionRoute(ClientEvent.PUSH_UNREGISTER),
} satisfies Record<ClientEventName, Route>;

/** The names `ROUTES` handles, for the per-packet "is this routed?" check (no prototype keys). */
const ROUTED: ReadonlySet<string> = new Set(Object.keys(ROUTES));

function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || 'payload'}: ${i.message}`)
    .join('; ');
}

/** Logs and answers a refused payload with the route's protocol error. */
function refuse(
  ctx: HandlerContext,
  socket: BrokerSocket,
  event: ClientEventName,
  route: Route,
  raw: unknown,
  callback: Ack,
  detail: string,
): void {
  ctx.logger.warn({ socket: socket.id, event, reason: detail }, 'invalid payload refused');
  ctx.limits.rejectedInput(RejectReason.MALFORMED);
  if (route.invalid) {
    route.invalid(socket, detail, raw, callback);
    // Events whose protocol reply is an event (CONSUMER, SUBSCRIBE…) still settle a callback.
    if (!route.invalidAnswersAck) callback?.(refusal(event, detail));
    return;
  }
  badField(socket, `Invalid ${event}: ${detail}`);
  // A publisher waiting on a confirm (our extension) must not wait forever.
  callback?.(refusal(event, detail));
}

/**
 * The callback answer to a refused payload (a publisher's confirm, or any event whose protocol
 * reply is an event): `{ok: false, code: "SWB_ERR_VALIDATION", message: "Invalid <EVENT>: …"}`.
 */
function refusal(event: ClientEventName, detail: string) {
  return { ok: false, ...errorInfo('SWB_ERR_VALIDATION', `Invalid ${event}: ${detail}`) };
}

/**
 * The callback answer to an event dropped because the socket sent more than
 * `MAX_QUEUED_DURING_AUTH` events while its `AUTHENTICATION` was being validated: the admin
 * surface's error object (`spec/protocol-admin.md` §1) with 429 and the catalogue code.
 */
function droppedDuringAuth(event: ClientEventName) {
  return {
    ok: false as const,
    code: ErrorCatalogue.SWB_ERR_RATE_LIMITED.status,
    error: 'SWB_ERR_RATE_LIMITED' as const,
    message: `${event} dropped: more than ${MAX_QUEUED_DURING_AUTH} events sent during authentication`,
  };
}

const DROPPED_KEY = { realm: '*', event: '*', reason: 'auth_queue_full' };

/**
 * Runs one inbound event through the pipeline above. Never throws. (No closures are created
 * here: this runs for every message, and each closure costs on the hot path.)
 */
export function dispatch(
  ctx: HandlerContext,
  socket: BrokerSocket,
  event: ClientEventName,
  raw: unknown,
  ack: unknown,
): void {
  const route: Route = ROUTES[event];
  const callback = typeof ack === 'function' ? (ack as (reply: unknown) => void) : undefined;
  try {
    // An AUTHENTICATION is being validated: keep the order, decide after it (authentication-handler).
    const queue = socket.data.authQueue;
    if (queue !== null) {
      if (queue.length < MAX_QUEUED_DURING_AUTH) {
        queue.push({ event, raw, ack });
        return;
      }
      ctx.limits.rejectedInput(RejectReason.RATE_LIMITED);
      ctx.repeated.warn(
        DROPPED_KEY,
        { socket: socket.id, name: event },
        'event dropped during authentication',
      );
      callback?.(droppedDuringAuth(event));
      return;
    }
    // The auth gate (§3.3) runs before any payload work.
    if (EVENT_GATES[event] !== 'none' && !passGate(ctx, socket, event, callback, raw)) return;
    let payload = raw;
    if (route.parseString && typeof raw === 'string') {
      const parsed = parseJsonPayload(raw);
      if (!parsed.ok) {
        // §1.2: a string that does not parse is logged and dropped with no reply, except for
        // ACK (ACK_FAIL 400) and AUTHENTICATION (AUTH_FAIL 401).
        if (
          event !== ClientEvent.ACK &&
          event !== ClientEvent.AUTHENTICATION &&
          event !== ClientEvent.AUTHORIZATION_REQUEST
        ) {
          ctx.logger.warn({ socket: socket.id, event }, 'unparsable JSON string dropped');
          ctx.limits.rejectedInput(RejectReason.MALFORMED);
          callback?.(refusal(event, parsed.reason));
          return;
        }
        return refuse(ctx, socket, event, route, raw, callback, parsed.reason);
      }
      payload = parsed.value;
    }
    const structural = inspectPayload(payload, ctx.settings.input_limits.max_payload_depth);
    if (structural) {
      if (structural === BINARY_PAYLOAD) ctx.metrics.binaryRefused(event);
      return refuse(ctx, socket, event, route, raw, callback, structural);
    }
    // PRODUCE, the per-message event: the common payload is vouched for without zod's copy
    // (produce-fast-path.ts: less garbage per message, fewer GC pauses in the latency tail);
    // anything else, refusals included, goes through the schema as before.
    const fast = event === ClientEvent.PRODUCE ? producePayloadFast(payload) : null;
    if (fast !== null) payload = fast;
    else if (route.schema) {
      const result = route.schema.safeParse(payload);
      if (!result.success) {
        return refuse(ctx, socket, event, route, raw, callback, describe(result.error.issues));
      }
      payload = result.data;
    }
    (route.handler as EventHandler<unknown>)(ctx, socket, payload, callback);
  } catch (err) {
    answerInternalError(ctx, socket, event, err);
  }
}

/**
 * One inbound event of a route: socket.io passes the acknowledgement callback as the *last*
 * argument, so `emit('PING', cb)` arrives as `[cb]` (no payload) and extra arguments are
 * ignored. Limits gate inbound events only (a reassembled chunk was counted chunk by chunk).
 */
function receive(
  ctx: HandlerContext,
  socket: BrokerSocket,
  event: ClientEventName,
  args: unknown[],
): void {
  const n = args.length;
  const last = n > 0 ? args[n - 1] : undefined;
  const ack = typeof last === 'function' ? last : undefined;
  const payload = ack !== undefined && n === 1 ? undefined : args[0];
  if (ctx.limits.admitEvent(socket, event, payload, ack)) {
    dispatch(ctx, socket, event, payload, ack);
  }
}

/**
 * Registers every client event of `ROUTES` on a new socket, and the answer to any other name.
 * socket.io has no "unhandled event" hook, so an `onAny` listener sees every event and returns
 * at once for routed names (one set look-up per packet). Names socket.io reserves (`connect`,
 * `disconnect`, …) never get here: its parser refuses such packets and closes the connection.
 */
export function attachHandlers(ctx: HandlerContext, socket: BrokerSocket): void {
  for (const event of Object.keys(ROUTES) as ClientEventName[]) {
    socket.on(event, (...args: unknown[]) => receive(ctx, socket, event, args));
  }
  socket.onAny((event: unknown, ...args: unknown[]) => {
    if (typeof event === 'string' && ROUTED.has(event)) return;
    answerUnknownEvent(ctx, socket, event, args);
  });
}
