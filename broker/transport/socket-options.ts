/**
 * The socket.io server options of the broker.
 *
 * Source: `spec/protocol-core.md` §1.1 — the options the stock tyo-mq launcher passes, so
 * every client that works with the reference works here: heartbeat 5 s / 10 s, Engine.IO v3
 * clients allowed, CORS open, per-message deflate above 2 KiB with the reference's zlib
 * settings. `maxHttpBufferSize` (bytes) comes from the settings (default 50 MiB, §18).
 */
import type { ServerOptions } from 'socket.io';

/** socket.io heartbeat of the stock launcher (§1.1): ping every 5 s, 10 s to answer (ms). */
export const PING_INTERVAL_MS = 5_000;
export const PING_TIMEOUT_MS = 10_000;

export function socketIoOptions(maxHttpBufferSize: number): Partial<ServerOptions> {
  return {
    pingInterval: PING_INTERVAL_MS,
    pingTimeout: PING_TIMEOUT_MS,
    allowEIO3: true,
    serveClient: false,
    maxHttpBufferSize,
    cors: { origin: '*', methods: ['GET', 'POST'], credentials: true },
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
