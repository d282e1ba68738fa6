/**
 * The socket.io server options of the broker.
 *
 * Source: `spec/protocol-core.md` §1.1 — the options the stock tyo-mq launcher passes, so
 * every client that works with the reference works here: heartbeat 5 s / 10 s, Engine.IO v3
 * clients allowed, per-message deflate above 2 KiB with the reference's zlib settings.
 * `maxHttpBufferSize` (bytes) comes from the settings (default 50 MiB, §18); so do the
 * heartbeat, `allowEIO3` and `cors`. Unlike the reference, CORS is closed by default: browser
 * origins are opt-in (`cors.origin`), enforced by `RequestGuard` (issue 8 item 13).
 */
import type { ServerOptions } from 'socket.io';
import type { Settings } from '../config/settings-schema';

/** socket.io heartbeat of the stock launcher (§1.1): ping every 5 s, 10 s to answer (ms). */
export const PING_INTERVAL_MS = 5_000;
export const PING_TIMEOUT_MS = 10_000;

/** The settings that shape the socket.io server, besides `max_http_buffer_size`. */
export type SocketServerSettings = Pick<
  Settings,
  'ping_interval' | 'ping_timeout' | 'allow_eio3' | 'cors'
>;

/** The stock launcher's values (§1.1), with CORS open as the reference (for the bench relay). */
const STOCK: SocketServerSettings = {
  ping_interval: PING_INTERVAL_MS,
  ping_timeout: PING_TIMEOUT_MS,
  allow_eio3: true,
  cors: { origin: '*', methods: ['GET', 'POST'], credentials: true },
};

export function socketIoOptions(
  maxHttpBufferSize: number,
  server: SocketServerSettings = STOCK,
): Partial<ServerOptions> {
  const { origin, methods, credentials } = server.cors;
  return {
    pingInterval: server.ping_interval,
    pingTimeout: server.ping_timeout,
    allowEIO3: server.allow_eio3,
    serveClient: false,
    maxHttpBufferSize,
    // `false` sends no CORS headers at all; `RequestGuard` refuses what is not allowed.
    cors: { origin, methods, credentials },
    perMessageDeflate: {
      threshold: 2048,
      zlibDeflateOptions: { chunkSize: 8 * 1024 },
      zlibInflateOptions: { windowBits: 14, memLevel: 7 },
      clientNoContextTakeover: true,
      serverNoContextTakeover: true,
      serverMaxWindowBits: 10,
      concurrencyLimit: 20,
    },
  };
}
