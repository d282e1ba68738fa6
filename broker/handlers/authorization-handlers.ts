/**
 * The authorization-request flow: `AUTHORIZATION_REQUEST` (any socket), `AUTHORIZATION_NEXT` and
 * `AUTHORIZATION_DECIDE` (manager proofs).
 *
 * Source: `spec/protocol-admin.md` §1 (replies: ack when given, else the named event; REQUEST
 * answers through both), §6.5 (which secrets), §7.1–§7.4, and the hardening of §7.5 (strict
 * boolean `approved`, decided role among the five roles and never `admin`, no silent no-op for
 * an existing token). Approved tokens go through `AuthState.update(…, 'approval')`, which the
 * persistence layer (settings file, auth store) listens to. Raw tokens are never logged.
 *
 * A requester that comes back (a new connection, a broker restart) sends `AUTHORIZATION_REQUEST`
 * with its `request_id` and the same `client_token` (issue 22 item 1; docs/management.md
 * "Requests across a restart"): the reply's `status` says `pending` (the request now follows the
 * new connection), `approved` (with `realm`, `role`) or `rejected` (with `reason`), and a decided
 * one is also pushed as `AUTHORIZATION_APPROVED`/`REJECTED`; unknown, expired or another token →
 * 404 through `AUTHORIZATION_REQUEST_FAIL`. Without `request_id` nothing changes.
 *
 * Clustered (`ctx.clusterRequests`, §15; docs/cluster.md): requests are shared through Redis,
 * NEXT sees every node's, DECIDE claims the decision there first, and a requester on another
 * node is told by its own node. Proof nonces are claimed cluster-wide (`verifyProof`, §6.4).
 */
import { SignedAction } from '../../shared/admin-signature';
import {
  ClientEvent,
  ServerEvent,
  type AdminFailure,
  type ServerEventName,
} from '../../shared/protocol-events';
import { ROLES } from '../auth/auth-schema';
import { tokenHash } from '../auth/auth-state';
import {
  publicRequest,
  RequestFailure,
  type AuthorizationRequest,
} from '../auth/authorization-requests';
import { signedSize, verifyProof } from '../auth/proof-verifier';
import type { BrokerSocket } from '../transport/socket-types';
import { guardAsync } from './async-guard';
import type { EventHandler, HandlerContext } from './handler-context';

type Ack = ((reply: unknown) => void) | undefined;

const failure = (code: number, message: string): AdminFailure => ({ ok: false, code, message });

/** §1: the ack when the client gave one, else the named reply event. */
function reply(socket: BrokerSocket, ack: Ack, event: ServerEventName, payload: unknown): void {
  if (ack) ack(payload);
  else (socket.emit as (e: string, p: unknown) => void)(event, payload);
}

/** `AUTHORIZATION_REQUEST` replies through the ack **and** the event (§1, §7.1). */
export function replyRequest(
  socket: BrokerSocket,
  ack: Ack,
  payload:
    AdminFailure | ({ ok: true; request_id: string; status: string } & Record<string, unknown>),
): void {
  ack?.(payload);
  (socket.emit as (e: string, p: unknown) => void)(
    payload.ok ? ServerEvent.AUTHORIZATION_REQUEST_OK : ServerEvent.AUTHORIZATION_REQUEST_FAIL,
    payload,
  );
}

export const handleAuthorizationRequest: EventHandler<unknown> = (ctx, socket, payload, ack) => {
  guardAsync(
    ctx,
    socket,
    ClientEvent.AUTHORIZATION_REQUEST,
    submit(ctx, socket, payload, ack),
    ack,
  );
};

async function submit(
  ctx: HandlerContext,
  socket: BrokerSocket,
  payload: unknown,
  ack: Ack,
): Promise<void> {
  const resumed = (payload as { request_id?: unknown } | null)?.request_id;
  if (resumed !== undefined) return resume(ctx, socket, payload as Record<string, unknown>, ack);
  const result = ctx.authRequests.submit(
    payload,
    socket.id,
    Date.now(),
    ctx.limits.clientIp(socket),
  );
  if (!result.ok) {
    if (result.code === 429) ctx.limits.recordBreach(result.cap);
    ctx.logger.warn(
      { socket: socket.id, code: result.code, reason: result.message },
      'authorization request refused',
    );
    return replyRequest(socket, ack, failure(result.code, result.message));
  }
  const r = result.request;
  // Clustered: visible to AUTHORIZATION_NEXT on every node before the requester hears back.
  await ctx.clusterRequests?.add(r);
  ctx.logger.info(
    {
      socket: socket.id,
      request_id: r.request_id,
      realm: r.realm,
      client_id: r.client_id,
      role: r.role,
    },
    'authorization request received',
  );
  replyRequest(socket, ack, { ok: true, request_id: r.request_id, status: 'pending' });
}

/** A requester back with its `request_id` (see the header). */
async function resume(
  ctx: HandlerContext,
  socket: BrokerSocket,
  payload: Record<string, unknown>,
  ack: Ack,
): Promise<void> {
  const { request_id: id, client_token: token } = payload;
  let found: AuthorizationRequest | null = ctx.authRequests.resume(id, token, socket.id);
  if (!found && ctx.clusterRequests && typeof id === 'string' && typeof token === 'string') {
    found = await ctx.clusterRequests.resume(id, tokenHash(token), socket.id);
  }
  if (!found) {
    ctx.logger.warn({ socket: socket.id }, 'authorization request to resume not found');
    return replyRequest(socket, ack, failure(404, RequestFailure.NOT_RESUMABLE));
  }
  const { request_id, status, realm, role, decision_reason: reason } = found;
  ctx.logger.info(
    { socket: socket.id, request_id, realm, status },
    'authorization request resumed',
  );
  if (status === 'pending') return replyRequest(socket, ack, { ok: true, request_id, status });
  const approved = status === 'approved';
  replyRequest(socket, ack, {
    ok: true,
    request_id,
    status,
    realm,
    ...(approved ? { role } : { reason }),
  });
  notifyRequester(socket, found, approved, role, reason);
}

const bodyOf = (payload: unknown): Record<string, unknown> => {
  const body = (payload as { body?: unknown } | null)?.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
};

export const handleAuthorizationNext: EventHandler<unknown> = (ctx, socket, payload, ack) => {
  guardAsync(ctx, socket, ClientEvent.AUTHORIZATION_NEXT, next(ctx, socket, payload, ack), ack);
};

async function next(
  ctx: HandlerContext,
  socket: BrokerSocket,
  payload: unknown,
  ack: Ack,
): Promise<void> {
  const filter = bodyOf(payload).realm;
  const realm = typeof filter === 'string' && filter !== '' ? filter : undefined;
  const verified = await verifyProof(ctx, SignedAction.AUTHORIZATION_NEXT, payload, { realm });
  if (!verified.ok) {
    ctx.logger.warn({ socket: socket.id, reason: verified.message }, 'AUTHORIZATION_NEXT refused');
    return reply(
      socket,
      ack,
      ServerEvent.AUTHORIZATION_FAIL,
      failure(verified.code, verified.message),
    );
  }
  ctx.limits.creditSignedEvent(socket, signedSize(payload));
  const scoped = verified.scope.kind === 'realm' ? verified.scope.realm : realm;
  // Clustered: the oldest pending request of the whole cluster, by created_at (§7.2).
  const found = ctx.clusterRequests
    ? await ctx.clusterRequests.next(scoped)
    : ctx.authRequests.next(scoped);
  reply(socket, ack, ServerEvent.AUTHORIZATION_NEXT_RESULT, {
    ok: true,
    request: found ? publicRequest(found) : null,
  });
}

export const handleAuthorizationDecide: EventHandler<unknown> = (ctx, socket, payload, ack) => {
  guardAsync(ctx, socket, ClientEvent.AUTHORIZATION_DECIDE, decide(ctx, socket, payload, ack), ack);
};

async function decide(
  ctx: HandlerContext,
  socket: BrokerSocket,
  payload: unknown,
  ack: Ack,
): Promise<void> {
  const body = bodyOf(payload);
  const shared = ctx.clusterRequests;
  const request = shared
    ? await shared.pending(body.request_id)
    : ctx.authRequests.pending(body.request_id);
  // The realm key that may sign is the stored request's, never one the caller names (§6.5).
  const verified = await verifyProof(ctx, SignedAction.AUTHORIZATION_DECIDE, payload, {
    realm: request?.realm,
  });
  const refuse = (code: number, message: string) => {
    ctx.logger.warn({ socket: socket.id, code, reason: message }, 'AUTHORIZATION_DECIDE refused');
    reply(socket, ack, ServerEvent.AUTHORIZATION_FAIL, failure(code, message));
  };
  if (!verified.ok) return refuse(verified.code, verified.message);
  ctx.limits.creditSignedEvent(socket, signedSize(payload));
  if (!request) return refuse(404, RequestFailure.NOT_FOUND);
  if (typeof body.approved !== 'boolean') return refuse(400, 'approved must be true or false');
  const reason = typeof body.reason === 'string' ? body.reason : null;
  const role =
    body.role === undefined || body.role === null || body.role === '' ? request.role : body.role;
  if (
    typeof role !== 'string' ||
    !(ROLES as readonly string[]).includes(role) ||
    role === 'admin'
  ) {
    return refuse(400, `Invalid role: use one of producer, consumer, both, manager`);
  }
  const decidedAt = Date.now();
  if (body.approved && ctx.auth.tokenByHash(request.client_token_hash)) {
    return refuse(409, 'client_token is already in use');
  }
  // The request on this node (the requester's), if it is still pending after the awaits.
  const local = ctx.authRequests.pending(request.request_id);
  // Clustered: claim the decision in the shared document first, so two managers on two
  // nodes cannot both decide (the loser gets the 404 of a request no longer pending).
  const claimed = shared
    ? await shared.decide(request, body.approved, role, reason, decidedAt)
    : local !== null;
  if (!claimed) return refuse(404, RequestFailure.NOT_FOUND);
  if (body.approved) {
    try {
      ctx.auth.update((draft) => {
        draft.tokens.push({
          token: request.client_token,
          realm: request.realm,
          role: role as (typeof ROLES)[number],
          client_id: request.client_id,
          client_name: request.client_name,
          approved_at: new Date(decidedAt).toISOString(),
        });
      }, 'approval');
    } catch (err) {
      return refuse(400, (err as Error).message);
    }
  }
  // Unclustered, `local` is `request` itself; clustered, the shared copy was updated by decide.
  if (local) ctx.authRequests.decide(local, body.approved, role, reason, decidedAt);
  ctx.logger.info(
    { request_id: request.request_id, realm: request.realm, role, approved: body.approved },
    'authorization request decided',
  );
  // Clustered, the requester may have come back on this node (`resume`) without a local copy.
  const requester = socket.nsp.sockets.get(request.socket_id);
  if (local || !shared || requester) {
    notifyRequester(requester, request, body.approved, role, reason);
  } else {
    // The requester is on another node: it hears it through `<prefix>:authreq:decided`.
    void shared.announce(request, body.approved, role, reason);
  }
  reply(socket, ack, ServerEvent.AUTHORIZATION_DECIDE_RESULT, {
    ok: true,
    request: publicRequest(request),
  });
}

/** `AUTHORIZATION_APPROVED` / `AUTHORIZATION_REJECTED` to the requester, if still connected. */
export function notifyRequester(
  requester: BrokerSocket | undefined,
  request: { request_id: string; realm: string },
  approved: boolean,
  role: string,
  reason: string | null,
): void {
  if (!requester?.connected) return;
  if (approved) {
    requester.emit(ServerEvent.AUTHORIZATION_APPROVED, {
      request_id: request.request_id,
      realm: request.realm,
      role,
    });
  } else {
    requester.emit(ServerEvent.AUTHORIZATION_REJECTED, {
      request_id: request.request_id,
      reason,
    });
  }
}
