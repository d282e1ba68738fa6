/**
 * The `fcm` transport (`spec/protocol-extensions.md` §6.8.3): FCM HTTP v1 with a per-project
 * OAuth access token minted by the JWT-bearer grant (RS256 assertion signed with the service
 * account's key via `jose`), reused until 60 s before it expires; concurrent sends share one
 * mint. The send is a data-only message `{type:"wake", v:"1"}` (strings), Android priority
 * HIGH, no notification block; 5 s timeout, no redirects, at most 8 KiB of response read.
 *
 * Classification: 2xx ok; 401/403 `{ok:false, auth:true}` (the broker's credentials; the token
 * is kept); 404, an `UNREGISTERED` errorCode, or 400 `INVALID_ARGUMENT` gone (Note 6-H: the
 * errorCode is in the token-free detail, so mass pruning shows); 429, 5xx, bad bodies,
 * timeouts, network errors `{ok:false, retryable}`. No project for the `app_id`: `{ok:false}`,
 * nothing sent, a throttled `push wake skipped: transport=fcm reason=no-project` warning.
 */
import { loadJose } from '../../auth/lazy-jose';
import { ExtensionLimit } from '../../../shared/protocol-extensions';
import type { Logger } from '../../logging/logger';
import { PerKeyThrottle } from '../../logging/per-key-throttle';
import { boundedPost, RequestFailed } from './bounded-request';
import type { FcmProjects, ServiceAccount } from './fcm-credentials';
import type { PushEndpoint, PushTransport, SendResult, WakePayload } from './push-types';

export const FCM_BASE_URL = 'https://fcm.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface FcmOptions extends FcmProjects {
  /** Send base URL (`TYO_MQ_PUSH_FCM_BASE_URL`, §6.9); default fcm.googleapis.com. */
  baseUrl?: string;
  timeoutMs?: number;
  logger: Logger;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

export class FcmTransport implements PushTransport {
  readonly name = 'fcm';
  private readonly cache = new Map<ServiceAccount, CachedToken>();
  private readonly minting = new Map<ServiceAccount, Promise<string>>();
  private readonly skipLog = new PerKeyThrottle(ExtensionLimit.PUSH_FAIL_LOG_WINDOW_MS);

  constructor(private readonly options: FcmOptions) {}

  private projectOf(appId: string | null): ServiceAccount | null {
    const mapped = appId === null ? undefined : this.options.byAppId.get(appId);
    return mapped ?? this.options.defaultProject;
  }

  /** A valid access token for `sa`, minted when missing or within 60 s of expiry. */
  private accessToken(sa: ServiceAccount): Promise<string> {
    const cached = this.cache.get(sa);
    if (cached && Date.now() < cached.expiresAt - ExtensionLimit.FCM_TOKEN_REFRESH_MARGIN_MS) {
      return Promise.resolve(cached.token);
    }
    let pending = this.minting.get(sa);
    if (!pending) {
      pending = this.mint(sa).finally(() => this.minting.delete(sa));
      this.minting.set(sa, pending);
    }
    return pending;
  }

  private async mint(sa: ServiceAccount): Promise<string> {
    // Loaded with the first mint: a broker without FCM never needs jose.
    const { importPKCS8, SignJWT } = await loadJose();
    const key = await importPKCS8(sa.private_key, 'RS256');
    const iat = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(sa.client_email)
      .setAudience(sa.token_uri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(key);
    const res = await boundedPost({
      url: new URL(sa.token_uri),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=${encodeURIComponent(GRANT)}&assertion=${assertion}`,
      ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
    });
    if (res.status < 200 || res.status >= 300) throw new Error(`token endpoint ${res.status}`);
    const body = JSON.parse(res.body) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new Error('no access_token');
    const ttl = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    this.cache.set(sa, { token: body.access_token, expiresAt: Date.now() + ttl * 1000 });
    return body.access_token;
  }

  async send(endpoint: PushEndpoint, payload: WakePayload): Promise<SendResult> {
    const sa = this.projectOf(endpoint.app_id);
    if (!sa) {
      if (this.skipLog.take('no-project') !== null) {
        this.options.logger.warn(
          `push wake skipped: transport=fcm reason=no-project app_id=${JSON.stringify(endpoint.app_id)}`,
        );
      }
      return { ok: false };
    }
    let token: string;
    try {
      token = await this.accessToken(sa);
    } catch {
      return { ok: false, retryable: true, detail: 'token-mint-failed' };
    }
    const base = this.options.baseUrl ?? FCM_BASE_URL;
    const url = new URL(`/v1/projects/${encodeURIComponent(sa.project_id)}/messages:send`, base);
    const message = {
      message: {
        token: endpoint.token,
        data: { type: payload.type, v: String(payload.v) },
        android: { priority: 'HIGH' },
      },
    };
    try {
      const res = await boundedPost({
        url,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(message),
        ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
      });
      return classify(res.status, res.body);
    } catch (err) {
      return { ok: false, retryable: err instanceof RequestFailed };
    }
  }
}

/** §6.8.3's classification of a send answer (the detail is token-free). */
export function classify(status: number, body: string): SendResult {
  if (status >= 200 && status < 300) return { ok: true };
  if (status === 401 || status === 403)
    return { ok: false, auth: true, detail: `status=${status}` };
  let error: { status?: unknown; details?: Array<{ errorCode?: unknown }> } = {};
  try {
    error = ((JSON.parse(body) as { error?: typeof error }).error ?? {}) as typeof error;
  } catch {
    // An unparsable body is transient below.
  }
  const codes = Array.isArray(error.details) ? error.details.map((d) => d?.errorCode) : [];
  if (status === 404) return { ok: false, gone: true, detail: 'status=404' };
  if (codes.includes('UNREGISTERED'))
    return { ok: false, gone: true, detail: 'errorCode=UNREGISTERED' };
  if (
    status === 400 &&
    (error.status === 'INVALID_ARGUMENT' || codes.includes('INVALID_ARGUMENT'))
  ) {
    return { ok: false, gone: true, detail: 'errorCode=INVALID_ARGUMENT' };
  }
  return { ok: false, retryable: status === 429 || status >= 500, detail: `status=${status}` };
}
