/**
 * Ends every engine.io connection the way a network drop would (issue 19): each connection
 * flushes the packets it is owed (publisher confirms, `ACK_OK`s), then its transport closes —
 * a WebSocket close frame, or engine.io's `close` packet on polling — with no socket.io
 * `DISCONNECT` packet. Stock socket.io clients treat a server `DISCONNECT` as final and never
 * reconnect; a closed transport ("transport close") they retry with their reconnection
 * back-off, so after a restart or a deploy every producer and consumer comes back and
 * re-subscribes by itself. The reference shuts down the same way.
 */
import type { BrokerServer } from './socket-types';

/** How an engine.io connection is closed (engine.io `Socket`). */
interface EngineConnection {
  readyState: string;
  close(discard?: boolean): void;
  once(event: 'close', listener: () => void): void;
}

/**
 * Closes every engine.io connection of `io`'s engine (all namespaces), waiting at most
 * `timeoutMs` for them to flush and close; resolves with how many were still open then (the
 * caller drops their TCP connections). Never rejects.
 */
export function closeTransports(io: BrokerServer, timeoutMs: number): Promise<number> {
  // `clients` is protected in engine.io's types but public at run time (and documented).
  const engine = io.engine as unknown as { clients?: Record<string, EngineConnection> } | undefined;
  const clients = Object.values(engine?.clients ?? {});
  const open = clients.filter((c) => c.readyState === 'open' || c.readyState === 'opening');
  if (open.length === 0) return Promise.resolve(0);
  return new Promise((resolve) => {
    let left = open.length;
    const timer = setTimeout(() => resolve(left), timeoutMs);
    for (const conn of open) {
      conn.once('close', () => {
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          resolve(0);
        }
      });
      try {
        // Without `discard`: engine.io waits for its write buffer to drain first.
        conn.close();
      } catch {
        // Already gone; its 'close' has fired or will.
      }
    }
  });
}
