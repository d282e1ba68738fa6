/**
 * Typed socket.io server and socket of the broker (style: socket.io typed event maps, so the
 * compiler checks event names).
 */
import type { Server, Socket } from 'socket.io';
import type { SessionCredential } from '../auth/session-credential';
import type { ClientToServerEvents, ServerToClientEvents } from '../../shared/protocol-events';

/** Per-socket data the broker keeps on `socket.data`. */
export interface SocketData {
  /** Realm granted by authentication; always `default` while auth is disabled (§1.4). */
  realm: string;
  /** Epoch ms of the last packet received (pongs included), for half-open detection (Note 5.2-A). */
  lastSeenAt: number;
  /** Producer names bound to this socket (all of them are released on disconnect, Note 15-A). */
  producers: Set<string>;
  /** Consumer names bound to this socket. */
  consumers: Set<string>;
  /**
   * Names registered on this socket by `CONSUMER` or `PRODUCER` (never by the implicit
   * bindings of `SUBSCRIBE`/`PRODUCE`); it only grows. The first condition of identity
   * ownership (`spec/protocol-extensions.md` §1.5, `extensions/identity-ownership.ts`).
   */
  registeredNames: Set<string>;
  /**
   * Whether the socket passed authentication (explicitly, implicitly §3.4, or because auth is
   * disabled §2.1). `spec/protocol-admin.md` §2.1.
   */
  authenticated: boolean;
  /** Role granted with the realm (§3.1); `both` while auth is disabled. */
  role: string;
  /** Realm declared by an earlier `AUTHENTICATION`, used by implicit admission (§2.3 step 4). */
  pendingRealm: string | null;
  /**
   * SHA-256 hex of the static token this session authenticated with, so revoking the token
   * disconnects it (§3.5 note, §18 item 7); null for every other kind of admission.
   */
  tokenHash: string | null;
  /**
   * SHA-256 hex of any token this session authenticated with (static, JWT, external): the
   * principal an E2EE identity is pinned to (`spec/protocol-extensions.md` Note 1.5-A); null
   * when admitted without a token (auth off, open realms, role-declared, implicit).
   */
  principal: string | null;
  /**
   * What admitted the session (a JWT with its expiry, a realm key, an external validator…), so
   * it ends when that credential expires or changes (issue 20); null when admitted without one.
   */
  credential: SessionCredential | null;
  /** Cancels the timer that ends the session at its credential's expiry; null when none. */
  cancelExpiry: (() => void) | null;
  /**
   * Admitted as a consumer (or `both`) with no token and no valid key into a realm requiring
   * auth, under its `allow_tokenless_consumers` opt-in (issue 20): the session ends when the
   * opt-in is withdrawn (auth/session-revocation.ts).
   */
  tokenless: boolean;
  /**
   * Events received while an `AUTHENTICATION` is being validated (JWT / external validator);
   * replayed in order once it is decided. Null when no validation is in flight.
   */
  authQueue: Array<{ event: string; raw: unknown; ack: unknown }> | null;
  /** Reliable delivery attempts written to this socket (ack-tracker.ts numbers them). */
  deliveriesSent: number;
  /**
   * `deliveriesSent` at the connection's last flush to its transport: a later attempt is still
   * in the broker's write buffer and, if the socket closes, never reached the consumer.
   */
  deliveriesFlushed: number;
}

export type BrokerServer = Server<ClientToServerEvents, ServerToClientEvents, object, SocketData>;
export type BrokerSocket = Socket<ClientToServerEvents, ServerToClientEvents, object, SocketData>;
