/**
 * The shapes of the authorization-request registry (`authorization-requests.ts`): the stored
 * record, the public shape of §7.4, the caps and limits it reads, and the failure messages.
 * Source: `spec/protocol-admin.md` §7.1–§7.5.
 */
/** Default lifetime of a pending request (ms): 24 h. */
export const DEFAULT_REQUEST_TTL_MS = 24 * 60 * 60 * 1000;
/** Longest `realm`, `client_id`, `client_name`, `client_token` accepted (UTF-16 code units). */
export const MAX_REQUEST_FIELD_LENGTH = 256;
/** Largest `challenge_response`, as JSON text (UTF-16 code units). */
export const MAX_CHALLENGE_LENGTH = 4096;

export type RequestStatus = 'pending' | 'approved' | 'rejected' | 'superseded';

export interface AuthorizationRequest {
  request_id: string;
  status: RequestStatus;
  realm: string;
  role: string;
  client_id: string;
  client_name: string;
  /** Raw token the client will use once approved; never leaves the broker (§7.4). */
  client_token: string;
  client_token_hash: string;
  challenge_response: unknown;
  created_at: string;
  decided_at: string | null;
  decision_reason: string | null;
  superseded_at?: string;
  socket_id: string;
  node_id: string | null;
  /** Client IP of the requester (per-IP pending cap); local only, never shared or shown. */
  ip?: string;
  /** Epoch ms after which the request is dropped (pending: expiry; others: pruning). */
  expiresAt: number;
}

/** The public request of §7.4. */
export type PublicRequest = Omit<
  AuthorizationRequest,
  'client_token' | 'socket_id' | 'node_id' | 'expiresAt' | 'superseded_at' | 'ip'
>;

/** Which pending cap refused a request (the `tyo_mq_rate_limited_total` reason). */
export type PendingCap =
  | 'max_pending_authorization_requests'
  | 'max_pending_authorization_requests_per_realm'
  | 'max_pending_authorization_requests_per_ip';

export type SubmitResult =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; code: 400 | 403 | 409; message: string }
  | { ok: false; code: 429; message: string; cap: PendingCap };

/** Exact messages of §7.1 / §7.3, plus ours for the hardening refusals. */
export const RequestFailure = {
  FIELDS: 'Authorization request requires realm, client_id, client_token, and client_name',
  BAD_JSON: 'Invalid authorization request JSON',
  TOO_MANY: 'Too many pending authorization requests — try again later',
  NOT_FOUND: 'Pending authorization request not found',
  NOT_RESUMABLE:
    'Authorization request not found or expired (or another client_token); submit a new request',
} as const;

export function publicRequest(r: AuthorizationRequest): PublicRequest {
  return {
    request_id: r.request_id,
    status: r.status,
    realm: r.realm,
    role: r.role,
    client_id: r.client_id,
    client_name: r.client_name,
    client_token_hash: r.client_token_hash,
    challenge_response: r.challenge_response,
    created_at: r.created_at,
    decided_at: r.decided_at,
    decision_reason: r.decision_reason,
  };
}

/** The pending caps in force (read at each submit, so hot reloads apply); undefined = none. */
export interface PendingCaps {
  total: number | undefined;
  perRealm: number | undefined;
  perIp: number | undefined;
}

/** How often (ms) at most expired requests are pruned. */
export const PRUNE_INTERVAL_MS = 1_000;

export interface RequestLimits {
  /**
   * Pending requests allowed at once: a number (broker-wide only, the §11.3 key), or the three
   * caps for `realm`; undefined = unlimited.
   */
  maxPending: (realm: string) => number | PendingCaps | undefined;
  /** Lifetime of a pending request (ms). */
  ttlMs: () => number;
  /** Whether a token string is already configured (by its SHA-256 hex). */
  tokenExists: (hash: string) => boolean;
  nodeId?: string | null;
}
