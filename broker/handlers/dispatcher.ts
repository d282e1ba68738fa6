/**
 * The exhaustive dispatcher: one entry per client event (`ClientEvent`), each with its
 * JSON-string rule, schema and handler. Every inbound event goes through the same steps:
 *   0. the auth gate (`spec/protocol-admin.md` §3.3–§3.4, `broker/auth/event-gate.ts`);
 *   1. parse a JSON-string payload where §1.2 allows it;
 *   2. structural guard (depth, `__proto__`), §19;
 *   3. zod schema; on failure the protocol's error reply for that event;
 *   4. the handler, inside a try/catch: a handler error is logged and answered, never fatal.
 *
 * Source: `spec/protocol-core.md` §1.2, §3, §4 (error payloads), §19 (robustness).
 */
import type { ZodType } from 'zod';
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
import { EVENT_GATES, MAX_QUEUED_DURING_AUTH, passGate } from '../auth/event-gate';
import { RequestFailure } from '../auth/authorization-requests';
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
import { handleManagementCommand } from './management-handler';
import { handleProduce } from './produce-handler';
import { handleProducer } from './producer-handler';
import { handleRemoteTicketRequest } from './remote-ticket-handler';
import { handleDebug, handleHello, handlePing, handleQuit } from './session-handlers';
import { handleSubscribe, handleUnsubscribe } from './subscribe-handler';

type Ack = ((reply: unknown) => void) | undefined;

interface Route {
  /** Whether a JSON string is parsed into the payload (§1.2). */
  parseString: boolean;
  schema: ZodType | null;
  handler: EventHandler<never>;
  /** The protocol's answer to an invalid payload; default `ERROR {message, code:-1}`. */
  invalid?: (socket: BrokerSocket, detail: string, raw: unknown, ack: Ack) => void;
}

function badField(socket: BrokerSocket, message: string): void {
  socket.emit(ServerEvent.ERROR, { message, code: ProtocolErrorCode.BAD_FIELD });
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
} satisfies Record<ClientEventName, Route>;

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
  ctx.limits.rejectedInput('malformed');
  if (route.invalid) {
    route.invalid(socket, detail, raw, callback);
    return;
  }
  badField(socket, `Invalid ${event}: ${detail}`);
  // A publisher waiting on a confirm (our extension) must not wait forever.
  callback?.(refusal(event, detail));
}

/** The confirm-callback answer to a refused `PRODUCE` / `PRODUCE_CHUNK`. */
function refusal(event: ClientEventName, detail: string) {
  return { ok: false, code: 'SWB_ERR_VALIDATION', message: `Invalid ${event}: ${detail}` };
}

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
      if (queue.length < MAX_QUEUED_DURING_AUTH) queue.push({ event, raw, ack });
      else ctx.logger.warn({ socket: socket.id, event }, 'event dropped during authentication');
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
          ctx.limits.rejectedInput('malformed');
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
    if (route.schema) {
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

/** Registers every client event of `ROUTES` on a new socket. */
export function attachHandlers(ctx: HandlerContext, socket: BrokerSocket): void {
  for (const event of Object.keys(ROUTES) as ClientEventName[]) {
    socket.on(event, (payload: unknown, ack?: unknown) => {
      // Limits gate inbound events only (a reassembled chunk was counted chunk by chunk).
      if (ctx.limits.admitEvent(socket, event, payload, ack)) {
        dispatch(ctx, socket, event, payload, ack);
      }
    });
  }
}
