/**
 * What a limit answers (`spec/protocol-admin.md` §11.3): the refused action's limit key and the
 * seconds to wait, and its acknowledgement-callback form.
 */
import { errorInfo } from '../../shared/error-catalogue';
import type { LimitKey } from './limits-config';

/** A refused action: the limit key and the seconds to wait. */
export interface Refusal {
  reason: LimitKey;
  retryAfter: number;
}

/** `retry_after` of a refused registration or subscription quota (s, §11.3). */
export const QUOTA_RETRY_S = 60;
/** `retry_after` of a refused connection (connection caps; s, §11.3). */
export const CONNECTIONS_RETRY_S = 30;

/**
 * The acknowledgement-callback answer to an event refused by a limit: `{ok: false, code:
 * "SWB_ERR_RATE_LIMITED", message: "Rate limited: <key>", reason: <§11.3 key>, retry_after: <s>}`
 * (docs/limits.md; a publisher's confirm callback gets the same).
 */
export function rateLimitReply(refusal: Refusal) {
  return {
    ok: false as const,
    ...errorInfo('SWB_ERR_RATE_LIMITED', `Rate limited: ${refusal.reason}`),
    reason: refusal.reason,
    retry_after: refusal.retryAfter,
  };
}
