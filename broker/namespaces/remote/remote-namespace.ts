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
 * - Under a `binary` rule, ArrayBuffers and typed arrays reach the peers as Buffers (binary
 *   attachments), and so does an older agent's `frame` in its JSON form `{frame: "<base64>"}`:
 *   the base64 text is decoded and viewers get the bytes, as from the reference (§16.2 "base64
 *   `{frame}` or binary → Buffer").
 */
import type { Socket } from 'socket.io';
import { RemoteErrorText, RemoteEvent, REMOTE_NAMESPACE } from '../../../shared/protocol-events';
import type { Logger } from '../../logging/logger';
import type { BrokerServer } from '../../transport/socket-types';
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

/** The built-in event whose legacy JSON form carries base64 (§16.2). */
export const FRAME_EVENT = 'frame';

function asBuffer(arg: unknown): unknown {
  if (arg instanceof ArrayBuffer) return Buffer.from(arg);
  if (ArrayBuffer.isView(arg) && !Buffer.isBuffer(arg)) {
    return Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength);
  }
  return arg;
}

/**
 * An argument of `frame` as viewers receive it: `{frame: "<base64>"}` (older agents, which
 * could not send binary) becomes the decoded Buffer; anything else as `asBuffer`. Base64 is
 * decoded leniently, as Node does (characters outside the alphabet are skipped), so a frame
 * never throws.
 */
function frameAsBuffer(arg: unknown): unknown {
  if (typeof arg === 'object' && arg !== null && !ArrayBuffer.isView(arg)) {
    const text = (arg as { frame?: unknown }).frame;
    if (typeof text === 'string') return Buffer.from(text, 'base64');
  }
  return asBuffer(arg);
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
      const out = rule.binary ? data.map(event === FRAME_EVENT ? frameAsBuffer : asBuffer) : data;
      socket.to(room(session.realm, session.id, target(rule, session.role))).emit(event, ...out);
    });
  });
}
