/**
 * The embedding API's `authorizePublish` and `authorizeSubscribe` hooks for socket.io clients
 * (docs/embedding.md), run by the `PRODUCE` and `SUBSCRIBE` handlers after the auth gate
 * (`spec/protocol-admin.md` §3.3) and payload validation passed, before any effect.
 *
 * Hooked requests of one socket are decided in the order they arrived (one promise chain per
 * socket), so an asynchronous hook never reorders a producer's messages. A refusal is answered
 * like the gate's: `AUTH_FAIL {code: 403, message}`, and the confirm callback, if any, with
 * `{ok: false, code: 403, message}`; it is also reported as `clientError`.
 */
import { Protocol, ServerEvent } from '../../shared/protocol-events';
import type { ProducePayload, SubscribePayload } from '../../shared/protocol-payloads';
import type { HandlerContext } from './handler-context';
import { RejectReason } from '../limits/limit-metrics';
import type { BrokerSocket } from '../transport/socket-types';
import type { Embedding } from '../policy/embedding';
import type { BrokerClient, BrokerMessage, SubscriptionRequest } from '../policy/embedding-types';

type Ack = ((reply: unknown) => void) | undefined;
type Produce = ProducePayload & { event: string };
type Subscribe = SubscribePayload & { event: string };

/** Per socket, the last hooked request still being decided. */
const tails = new WeakMap<BrokerSocket, Promise<void>>();

/** Runs `decide` after the socket's earlier hooked requests; never rejects. */
function inOrder(ctx: HandlerContext, socket: BrokerSocket, decide: () => Promise<void>): void {
  const next = (tails.get(socket) ?? Promise.resolve())
    .then(decide)
    .catch((err: unknown) => ctx.logger.error({ err, socket: socket.id }, 'hooked request failed'));
  tails.set(socket, next);
  void next.then(() => {
    if (tails.get(socket) === next) tails.delete(socket);
  });
}

function refuse(
  ctx: HandlerContext,
  embed: Embedding,
  socket: BrokerSocket,
  client: BrokerClient,
  hook: 'authorizePublish' | 'authorizeSubscribe',
  err: unknown,
  fallback: string,
  ack: Ack,
): void {
  // A negation (null) is an answer, not a failure: only errors become `clientError`.
  const message = err === null ? fallback : embed.hookFailed(client, hook, err).message || fallback;
  ctx.limits.rejectedInput(RejectReason.UNAUTHORIZED);
  if (socket.connected) socket.emit(ServerEvent.AUTH_FAIL, { code: 403, message });
  ack?.({ ok: false, code: 403, message });
}

/**
 * `PRODUCE` through `authorizePublish`: `proceed` gets the payload with the hook's topic and
 * payload changes applied. Call only when the hook is installed.
 */
export function authorizeProduce(
  ctx: HandlerContext,
  embed: Embedding,
  socket: BrokerSocket,
  payload: Produce,
  ack: Ack,
  durable: boolean,
  proceed: (payload: Produce) => void,
): void {
  const client = embed.socketClient(socket);
  const message: BrokerMessage = {
    realm: socket.data.realm,
    topic: payload.event,
    payload: payload.message,
    from: payload.from ?? Protocol.ANONYMOUS,
    durable,
    origin: 'socket.io',
  };
  if (payload.enc !== undefined) message.enc = payload.enc;
  if (payload.method === 'broadcast')
    message.broadcast = payload.broadcast === 'group' ? 'group' : 'realm';
  const fallback = `Publishing to '${payload.event}' refused`;
  inOrder(ctx, socket, async () => {
    try {
      const hook = embed.hooks.authorizePublish;
      if (hook) await hook(client, message);
      if (typeof message.topic !== 'string' || message.topic.length === 0) {
        throw new Error('authorizePublish left an empty topic');
      }
    } catch (err) {
      refuse(ctx, embed, socket, client, 'authorizePublish', err, fallback, ack);
      return;
    }
    proceed({ ...payload, event: message.topic, message: message.payload });
  });
}

/**
 * `SUBSCRIBE` through `authorizeSubscribe`: `proceed` gets the payload with the hook's topic.
 * socket.io has no QoS, so a changed `qos` is ignored. Call only when the hook is installed.
 */
export function authorizeSubscription(
  ctx: HandlerContext,
  embed: Embedding,
  socket: BrokerSocket,
  payload: Subscribe,
  proceed: (payload: Subscribe) => void,
): void {
  const client = embed.socketClient(socket);
  const request: SubscriptionRequest = {
    topic: payload.event,
    qos: payload.durable || payload.ack || payload.manual_ack ? 1 : 0,
  };
  const fallback = `Subscription to '${payload.event}' refused`;
  inOrder(ctx, socket, async () => {
    let granted: SubscriptionRequest | null;
    try {
      const hook = embed.hooks.authorizeSubscribe;
      granted = hook ? await hook(client, request) : request;
      if (granted === null || granted === undefined) {
        refuse(ctx, embed, socket, client, 'authorizeSubscribe', null, fallback, undefined);
        return;
      }
      if (typeof granted.topic !== 'string' || granted.topic.length === 0) {
        throw new Error('authorizeSubscribe returned an empty topic');
      }
    } catch (err) {
      refuse(ctx, embed, socket, client, 'authorizeSubscribe', err, fallback, undefined);
      return;
    }
    if (socket.connected) proceed({ ...payload, event: granted.topic });
  });
}
