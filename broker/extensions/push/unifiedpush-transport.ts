/**
 * The `unifiedpush` transport (`spec/protocol-extensions.md` §6.8.2): `POST <endpoint URL>`
 * with `content-type: application/json` and the body `{"type":"wake","v":1}` (21 bytes).
 * The URL passes the SSRF guard again before each send (`{ok:false, unsafe:true}` without
 * connecting when it fails), and the connection's own DNS lookup goes through the classifier.
 *
 * Results: 2xx `{ok:true}`; 404/410 `{ok:false, gone:true}`; anything else, a timeout or an
 * error `{ok:false}` (429, 5xx, timeouts and network errors also `retryable`).
 */
import { boundedPost, RequestFailed } from './bounded-request';
import type { PushEndpoint, PushTransport, SendResult, WakePayload } from './push-types';
import { guardedLookup, isSafePushUrl, type Resolve } from './ssrf-guard';

export interface UnifiedPushOptions {
  /** `TYO_MQ_PUSH_ALLOW_LOCAL` (§6.1; Note 6-D: never in production). */
  allowLocal: boolean;
  /** Ms; default PUSH_HTTP_TIMEOUT_MS. */
  timeoutMs?: number;
  /** DNS for the pre-send check (tests inject one, R87). */
  resolve?: Resolve;
}

export class UnifiedPushTransport implements PushTransport {
  readonly name = 'unifiedpush';

  constructor(private readonly options: UnifiedPushOptions) {}

  async send(endpoint: PushEndpoint, payload: WakePayload): Promise<SendResult> {
    const { allowLocal } = this.options;
    const guard = await isSafePushUrl(endpoint.token, allowLocal, this.options.resolve);
    if (!guard.ok) return { ok: false, unsafe: true, detail: `guard=${guard.reason}` };
    try {
      const res = await boundedPost({
        url: guard.url,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
        lookup: guardedLookup(allowLocal, guard.url.protocol === 'http:'),
      });
      if (res.status >= 200 && res.status < 300) return { ok: true };
      if (res.status === 404 || res.status === 410) return { ok: false, gone: true };
      return { ok: false, retryable: res.status === 429 || res.status >= 500 };
    } catch (err) {
      if (err instanceof RequestFailed && err.kind === 'unsafe') return { ok: false, unsafe: true };
      return { ok: false, retryable: true };
    }
  }
}
