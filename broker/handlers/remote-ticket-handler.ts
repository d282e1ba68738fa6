/**
 * `REMOTE_TICKET_REQUEST` on `/` (`spec/protocol-admin.md` §1, §16.2): issues a one-time ticket
 * for the `/remote` namespace in the socket's realm. Reply through the ack **and** the event
 * (`REMOTE_TICKET` / `REMOTE_TICKET_FAIL`): `{ok, session_id, ticket, role, expires_in}` with
 * `expires_in` the configured TTL in seconds.
 */
import { ServerEvent, type RemoteTicketReply } from '../../shared/protocol-events';
import { remoteOptions } from '../namespaces/remote/remote-options';
import { newSessionId, type TicketRefusal } from '../namespaces/remote/ticket-store';
import type { EventHandler } from './handler-context';

const MAX_FIELD = 128;
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The 429 message of each bound (docs/namespaces.md). */
const TICKET_REFUSAL: Record<TicketRefusal, string> = {
  total: 'Too many outstanding remote tickets',
  socket: 'Too many outstanding remote tickets for this connection',
  ip: 'Too many outstanding remote tickets for this address',
  realm: 'Too many outstanding remote tickets in this realm',
};

function reply(
  socket: Parameters<EventHandler<unknown>>[1],
  r: RemoteTicketReply,
  ack: ((x: unknown) => void) | undefined,
): void {
  ack?.(r);
  socket.emit(r.ok ? ServerEvent.REMOTE_TICKET : ServerEvent.REMOTE_TICKET_FAIL, r);
}

export const handleRemoteTicketRequest: EventHandler<unknown> = (ctx, socket, payload, ack) => {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<
    string,
    unknown
  >;
  const requested = p.session_id ?? p.sessionId;
  if (
    requested !== undefined &&
    requested !== null &&
    !(typeof requested === 'string' && SESSION_ID.test(requested))
  ) {
    reply(socket, { ok: false, code: 400, message: 'Invalid session_id' }, ack);
    return;
  }
  const options = remoteOptions(ctx.settings.remote);
  const owner = { socket: socket.id, ip: ctx.limits.clientIp(socket) };
  const full = ctx.remoteTickets.refusal(owner, socket.data.realm, options.ticketQuotas);
  if (full) {
    reply(socket, { ok: false, code: 429, message: TICKET_REFUSAL[full] }, ack);
    return;
  }
  const machine = p.machine_id ?? p.machineId ?? p.client_id ?? p.clientId;
  const machineId = typeof machine === 'string' ? machine.slice(0, MAX_FIELD) : null;
  const role = p.role === 'viewer' ? 'viewer' : 'agent';
  const sessionId = typeof requested === 'string' ? requested : newSessionId();
  const { ticketTtlMs } = options;
  const t = ctx.remoteTickets.issue(
    socket.data.realm,
    sessionId,
    role,
    ticketTtlMs,
    machineId,
    owner,
  );
  ctx.logger.debug(
    { socket: socket.id, realm: t.realm, session: sessionId, role },
    'remote ticket issued',
  );
  reply(
    socket,
    {
      ok: true,
      session_id: sessionId,
      ticket: t.ticket,
      role,
      expires_in: Math.ceil(ticketTtlMs / 1000),
    },
    ack,
  );
};
