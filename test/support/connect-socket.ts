/** Test helper: a plain socket.io client to a broker, connected (no reconnection). */
import { io, type Socket } from 'socket.io-client';

/**
 * Opens a websocket-only socket.io connection to `url`, pushes it on `track` (the test closes
 * every tracked socket afterwards) and resolves once connected; rejects on `connect_error`.
 */
export async function connectSocket(url: string, track: Socket[]): Promise<Socket> {
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  track.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}
