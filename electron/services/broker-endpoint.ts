/**
 * Where and how to reach a broker from its profile URL: the HTTP(S) base URL with its base path
 * kept (a broker behind `https://host/broker-a/` has its socket.io endpoint at
 * `/broker-a/socket.io` and its HTTP API at `/broker-a/api/…`), the TLS options, and the rule
 * that an admin token is never sent as a bearer in clear text to a host that is not loopback
 * unless the profile opts in.
 *
 * Source: issue 12 ("URLs keep their base path", "no bearer token sent in clear to a non-loopback
 * host without an explicit opt-in"); `spec/protocol-admin.md` §10.2 (Bearer admin token).
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import { isLoopbackHost } from '../../shared/loopback';

/** TLS options handed to `https` and socket.io-client. `ca` is PEM text (read from `caFile`). */
export interface EndpointTls {
  ca?: string;
  rejectUnauthorized: boolean;
}

/** A parsed broker address. */
export interface BrokerEndpoint {
  /** `http(s)://host[:port]` — no path, no trailing slash. */
  origin: string;
  /** Base path without trailing slash: `''` or `/broker-a`. */
  basePath: string;
  /** `origin + basePath`: what is shown and what HTTP paths are joined to. */
  baseUrl: string;
  /** socket.io `path` option: `<basePath>/socket.io`. */
  socketPath: string;
  secure: boolean;
  hostname: string;
  tls?: EndpointTls;
}

/**
 * Parses a profile URL (`http`, `https`, `ws`, `wss`; `ws` means `http`). Query and fragment are
 * dropped. @throws SwitchboardError `SWB_ERR_VALIDATION` for anything else.
 */
export function parseBrokerUrl(text: string, tls?: EndpointTls): BrokerEndpoint {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new SwitchboardError('SWB_ERR_VALIDATION', `Not a URL: ${JSON.stringify(text)}`);
  }
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  const secure = scheme === 'https' || scheme === 'wss';
  if (!secure && scheme !== 'http' && scheme !== 'ws') {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Unsupported broker URL scheme ${scheme}: use http://, https://, ws:// or wss://`,
    );
  }
  if (url.username || url.password) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      'Put credentials in the profile, not in the broker URL',
    );
  }
  const origin = `${secure ? 'https' : 'http'}://${url.host}`;
  const basePath = url.pathname.replace(/\/+$/, '');
  return {
    origin,
    basePath,
    baseUrl: `${origin}${basePath}`,
    socketPath: `${basePath}/socket.io`,
    secure,
    hostname: url.hostname,
    ...(tls ? { tls } : {}),
  };
}

/** `baseUrl` + an absolute API path (`/health`, `/api/stats`), keeping the base path. */
export function apiUrl(baseUrl: string, apiPath: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${apiPath.replace(/^\/+/, '')}`;
}

/** True when sending a bearer token to `endpoint` would cross a network in clear text. */
export function bearerWouldBeClearText(
  endpoint: Pick<BrokerEndpoint, 'secure' | 'hostname'>,
): boolean {
  return !endpoint.secure && !isLoopbackHost(endpoint.hostname);
}

/**
 * Refuses to send a bearer token in clear text to a non-loopback host unless `allowInsecure`.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` with what to change.
 */
export function assertBearerAllowed(
  endpoint: Pick<BrokerEndpoint, 'secure' | 'hostname'>,
  allowInsecure: boolean,
): void {
  if (allowInsecure || !bearerWouldBeClearText(endpoint)) return;
  throw new SwitchboardError(
    'SWB_ERR_VALIDATION',
    `Refused to send the admin token in clear text (http://) to ${endpoint.hostname}: ` +
      'use an https:// URL, or tick "allow the token over plain http" in the connection profile',
  );
}
