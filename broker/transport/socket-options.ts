/**
 * The socket.io server options of the broker.
 *
 * Source: `spec/protocol-core.md` §1.1 — the options the stock tyo-mq launcher passes, so
 * every client that works with the reference works here: heartbeat 5 s / 10 s, Engine.IO v3
 * clients allowed. `maxHttpBufferSize` (bytes) comes from the settings (default 50 MiB, §18);
 * so do the heartbeat, `allowEIO3` and `cors`. Unlike the reference, CORS is closed by
 * default: browser origins are opt-in (`cors.origin`), enforced by `RequestGuard` (issue 8
 * item 13). Per-message deflate follows the `per_message_deflate` setting: off by default
 * (issue 7: a negotiated deflate makes every stock client compress its ≥ 1 KiB packets and
 * the broker inflate each one, a third of the throughput of a bare relay on 1→10 1 KiB);
 * `true` gives the reference's settings below.
 */
import type { ServerOptions } from 'socket.io';
import type { PerMessageDeflateSetting, Settings } from '../config/settings-schema';

/** socket.io heartbeat of the stock launcher (§1.1): ping every 5 s, 10 s to answer (ms). */
export const PING_INTERVAL_MS = 5_000;
export const PING_TIMEOUT_MS = 10_000;

type WsDeflateOptions = Exclude<ServerOptions['perMessageDeflate'], boolean | undefined>;

/**
 * The stock launcher's deflate (§1.1): threshold 2048 B, deflate chunk 8 KiB, inflate
 * windowBits 14 / memLevel 7, no context takeover, serverMaxWindowBits 10, 20 concurrent.
 */
export const REFERENCE_PER_MESSAGE_DEFLATE: WsDeflateOptions = {
  threshold: 2048,
  zlibDeflateOptions: { chunkSize: 8 * 1024 },
  zlibInflateOptions: { windowBits: 14, memLevel: 7 },
  clientNoContextTakeover: true,
  serverNoContextTakeover: true,
  serverMaxWindowBits: 10,
  concurrencyLimit: 20,
};

type ZlibSetting = {
  level?: number;
  mem_level?: number;
  window_bits?: number;
  chunk_size?: number;
};
const zlib = (z: ZlibSetting | undefined) =>
  z && {
    ...(z.level !== undefined && { level: z.level }),
    ...(z.mem_level !== undefined && { memLevel: z.mem_level }),
    ...(z.window_bits !== undefined && { windowBits: z.window_bits }),
    ...(z.chunk_size !== undefined && { chunkSize: z.chunk_size }),
  };

/** The `ws` `perMessageDeflate` option for a `per_message_deflate` setting. */
export function perMessageDeflateOptions(
  setting: PerMessageDeflateSetting,
): false | WsDeflateOptions {
  if (setting === false) return false;
  if (setting === true) return REFERENCE_PER_MESSAGE_DEFLATE;
  const r = REFERENCE_PER_MESSAGE_DEFLATE;
  return {
    threshold: setting.threshold ?? r.threshold,
    zlibDeflateOptions: zlib(setting.zlib_deflate_options) ?? r.zlibDeflateOptions,
    zlibInflateOptions: zlib(setting.zlib_inflate_options) ?? r.zlibInflateOptions,
    clientNoContextTakeover: setting.client_no_context_takeover ?? r.clientNoContextTakeover,
    serverNoContextTakeover: setting.server_no_context_takeover ?? r.serverNoContextTakeover,
    serverMaxWindowBits: setting.server_max_window_bits ?? r.serverMaxWindowBits,
    concurrencyLimit: setting.concurrency_limit ?? r.concurrencyLimit,
  };
}

/** The settings that shape the socket.io server, besides `max_http_buffer_size`. */
export type SocketServerSettings = Pick<
  Settings,
  'ping_interval' | 'ping_timeout' | 'allow_eio3' | 'cors' | 'per_message_deflate'
>;

/** The stock launcher's values (§1.1), with CORS open as the reference (for the bench relay). */
export const STOCK_SOCKET_SETTINGS: SocketServerSettings = {
  ping_interval: PING_INTERVAL_MS,
  ping_timeout: PING_TIMEOUT_MS,
  allow_eio3: true,
  cors: { origin: '*', methods: ['GET', 'POST'], credentials: true },
  per_message_deflate: false,
};

export function socketIoOptions(
  maxHttpBufferSize: number,
  server: SocketServerSettings = STOCK_SOCKET_SETTINGS,
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
    perMessageDeflate: perMessageDeflateOptions(server.per_message_deflate),
  };
}
