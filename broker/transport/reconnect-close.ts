/**
 * Ending a session so that its client comes back (issue 19): the transport is closed — as a
 * network drop or a restart would — with no socket.io `DISCONNECT` packet, which stock clients
 * treat as final. The client reconnects with its back-off and authenticates again, so this is
 * the way to end a session whose admission must be decided anew (a renamed realm, auth turned
 * on). Where ending the client is the intent (a revoked token, a removed realm),
 * `socket.disconnect(true)` stays.
 */
import type { BrokerSocket } from './socket-types';

/**
 * Closes `socket`'s transport; the socket counts as unauthenticated at once, so nothing it
 * sends before the close completes is served and session watchers skip it. Never throws.
 */
export function closeForReconnect(socket: BrokerSocket): void {
  socket.data.authenticated = false;
  try {
    socket.conn.close();
  } catch {
    // Already closed.
  }
}
