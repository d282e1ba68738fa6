/**
 * The per-event authorization gate run by the dispatcher before any payload work.
 *
 * Source: `spec/protocol-admin.md` §3.3 (matrix and refusals), §3.4 (implicit admission), §3.5
 * (requirements) and its hardening note (§18 item 1: implicit admission never enters realm
 * `*`); issue 20: an implicit consumer enters a realm requiring auth only where the realm sets
 * `allow_tokenless_consumers` (realm-policy.ts); `spec/protocol-core.md` §1.4. While auth is
 * disabled every socket is authenticated as `both` on connect (§2.1), so the gate costs one
 * property read and one set look-up per event.
 */
import {
  ClientEvent,
  Protocol,
  ServerEvent,
  type ClientEventName,
} from '../../shared/protocol-events';
import { admitSocket, socketCredentials } from './socket-admission';
import type { HandlerContext } from './handler-context';
import { RejectReason } from '../limits/limit-metrics';
import type { BrokerSocket } from '../transport/socket-types';
import {
  acceptanceRequired,
  authRequired,
  rolePasses,
  tokenlessConsumersAllowed,
  type EventGate,
} from '../auth/realm-policy';

/** §3.3: what each client event needs. `satisfies` keeps the table exhaustive. */
export const EVENT_GATES = {
  [ClientEvent.AUTHENTICATION]: 'none',
  [ClientEvent.AUTHORIZATION_REQUEST]: 'none',
  [ClientEvent.AUTHORIZATION_NEXT]: 'none',
  [ClientEvent.AUTHORIZATION_DECIDE]: 'none',
  [ClientEvent.AUTH_MANAGEMENT_COMMAND]: 'none',
  [ClientEvent.CONSUMER]: 'consumer',
  [ClientEvent.SUBSCRIBE]: 'consumer',
  [ClientEvent.UNSUBSCRIBE]: 'consumer',
  [ClientEvent.ACK]: 'consumer',
  [ClientEvent.PRODUCER]: 'producer',
  [ClientEvent.PRODUCE]: 'producer',
  [ClientEvent.PRODUCE_CHUNK]: 'producer',
  [ClientEvent.PING]: 'authenticated',
  [ClientEvent.HELLO]: 'authenticated',
  [ClientEvent.DEBUG]: 'authenticated',
  [ClientEvent.QUIT]: 'authenticated',
  // §3.3: any authenticated socket may ask for a /remote ticket.
  [ClientEvent.REMOTE_TICKET_REQUEST]: 'authenticated',
  // `spec/protocol-extensions.md` §1.4: any real role; a refusal also answers the callback
  // with the AUTH_FAIL payload (Note 1.4-A), as every refusal here does.
  [ClientEvent.KEY_PUBLISH]: 'authenticated',
  [ClientEvent.KEY_LOOKUP]: 'authenticated',
  [ClientEvent.PREKEY_PUBLISH]: 'authenticated',
  [ClientEvent.PREKEY_TAKE]: 'authenticated',
  [ClientEvent.SEALED_CERT_REQUEST]: 'authenticated',
  [ClientEvent.SEALED_UAK_SET]: 'authenticated',
  [ClientEvent.SEALED_DELIVER]: 'authenticated',
  [ClientEvent.SEALED_SUBSCRIBE]: 'authenticated',
  [ClientEvent.PUSH_REGISTER]: 'authenticated',
  [ClientEvent.PUSH_UNREGISTER]: 'authenticated',
} as const satisfies Record<ClientEventName, EventGate>;

/** Most events a socket may send while its `AUTHENTICATION` is being validated. */
export const MAX_QUEUED_DURING_AUTH = 256;

/**
 * Whether `event` may proceed on `socket` now (`raw`: its payload, replayed after an
 * asynchronous admission). A refusal has been answered (`AUTH_FAIL 401|403`,
 * plus the callback, if any, with the same code) and logged; the event must be dropped.
 * Unauthenticated sockets are admitted implicitly where §3.4 allows.
 */
export function passGate(
  ctx: HandlerContext,
  socket: BrokerSocket,
  event: ClientEventName,
  callback: ((reply: unknown) => void) | undefined,
  raw?: unknown,
): boolean {
  const gate: EventGate = EVENT_GATES[event];
  if (gate === 'none') return true;
  const data = socket.data;
  if (data.authenticated) {
    if (rolePasses(data.role, gate) || !authRequired(ctx.auth, data.realm)) return true;
    return refuse(
      ctx,
      socket,
      event,
      callback,
      403,
      `Role '${data.role}' is not allowed to send ${event}`,
    );
  }
  const realm = data.pendingRealm ?? Protocol.DEFAULT_REALM;
  let role: string | null = null;
  if (realm !== Protocol.ADMIN_REALM) {
    if (!authRequired(ctx.auth, realm)) role = 'both';
    else if (gate === 'consumer' && tokenlessConsumersAllowed(ctx.auth, realm)) role = 'consumer';
    else if (gate === 'producer' && !acceptanceRequired(ctx.auth, realm)) role = 'producer';
  }
  if (role === null) {
    return refuse(ctx, socket, event, callback, 401, `Authentication required before ${event}`);
  }
  // Admitted at once without an embedding `authenticate` hook; with one, this event runs again
  // (first in line) once the hook accepts the socket.
  let deciding = true;
  let now = false;
  admitSocket(
    ctx,
    socket,
    { realm, role, tokenHash: null, tokenless: role === 'consumer' },
    socketCredentials(socket),
    () => {
      ctx.logger.info({ socket: socket.id, realm, role, event }, 'socket admitted implicitly');
      if (deciding) now = true;
      else ctx.dispatch(socket, event, raw, callback);
    },
    (message) => refuse(ctx, socket, event, callback, 401, message),
  );
  deciding = false;
  return now;
}

function refuse(
  ctx: HandlerContext,
  socket: BrokerSocket,
  event: ClientEventName,
  callback: ((reply: unknown) => void) | undefined,
  code: 401 | 403,
  message: string,
): false {
  ctx.logger.warn(
    { socket: socket.id, realm: socket.data.realm, event, code },
    'event refused by auth gate',
  );
  ctx.limits.rejectedInput(RejectReason.UNAUTHORIZED);
  ctx.clients?.authFailed(socket, message);
  socket.emit(ServerEvent.AUTH_FAIL, { code, message });
  callback?.({ ok: false, code, message });
  return false;
}
