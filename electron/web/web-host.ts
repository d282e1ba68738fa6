/**
 * The web host: the ConsoleApi over HTTP + WebSocket on a loopback port, plus the built renderer.
 *
 *   POST /console-api/call/<method>   body: the method's JSON input (≤ 64 KiB, empty = {};
 *     a definitions import ≤ DEFINITIONS_MAX_BODY_BYTES, shared/console-api-definitions.ts)
 *     headers: Authorization: Bearer <secret>, Content-Type: application/json
 *     200 {ok:true, value} | <catalogue status> {ok:false, error:{code, message}}
 *   GET  /console-api/events          WebSocket, see event-socket.ts
 *   GET  /…                           files of the built renderer (index.html with a strict CSP)
 *
 * Dangerous calls (approve, revoke, remove realm, discard dead letters) need a confirmation
 * token from `confirmCall` first (`shared/console-api-confirm.ts`).
 * Every error, static files included, is answered as `{ok:false, error:{code, message}}` with the
 * catalogue's status.
 * Every request must name this host in `Host` (DNS-rebinding guard); API requests with an
 * `Origin` must come from this host's own origin. Source: ARCHITECTURE §1 (web host) and
 * `shared/console-api.ts` (ConsoleChannel).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConsoleChannel,
  type ConsoleMethodName,
  type ConsoleService,
  type Result,
} from '../../shared/console-api';
import { DEFINITIONS_MAX_BODY_BYTES } from '../../shared/console-api-definitions';
import { MQTT_PUBLISH_MAX_BODY_BYTES } from '../../shared/console-api-mqtt-publish';
import { PUBLISH_MAX_BODY_BYTES } from '../../shared/console-api-tap';
import {
  ErrorCatalogue,
  errorInfo,
  type ErrorCode,
  type ErrorInfo,
} from '../../shared/error-catalogue';
import { ConfirmationGate } from '../services/confirmation-gate';
import { dispatchConsoleCall, isConsoleMethodName } from '../services/console-dispatch';
import { attachEventSocket } from './event-socket';
import { serveStatic } from './static-files';
import {
  bearerToken,
  generateSecret,
  HostPolicy,
  secretsEqual,
  setSecurityHeaders,
} from './web-security';

/** Largest accepted API request body, in bytes, unless `BODY_LIMITS` names the method. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The calls that carry a whole file or message, with their own larger limit (trial findings
 * 15, 20): a definitions file, a test message up to the publishers' own caps.
 */
export const BODY_LIMITS: Partial<Record<ConsoleMethodName, number>> = {
  previewDefinitions: DEFINITIONS_MAX_BODY_BYTES,
  applyDefinitions: DEFINITIONS_MAX_BODY_BYTES,
  publishMessage: PUBLISH_MAX_BODY_BYTES,
  publishMqtt: MQTT_PUBLISH_MAX_BODY_BYTES,
};

/** The subset of a pino logger the host uses. */
export interface HostLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface WebHostOptions {
  service: ConsoleService;
  /** Directory of the built renderer (contains index.html). */
  staticDir: string;
  /** Bind address. Default `127.0.0.1`. */
  host?: string;
  /** Port; 0 = any free port. Default 0. */
  port?: number;
  /** Per-launch secret. Default: 256 random bits. */
  secret?: string;
  logger?: HostLogger;
  /** Confirmation tokens of dangerous calls (confirmation-gate.ts). Default: a new gate that
   * mints on request — the page's own confirm step is the gesture. */
  confirmations?: ConfirmationGate;
}

/** Where the host listens, and the URL to open (the secret rides in the fragment, never sent). */
export interface WebHostAddress {
  port: number;
  origin: string;
  url: string;
}

export interface WebHost {
  readonly secret: string;
  /** Listens; rejects with the server error (e.g. `EADDRINUSE`). */
  listen(): Promise<WebHostAddress>;
  /** Closes the event sockets and the HTTP server (open connections are dropped). */
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message);
  }
}

export function createWebHost(options: WebHostOptions): WebHost {
  const secret = options.secret ?? generateSecret();
  const bindHost = options.host ?? '127.0.0.1';
  const confirmations = options.confirmations ?? new ConfirmationGate();
  let policy: HostPolicy | null = null;

  const server = http.createServer((req, res) => {
    setSecurityHeaders(res);
    handle(req, res).catch((error: unknown) => {
      options.logger?.error({ err: error, url: req.url }, 'web host request failed');
      if (!res.headersSent) sendResult(res, { ok: false, error: errorInfo('SWB_ERR_INTERNAL') });
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const closeSockets = attachEventSocket(server, {
    service: options.service,
    secret,
    policy: () => policy,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!policy?.hostAllowed(req.headers.host)) {
      return sendResult(res, {
        ok: false,
        error: errorInfo('SWB_ERR_FORBIDDEN_ORIGIN', 'Host not allowed'),
      });
    }
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname.startsWith(ConsoleChannel.CALL_PREFIX)) {
      return handleCall(req, res, pathname.slice(ConsoleChannel.CALL_PREFIX.length));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendResult(res, { ok: false, error: errorInfo('SWB_ERR_NOT_FOUND') });
    }
    const error = await serveStatic(
      req,
      res,
      options.staticDir,
      pathname,
      policy.contentSecurityPolicy(),
    );
    if (error) sendResult(res, { ok: false, error });
  }

  async function handleCall(
    req: IncomingMessage,
    res: ServerResponse,
    rawMethod: string,
  ): Promise<void> {
    try {
      if (!policy?.originAllowed(req.headers.origin)) throw fail('SWB_ERR_FORBIDDEN_ORIGIN');
      if (req.method !== 'POST') throw fail('SWB_ERR_NOT_FOUND', 'Console API calls use POST');
      const token = bearerToken(req.headers);
      if (token === null || !secretsEqual(token, secret)) throw fail('SWB_ERR_UNAUTHORIZED');
      const method = safeDecode(rawMethod);
      if (!isConsoleMethodName(method)) {
        throw fail(
          'SWB_ERR_UNKNOWN_METHOD',
          `Unknown console method: ${JSON.stringify(method.slice(0, 64))}`,
        );
      }
      const input = await readJsonBody(req, BODY_LIMITS[method] ?? MAX_BODY_BYTES);
      const result = await dispatchConsoleCall(
        options.service,
        method,
        input,
        (error) => options.logger?.error({ err: error, method }, 'console method failed'),
        confirmations,
      );
      sendResult(res, result);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      sendResult(res, { ok: false, error: error.info });
    }
  }

  return {
    secret,
    listen: () =>
      new Promise<WebHostAddress>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, bindHost, () => {
          server.off('error', reject);
          const { port } = server.address() as AddressInfo;
          policy = new HostPolicy(bindHost, port);
          const shownHost = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost;
          const origin = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
          resolve({ port, origin, url: `${origin}/#token=${secret}` });
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        closeSockets();
        server.closeAllConnections();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}

function fail(code: ErrorCode, message?: string): HttpError {
  return new HttpError(errorInfo(code, message));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Reads a JSON body of at most `limit` bytes; empty means `{}`. */
async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? 0);
  const tooLarge = () =>
    fail('SWB_ERR_PAYLOAD_TOO_LARGE', `Payload too large: this call takes at most ${limit} bytes`);
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  if (size === 0) return {};
  // Requiring JSON keeps HTML forms (which cannot send application/json) out entirely.
  if (type !== 'application/json')
    throw fail('SWB_ERR_VALIDATION', 'Content-Type must be application/json');
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw fail('SWB_ERR_VALIDATION', 'Body is not valid JSON');
  }
}

function sendResult(res: ServerResponse, result: Result<unknown>): void {
  const status = result.ok ? 200 : ErrorCatalogue[result.error.code].status;
  const body = JSON.stringify(result);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  // A refused request may still be sending its body: do not keep reading it.
  if (!result.ok) res.setHeader('Connection', 'close');
  res.end(body);
}
