/**
 * The bundled `/remote` namespace (`spec/protocol-admin.md` §16.2): a one-time-ticket relay
 * between the *agent* and the *viewers* of a session.
 *
 * - `auth {ticket, session_id?, role?}`: the ticket must exist and be unexpired (single use);
 *   an optional session/role must match → `auth_ok {session_id, role}` and the socket joins its
 *   side of the session; else `auth_error {message}` and disconnect. A socket that never
 *   authenticates is dropped after `auth_timeout_ms` (hardening).
 * - Sessions are keyed by (realm of the ticket, session_id) (hardening of the §16.2 Note).
 * - After `auth`, every event is relayed per the rule table (`remote-options.ts`); `auth`,
 *   `auth_ok`, `auth_error` and socket.io's reserved names are never relayed, and ack callbacks
 *   are stripped (a peer cannot make another peer call back into it).
 * - Under a `binary` rule, exactly one binary argument reaches the peers, or nothing
 *   (`spec/protocol-extensions.md` §8, Note 8-A: `legacy-frame.ts`): the first argument when it
 *   is binary, or an older agent's `{frame: "<base64>"}` decoded; anything else is dropped.
 */
import type { Socket } from 'socket.io';
import { RemoteErrorText, RemoteEvent, REMOTE_NAMESPACE } from '../../../shared/protocol-events';
import type { Logger } from '../../logging/logger';
import type { BrokerServer } from '../../transport/socket-types';
import { binaryRelayPayload } from './legacy-frame';
import { remoteOptions, type RelayRule } from './remote-options';
import type { RemoteRole, TicketStore } from './ticket-store';

/** Event names never relayed (ours and socket.io's reserved ones). */
const NEVER_RELAYED = new Set<string>([
  RemoteEvent.AUTH,
  RemoteEvent.AUTH_OK,
  RemoteEvent.AUTH_ERROR,
  'connect',
  'connect_error',
  'disconnect',
  'disconnecting',
  'error',
  'newListener',
  'removeListener',
]);

const room = (realm: string, sessionId: string, side: 'agent' | 'viewers') =>
  // JSON keeps realm and session apart whatever characters they contain.
  `session:${JSON.stringify([realm, sessionId])}:${side}`;

function target(rule: RelayRule, from: RemoteRole): 'agent' | 'viewers' {
  if (rule.to === 'opposite') return from === 'agent' ? 'viewers' : 'agent';
  return rule.to;
}

/**
 * Attaches `/remote` to `io`. `readOptions` returns the live `remote` block. Returns nothing
 * (the namespace exposes no api).
 */
export function attachRemote(
  io: BrokerServer,
  tickets: TicketStore,
  readOptions: () => unknown,
  logger: Logger,
): void {
  const nsp = io.of(REMOTE_NAMESPACE);
  tickets.start(remoteOptions(readOptions()).ticketCleanupMs);
  nsp.on('connection', (socket: Socket) => {
    let session: { realm: string; id: string; role: RemoteRole } | null = null;
    const timeout = setTimeout(() => {
      if (!session) socket.disconnect(true);
    }, remoteOptions(readOptions()).authTimeoutMs);
    timeout.unref();
    socket.once('disconnect', () => clearTimeout(timeout));

    const fail = (message: string) => {
      socket.emit(RemoteEvent.AUTH_ERROR, { message });
      socket.disconnect(true);
    };

    socket.on(RemoteEvent.AUTH, (payload: unknown) => {
      if (session) return;
      const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<
        string,
        unknown
      >;
      const ticket = tickets.consume(p.ticket);
      if (!ticket) return fail(RemoteErrorText.INVALID_TICKET);
      const wantedSession = p.session_id ?? p.sessionId;
      if (wantedSession != null && wantedSession !== ticket.sessionId) {
        return fail(RemoteErrorText.SESSION_MISMATCH);
      }
      if (p.role != null && p.role !== ticket.role) return fail(RemoteErrorText.ROLE_MISMATCH);
      session = { realm: ticket.realm, id: ticket.sessionId, role: ticket.role };
      clearTimeout(timeout);
      void socket.join(
        room(ticket.realm, ticket.sessionId, ticket.role === 'agent' ? 'agent' : 'viewers'),
      );
      socket.emit(RemoteEvent.AUTH_OK, { session_id: ticket.sessionId, role: ticket.role });
      logger.info(
        { socket: socket.id, realm: ticket.realm, session: ticket.sessionId, role: ticket.role },
        'remote peer joined',
      );
    });

    socket.onAny((event: string, ...args: unknown[]) => {
      if (!session || typeof event !== 'string' || NEVER_RELAYED.has(event)) return;
      const options = remoteOptions(readOptions());
      const rule = Object.prototype.hasOwnProperty.call(options.relay, event)
        ? options.relay[event]!
        : options.relayUnlisted
          ? ({ from: 'any', to: 'opposite', binary: false, enabled: true } as const)
          : null;
      if (!rule?.enabled) return;
      if (rule.from !== 'any' && rule.from !== session.role) return;
      // Ack callbacks stay here: a peer must not be able to call back into another.
      const data = args.filter((a) => typeof a !== 'function');
      const to = socket.to(room(session.realm, session.id, target(rule, session.role)));
      if (!rule.binary) return void to.emit(event, ...data);
      // §8: one binary argument (a legacy `{frame: base64}` decoded), or nothing at all.
      const bytes = binaryRelayPayload(args);
      if (bytes) to.emit(event, bytes);
    });
  });
}
