/**
 * The `apns` transport (`spec/protocol-extensions.md` §6.8.4): APNs over HTTP/2 (`node:http2`)
 * with token authentication. One session per env, opened lazily, reused, dropped on error,
 * GOAWAY or close. The ES256 provider token (`jose`: raw r‖s signature, header `{alg, kid}`,
 * claims `{iss: team id, iat}`) is reused for 40 min (APNS_JWT_REFRESH_MS); a 403
 * `ExpiredProviderToken` clears it.
 *
 * Request: `POST /3/device/<encodeURIComponent(token)>` (Note 6-B), `authorization: bearer`,
 * `apns-topic`, `apns-push-type: background`, `apns-priority: 5`, `apns-expiration: 0`, body
 * exactly `{"aps":{"content-available":1}}`; 5 s timeout, at most 8 KiB of response read.
 * Results: 2xx ok; 410, or 400 `BadDeviceToken`/`DeviceTokenNotForTopic`, gone; 403 auth (the
 * token is kept); 429, 5xx, other 400s, GOAWAY, timeouts, unreachable hosts `{ok:false}`.
 */
import type { KeyObject } from 'node:crypto';
import { connect, type ClientHttp2Session } from 'node:http2';
import { loadJose } from '../../auth/lazy-jose';
import { ExtensionLimit } from '../../../shared/protocol-extensions';
import type { ApnsEnv, PushEndpoint, PushTransport, SendResult } from './push-types';

export const APNS_PRODUCTION_URL = 'https://api.push.apple.com:443';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com:443';
const BODY = '{"aps":{"content-available":1}}';

export interface ApnsOptions {
  /** The `.p8` key, checked to be EC P-256 (`apns-config.ts`). */
  key: KeyObject;
  keyId: string;
  teamId: string;
  topic: string;
  /** For endpoints stored without an env (`TYO_MQ_PUSH_APNS_ENV`). */
  defaultEnv: ApnsEnv;
  /** Authorities (§6.9; `http://` loopback means h2c). */
  productionUrl?: string;
  sandboxUrl?: string;
  timeoutMs?: number;
  /** Extra trusted CA for a local TLS stub (tests). */
  ca?: string;
  /** Clock (ms), for the provider-token age (tests age it, R114). */
  now?: () => number;
}

export class ApnsTransport implements PushTransport {
  readonly name = 'apns';
  /** How many provider tokens were signed (observable by tests). */
  signs = 0;
  private jwt: { token: string; at: number } | null = null;
  private readonly sessions = new Map<ApnsEnv, ClientHttp2Session>();

  constructor(private readonly options: ApnsOptions) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private async providerToken(): Promise<string> {
    if (this.jwt && this.now() - this.jwt.at < ExtensionLimit.APNS_JWT_REFRESH_MS) {
      return this.jwt.token;
    }
    const at = this.now();
    // Loaded with the first provider token: a broker without APNs never needs jose.
    const { SignJWT } = await loadJose();
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: this.options.keyId })
      .setIssuer(this.options.teamId)
      .setIssuedAt(Math.floor(at / 1000))
      .sign(this.options.key);
    this.signs += 1;
    this.jwt = { token, at };
    return token;
  }

  private session(env: ApnsEnv): ClientHttp2Session {
    const open = this.sessions.get(env);
    if (open && !open.closed && !open.destroyed) return open;
    const authority =
      env === 'sandbox'
        ? (this.options.sandboxUrl ?? APNS_SANDBOX_URL)
        : (this.options.productionUrl ?? APNS_PRODUCTION_URL);
    const session = connect(authority, this.options.ca ? { ca: this.options.ca } : {});
    const drop = () => {
      if (this.sessions.get(env) === session) this.sessions.delete(env);
    };
    session.on('error', drop);
    session.on('goaway', drop);
    session.on('close', drop);
    // An idle session does not keep the broker's process alive.
    session.unref();
    this.sessions.set(env, session);
    return session;
  }

  async send(endpoint: PushEndpoint): Promise<SendResult> {
    const env = endpoint.env ?? this.options.defaultEnv;
    const jwt = await this.providerToken();
    const answer = await this.request(env, endpoint.token, jwt);
    if (answer === null) return { ok: false, retryable: true };
    const { status, reason } = answer;
    if (status >= 200 && status < 300) return { ok: true };
    if (
      status === 410 ||
      (status === 400 && (reason === 'BadDeviceToken' || reason === 'DeviceTokenNotForTopic'))
    ) {
      return { ok: false, gone: true, detail: `apns-reason=${reason}` };
    }
    if (status === 403) {
      if (reason === 'ExpiredProviderToken') this.jwt = null;
      return { ok: false, auth: true, detail: `status=403 apns-reason=${reason}` };
    }
    return { ok: false, retryable: status === 429 || status >= 500, detail: `status=${status}` };
  }

  /** One request; null for a timeout, GOAWAY or network error. `reason`: APNs' body reason. */
  private request(
    env: ApnsEnv,
    token: string,
    jwt: string,
  ): Promise<{ status: number; reason: string } | null> {
    return new Promise((resolve) => {
      let session: ClientHttp2Session;
      try {
        session = this.session(env);
      } catch {
        return resolve(null);
      }
      const req = session.request({
        ':method': 'POST',
        ':path': `/3/device/${encodeURIComponent(token)}`,
        authorization: `bearer ${jwt}`,
        'apns-topic': this.options.topic,
        'apns-push-type': 'background',
        'apns-priority': '5',
        'apns-expiration': '0',
        'content-type': 'application/json',
        'content-length': String(BODY.length),
      });
      let status = 0;
      let body = '';
      let done = false;
      const finish = (value: { status: number; reason: string } | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        req.close();
        finish(null);
      }, this.options.timeoutMs ?? ExtensionLimit.PUSH_HTTP_TIMEOUT_MS);
      req.on('response', (headers) => {
        status = Number(headers[':status'] ?? 0);
      });
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        if (body.length < ExtensionLimit.PUSH_RESP_MAX_BYTES) body += chunk;
      });
      req.on('end', () => {
        let reason = '';
        try {
          const parsed = JSON.parse(body.slice(0, ExtensionLimit.PUSH_RESP_MAX_BYTES)) as {
            reason?: unknown;
          };
          if (typeof parsed.reason === 'string') reason = parsed.reason.replace(/[^A-Za-z]/g, '');
        } catch {
          // No body (success) or not JSON: no reason.
        }
        finish(status === 0 ? null : { status, reason });
      });
      req.on('error', () => finish(null));
      req.end(BODY);
    });
  }

  close(): void {
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
  }
}
