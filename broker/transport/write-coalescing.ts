/**
 * Coalesced socket writes (issue 7): every WebSocket frame a connection sends during one
 * event-loop turn leaves in one `writev` instead of one system call per frame.
 *
 * engine.io hands each flush of a connection's packet buffer to `ws`, which writes every frame
 * to the TCP socket at once. On the connection's first flush in a turn its TCP socket is
 * corked, and every socket corked this turn is uncorked in the check phase (`setImmediate`),
 * so frames are delayed by less than one turn. A durable consumer that gets 50 deliveries and
 * 50 `ACK_OK`s in a turn then costs one write, not 100. Polling connections are left alone.
 *
 * Reaches one private field of `ws` (`WebSocket._socket`, the `net.Socket`); if a future
 * version renames it, this does nothing rather than fail.
 */
import type { Socket as NetSocket } from 'node:net';
import type { BrokerSocket } from './socket-types';

/** TCP sockets corked this turn, with the bytes they already held when corked. */
const corked = new Map<NetSocket, number>();
let uncorkScheduled = false;

function uncorkAll(): void {
  uncorkScheduled = false;
  for (const raw of corked.keys()) raw.uncork();
  corked.clear();
}

/** The TCP socket under a WebSocket connection, or null (polling, or unknown internals). */
function tcpSocket(socket: BrokerSocket): NetSocket | null {
  const transport = socket.conn.transport as { name?: string; socket?: { _socket?: unknown } };
  if (transport.name !== 'websocket') return null;
  const raw = transport.socket?._socket as NetSocket | undefined;
  return raw && typeof raw.cork === 'function' && !raw.destroyed ? raw : null;
}

/**
 * Corks `socket`'s TCP socket for the rest of the turn whenever engine.io flushes to it.
 * `onFlush`, when given, runs first at each flush: one `flush` listener per connection rather
 * than two, because `EventEmitter.emit` copies the listener array on every emit once there are
 * several, and a flush happens for every delivery and every heartbeat ping (issue 25 item 1).
 */
export function coalesceWrites(socket: BrokerSocket, onFlush?: () => void): void {
  socket.conn.on('flush', () => {
    onFlush?.();
    const raw = tcpSocket(socket);
    if (raw === null || corked.has(raw)) return;
    corked.set(raw, raw.writableLength);
    raw.cork();
    if (!uncorkScheduled) {
      uncorkScheduled = true;
      setImmediate(uncorkAll);
    }
  });
}

/**
 * The part of a WebSocket's `bufferedAmount` (bytes) that the peer has not drained since earlier
 * turns: frames written this turn sit corked in the TCP socket until the check phase and are
 * not a backlog (back-pressure must not count a burst it is about to send).
 */
export function backlogBytes(socket: BrokerSocket, bufferedAmount: number): number {
  const raw = tcpSocket(socket);
  const before = raw ? corked.get(raw) : undefined;
  return before === undefined ? bufferedAmount : Math.min(before, bufferedAmount);
}
