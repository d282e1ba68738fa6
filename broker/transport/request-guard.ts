/**
 * Which browsers and which `Host` names may use the broker (issue 8 item 13).
 *
 * The reference accepts every `Origin` (CORS `*`, `spec/protocol-core.md` §1.1) and the HTTP
 * API answers any `Host`: any web page open in the user's browser could subscribe to a local
 * broker, read its messages and produce forged ones, and — through DNS rebinding — read
 * `/api/stats` and the DLQ. Here:
 *
 * - **Origin.** A socket.io handshake (polling or WebSocket; browsers do not apply CORS to
 *   WebSockets, so the `cors` headers alone protect nothing) that carries an `Origin` is
 *   refused with 403 unless the `cors.origin` setting allows it: `false` (default) allows no
 *   browser origin, `"*"` allows all (the reference's behaviour, opt-in), a list allows exact
 *   origins. A client that sends no `Origin` — the stock Node, Python and C# clients — is
 *   unaffected.
 * - **Host.** DNS rebinding makes a hostile page same-origin, with no `Origin` on a `GET`; what
 *   gives it away is the `Host` header naming the attacker's domain. A request (socket.io
 *   handshake or HTTP API) is refused with 403 unless its `Host` is a loopback name
 *   (`localhost`, `*.localhost`), an IP literal (a rebinding needs a domain name), the address
 *   the broker is bound to, or listed in `allowed_hosts`. The check applies whenever auth is
 *   off or the broker is bound to loopback (always, in this build); a request without `Host`
 *   (HTTP/1.0 tools) is not a browser and passes.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../../shared/loopback';
import type { Settings } from '../config/settings-schema';

/** The hostname of a `Host` header, lower-cased, without port or IPv6 brackets; null if bad. */
export function hostnameOf(host: string): string | null {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/i.exec(host.trim());
  if (!m) return null;
  return (m[1] ?? m[2]!).toLowerCase().replace(/\.$/, '');
}

export class RequestGuard {
  private bindHost: string | null = null;
  private readonly allowedHosts: ReadonlySet<string>;
  private readonly origins: ReadonlySet<string> | 'any';

  /** `authEnabled` reads the live auth switch (it can change at runtime). */
  constructor(
    settings: Settings,
    private readonly authEnabled: () => boolean,
  ) {
    this.allowedHosts = new Set(settings.allowed_hosts.map((h) => h.toLowerCase()));
    const origin = settings.cors.origin;
    this.origins = origin === '*' ? 'any' : new Set(origin === false ? [] : origin);
  }

  /** Records the address `listen()` bound (null when attached to someone else's server). */
  bound(host: string | null): void {
    this.bindHost = host === null ? null : (hostnameOf(host) ?? host.toLowerCase());
  }

  /** Whether the `Host` check applies: auth off, or bound to loopback. */
  get hostCheckEnabled(): boolean {
    return !this.authEnabled() || (this.bindHost !== null && this.isLoopbackBind());
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
      this.allowedHosts.has(name)
    );
  }

  /** True when there is no `Origin` (not a browser) or `cors.origin` allows it. */
  originAllowed(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    return this.origins === 'any' || this.origins.has(origin.toLowerCase());
  }

  /** Why `req` is refused, or null when it may proceed. */
  refusal(req: IncomingMessage): string | null {
    if (!this.hostAllowed(req.headers.host)) return 'Host not allowed';
    if (!this.originAllowed(req.headers.origin)) return 'Origin not allowed';
    return null;
  }

  /** Engine.IO `allowRequest`: refuses a handshake with 403 and the reason. */
  readonly allowRequest = (
    req: IncomingMessage,
    callback: (err: string | null | undefined, success: boolean) => void,
  ): void => {
    const reason = this.refusal(req);
    callback(reason, reason === null);
  };

  private isLoopbackBind(): boolean {
    return this.bindHost !== null && isLoopbackHost(this.bindHost);
  }
}
