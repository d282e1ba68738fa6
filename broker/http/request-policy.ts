/**
 * The one request policy of the broker's ports (issue 19; issue 8 item 13 before it): every
 * HTTP request and upgrade — the engine.io handshake, each polling GET/POST of a session, the
 * WebSocket upgrade, the HTTP API, and the MQTT-over-WebSocket listener — passes `check()`.
 *
 * The reference accepts every `Origin` (CORS `*`, `spec/protocol-core.md` §1.1) and every
 * `Host`: any web page open in the user's browser can subscribe to a local broker, read its
 * messages and produce forged ones, and through DNS rebinding read `/api/stats` and the DLQ.
 * Checking the handshake alone is not enough: the JSONP transport answers it as a script a
 * page loads with `<script>` (no `Origin` is sent), and every later request names the session
 * id. So, in this order:
 *
 * 1. **JSONP** (`j=` in an engine.io query) is refused outright. No current socket.io client
 *    needs it (v2 fell back to it only without XHR), and it is exactly the hole above.
 * 2. **Host.** DNS rebinding makes a hostile page same-origin, with no `Origin` on a `GET`;
 *    what gives it away is `Host` naming the attacker's domain. `Host` must be a loopback name
 *    (`localhost`, `*.localhost`), an IP literal (a rebinding needs a domain name), the bound
 *    address, or listed in `allowed_hosts`. Checked when auth is off or the broker is bound to
 *    loopback; a request without `Host` (HTTP/1.0 tools) is not a browser and passes.
 * 3. **Origin** is allowed when it is absent (the stock Node and C# clients), same-origin (its
 *    `host:port` is the request's own `Host`, which passed step 2 — what the Python client's
 *    WebSocket library sends), a loopback origin (`http(s)://localhost:*`, `127.0.0.1`,
 *    `[::1]`: a page served from this machine, such as the reference's web manager on another
 *    port), or listed in `cors.origin`; `cors.origin: "*"` allows every origin (the
 *    reference's behaviour, opt-in). The rule is the same with auth on or off: credentials
 *    protect realms, this protects the user's browser from the pages it opens.
 *
 * Everything else is refused with **403** (HTTP: a JSON body `{code, message}` as engine.io
 * answers; upgrade: `403 Forbidden` with the reason as plain text), counted in
 * `tyo_mq_rejected_inputs_total{reason="forbidden_origin"|"forbidden_host"|"jsonp"}`, and
 * logged at most once per 10 s per offending value, naming the setting that would allow it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isLoopbackHost } from '../../shared/loopback';
import type { Settings } from '../config/settings-schema';
import type { Logger } from '../logging/logger';
import { RejectReason, type RejectReasonValue } from '../limits/limit-metrics';
import { RefusalLog, type Refusal } from './refusal-log';

/** The HTTP status of every refusal of this policy (documented in docs/configuration.md). */
export const REFUSED_STATUS = 403;
/** The status of a new session asked for while the broker shuts down (clients retry). */
export const CLOSING_STATUS = 503;

/** What the policy reports refusals to (the broker's counter). */
export interface RefusalSink {
  rejectedInput(reason: RejectReasonValue): void;
}

/** The hostname of a `Host` header, lower-cased, without port or IPv6 brackets; null if bad. */
export function hostnameOf(host: string): string | null {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/i.exec(host.trim());
  if (!m) return null;
  return (m[1] ?? m[2]!).toLowerCase().replace(/\.$/, '');
}

/** `host[:port]` of a `Host` header, lower-cased, without a scheme's default port. */
function authorityOf(host: string, scheme: 'http:' | 'https:'): string {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/\.(?=:|$)/, '');
  const defaultPort = scheme === 'https:' ? ':443' : ':80';
  return h.endsWith(defaultPort) ? h.slice(0, -defaultPort.length) : h;
}

/** The parsed origin (`scheme://host[:port]`), or null when it is not one (`null`, garbage). */
function parseOrigin(origin: string): URL | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** True for an engine.io request asking for the JSONP transport (`j=` in the query). */
export function isJsonpRequest(url: string | undefined): boolean {
  if (!url) return false;
  const q = url.indexOf('?');
  return q >= 0 && new URLSearchParams(url.slice(q + 1)).has('j');
}

export class RequestPolicy {
  private bindHost: string | null = null;
  private closing = false;
  private cached: { cors: Settings['cors']; origins: ReadonlySet<string> | 'any' } | null = null;
  private cachedHosts: { list: string[]; set: ReadonlySet<string> } | null = null;
  private readonly log: RefusalLog;

  /**
   * `settings` reads the live settings (`cors.origin`, `allowed_hosts` apply on reload);
   * `authEnabled` the live auth switch. Refusals are counted in `sink` and logged on `logger`.
   */
  constructor(
    private readonly settings: () => Settings,
    private readonly authEnabled: () => boolean,
    private readonly sink?: RefusalSink,
    logger?: Logger,
  ) {
    this.log = new RefusalLog(logger);
  }

  /** Records the address `listen()` bound (null when attached to someone else's server). */
  bound(host: string | null): void {
    this.bindHost = host === null ? null : (hostnameOf(host) ?? host.toLowerCase());
  }

  /** From now on new engine.io sessions get 503 (the broker is shutting down). */
  shutdown(): void {
    this.closing = true;
  }

  /** Whether the `Host` check applies: auth off, or bound to loopback. */
  get hostCheckEnabled(): boolean {
    return !this.authEnabled() || (this.bindHost !== null && isLoopbackHost(this.bindHost));
  }

  /** True when a request naming `host` may be served. */
  hostAllowed(host: string | undefined): boolean {
    if (host === undefined || !this.hostCheckEnabled) return true;
    const name = hostnameOf(host);
    if (name === null) return false;
    return (
      name === 'localhost' ||
      name.endsWith('.localhost') ||
      isIP(name) !== 0 ||
      name === this.bindHost ||
      this.allowedHosts().has(name)
    );
  }

  /**
   * True when `origin` may use the broker: absent, same-origin with `host` (the request's
   * `Host`), a loopback origin, or allowed by `cors.origin`.
   */
  originAllowed(origin: string | undefined, host?: string): boolean {
    if (origin === undefined) return true;
    if (this.crossOriginAllowed(origin)) return true;
    const url = parseOrigin(origin);
    return (
      url !== null &&
      host !== undefined &&
      url.host === authorityOf(host, url.protocol as 'http:' | 'https:')
    );
  }

  /**
   * The origins a browser may read responses from (CORS): loopback ones and `cors.origin`.
   * Same-origin requests need no CORS header. Used as socket.io's `cors.origin` function.
   */
  readonly corsOrigin = (
    origin: string | undefined,
    callback: (err: Error | null, allow?: boolean) => void,
  ): void => {
    callback(null, origin !== undefined && this.crossOriginAllowed(origin));
  };

  /** Why `req` is refused (Host, then Origin), or null when it may proceed. */
  check(req: IncomingMessage): Refusal | null {
    const { host, origin } = req.headers;
    if (!this.hostAllowed(host)) {
      return {
        reason: RejectReason.FORBIDDEN_HOST,
        message: 'Host not allowed',
        value: String(host),
        setting: 'allowed_hosts',
      };
    }
    if (!this.originAllowed(origin, host)) {
      return {
        reason: RejectReason.FORBIDDEN_ORIGIN,
        message: 'Origin not allowed',
        value: String(origin),
        setting: 'cors.origin',
      };
    }
    return null;
  }

  /** `check()` plus the JSONP refusal, for engine.io requests. */
  checkEngine(req: IncomingMessage): Refusal | null {
    if (isJsonpRequest(req.url)) {
      return {
        reason: RejectReason.JSONP,
        message: 'JSONP polling is not served',
        value: '',
        setting: null,
      };
    }
    return this.check(req);
  }

  /** Counts and logs `refusal` of `req` (rate-limited). */
  report(refusal: Refusal, req: IncomingMessage): void {
    this.sink?.rejectedInput(refusal.reason);
    this.log.refused(refusal, req);
  }

  /**
   * Checks an HTTP request of `surface`; on refusal answers 403 (counted, logged) and returns
   * false.
   */
  admitHttp(req: IncomingMessage, res: ServerResponse, engine = false): boolean {
    const refusal = engine ? this.checkEngine(req) : this.check(req);
    if (refusal === null) return true;
    this.report(refusal, req);
    const body = JSON.stringify({ code: REFUSED_STATUS, message: refusal.message });
    res.writeHead(REFUSED_STATUS, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
    return false;
  }

  /** Checks an upgrade request; on refusal writes a bare 403 and destroys the socket. */
  admitUpgrade(req: IncomingMessage, socket: Duplex | Socket, engine = false): boolean {
    const refusal = engine ? this.checkEngine(req) : this.check(req);
    if (refusal === null) return true;
    this.report(refusal, req);
    refuseUpgrade(socket, REFUSED_STATUS, refusal.message);
    return false;
  }

  /**
   * engine.io middleware (`io.engine.use`): runs for every HTTP request and upgrade of the
   * socket.io path, handshake or not. A refused request is answered here and never reaches
   * engine.io; while shutting down, a new session (no `sid`) gets 503.
   */
  readonly engineMiddleware = (
    req: IncomingMessage,
    res: ServerResponse,
    next: (err?: Error) => void,
  ): void => {
    // engine.io passes a stand-in response for upgrades; the raw socket is on the request.
    if (isUpgrade(req)) {
      if (!this.admitUpgrade(req, req.socket, true)) return;
      if (this.closing && !hasSid(req.url)) {
        return refuseUpgrade(req.socket, CLOSING_STATUS, 'Broker is shutting down');
      }
    } else {
      if (!this.admitHttp(req, res, true)) return;
      if (this.closing && !hasSid(req.url)) {
        res.writeHead(CLOSING_STATUS, { 'content-length': 0, 'retry-after': '1' });
        res.end();
        return;
      }
    }
    next();
  };

  /** `ws` `verifyClient` for the MQTT-over-WebSocket listener. */
  readonly verifyWebSocket = (
    info: { req: IncomingMessage },
    callback: (ok: boolean, code?: number, message?: string) => void,
  ): void => {
    const refusal = this.check(info.req);
    if (refusal === null) return callback(true);
    this.report(refusal, info.req);
    callback(false, REFUSED_STATUS, refusal.message);
  };

  private crossOriginAllowed(origin: string): boolean {
    const origins = this.origins();
    if (origins === 'any' || origins.has(origin.toLowerCase())) return true;
    const url = parseOrigin(origin);
    return url !== null && isLoopbackHost(url.hostname);
  }

  private origins(): ReadonlySet<string> | 'any' {
    const cors = this.settings().cors;
    if (this.cached?.cors !== cors) {
      const o = cors.origin;
      this.cached = {
        cors,
        origins: o === '*' ? 'any' : new Set(o === false ? [] : o.map((x) => x.toLowerCase())),
      };
    }
    return this.cached.origins;
  }

  private allowedHosts(): ReadonlySet<string> {
    const list = this.settings().allowed_hosts;
    if (this.cachedHosts?.list !== list) {
      this.cachedHosts = { list, set: new Set(list.map((h) => h.toLowerCase())) };
    }
    return this.cachedHosts.set;
  }
}

function isUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

function hasSid(url: string | undefined): boolean {
  const q = url?.indexOf('?') ?? -1;
  return q >= 0 && new URLSearchParams(url!.slice(q + 1)).has('sid');
}

/** Answers an upgrade with `status` and a short text, then drops the connection. */
function refuseUpgrade(socket: Duplex | Socket, status: number, message: string): void {
  socket.on('error', () => {});
  if (socket.writable) {
    const text = status === CLOSING_STATUS ? 'Service Unavailable' : 'Forbidden';
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
        `Content-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
    );
  }
  socket.destroy();
}
