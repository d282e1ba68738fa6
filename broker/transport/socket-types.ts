/**
 * Typed socket.io server and socket of the broker (style: socket.io typed event maps, so the
 * compiler checks event names).
 */
import type { Server, Socket } from 'socket.io';
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
}

export type BrokerServer = Server<ClientToServerEvents, ServerToClientEvents, object, SocketData>;
export type BrokerSocket = Socket<ClientToServerEvents, ServerToClientEvents, object, SocketData>;
