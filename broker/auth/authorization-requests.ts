/**
 * Authorization requests: clients ask for a token, managers take the oldest pending one and
 * decide it.
 *
 * Source: `spec/protocol-admin.md` §7.1 (fields, record, superseding), §7.2 (oldest pending,
 * optional realm filter), §7.3 (decision), §7.4 (public shape: never the raw token), §7.5 with
 * its hardening note (§18 item 6): pending requests expire after `request_ttl` (default 24 h)
 * and decided/superseded ones are pruned after the same time; ids and names at most 256
 * characters, the challenge at most 4 KiB of JSON, a non-empty `client_token`; realm `*` and
 * role `admin` refused; a `client_token` equal to an existing token refused.
 */
import { randomBytes } from 'node:crypto';
import { Protocol } from '../../shared/protocol-events';
import { RealmName, ROLES } from './auth-schema';
import { tokenHash } from './auth-state';

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
  /** Epoch ms after which the request is dropped (pending: expiry; others: pruning). */
  expiresAt: number;
}

/** The public request of §7.4. */
export type PublicRequest = Omit<
  AuthorizationRequest,
  'client_token' | 'socket_id' | 'node_id' | 'expiresAt' | 'superseded_at'
>;

export type SubmitResult =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; code: 400 | 403 | 409 | 429; message: string };

/** Exact messages of §7.1 / §7.3, plus ours for the hardening refusals. */
export const RequestFailure = {
  FIELDS: 'Authorization request requires realm, client_id, client_token, and client_name',
  BAD_JSON: 'Invalid authorization request JSON',
  TOO_MANY: 'Too many pending authorization requests — try again later',
  NOT_FOUND: 'Pending authorization request not found',
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

export interface RequestLimits {
  /** Pending requests allowed at once; undefined = unlimited. */
  maxPending: () => number | undefined;
  /** Lifetime of a pending request (ms). */
  ttlMs: () => number;
  /** Whether a token string is already configured (by its SHA-256 hex). */
  tokenExists: (hash: string) => boolean;
  nodeId?: string | null;
}

export class AuthorizationRequests {
  /** Every request by id, in insertion order (the order `next` scans). */
  private readonly byId = new Map<string, AuthorizationRequest>();

  constructor(private readonly limits: RequestLimits) {}

  /** Validates and stores a request (§7.1); supersedes the pending one of the same client. */
  submit(payload: unknown, socketId: string, now: number = Date.now()): SubmitResult {
    this.prune(now);
    const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<
      string,
      unknown
    >;
    const { realm, client_id, client_token, client_name } = p;
    if (
      typeof realm !== 'string' ||
      typeof client_id !== 'string' ||
      typeof client_token !== 'string' ||
      typeof client_name !== 'string'
    ) {
      return { ok: false, code: 400, message: RequestFailure.FIELDS };
    }
    const max = this.limits.maxPending();
    if (max !== undefined && this.pendingCount() >= max) {
      return { ok: false, code: 429, message: RequestFailure.TOO_MANY };
    }
    for (const [field, value] of Object.entries({ realm, client_id, client_token, client_name })) {
      if (value.length > MAX_REQUEST_FIELD_LENGTH) {
        return {
          ok: false,
          code: 400,
          message: `${field} is longer than ${MAX_REQUEST_FIELD_LENGTH} characters`,
        };
      }
    }
    if (client_token === '') {
      return { ok: false, code: 400, message: 'client_token must not be empty' };
    }
    if (realm !== Protocol.ADMIN_REALM && !RealmName.safeParse(realm).success) {
      return { ok: false, code: 400, message: 'Invalid realm name' };
    }
    const challenge = p.challenge_response ?? p.challengeResponse ?? null;
    if ((JSON.stringify(challenge) ?? '').length > MAX_CHALLENGE_LENGTH) {
      return {
        ok: false,
        code: 400,
        message: `challenge_response is larger than ${MAX_CHALLENGE_LENGTH} characters`,
      };
    }
    const role =
      typeof p.role === 'string' && (ROLES as readonly string[]).includes(p.role) ? p.role : 'both';
    if (realm === Protocol.ADMIN_REALM || role === 'admin') {
      return {
        ok: false,
        code: 403,
        message: "Requests for realm '*' or role 'admin' are not accepted",
      };
    }
    const hash = tokenHash(client_token);
    if (this.limits.tokenExists(hash)) {
      return { ok: false, code: 409, message: 'client_token is already in use; choose another' };
    }
    const createdAt = new Date(now).toISOString();
    for (const r of this.byId.values()) {
      if (r.status === 'pending' && r.realm === realm && r.client_id === client_id) {
        r.status = 'superseded';
        r.superseded_at = createdAt;
        r.expiresAt = now + this.limits.ttlMs();
      }
    }
    const request: AuthorizationRequest = {
      request_id: `authreq-${now.toString(36)}-${randomBytes(6).toString('hex')}`,
      status: 'pending',
      realm,
      role,
      client_id,
      client_name,
      client_token,
      client_token_hash: hash,
      challenge_response: challenge,
      created_at: createdAt,
      decided_at: null,
      decision_reason: null,
      socket_id: socketId,
      node_id: this.limits.nodeId ?? null,
      expiresAt: now + this.limits.ttlMs(),
    };
    this.byId.set(request.request_id, request);
    return { ok: true, request };
  }

  /** The oldest pending request, in `realm` when given (§7.2). */
  next(realm: string | undefined, now: number = Date.now()): AuthorizationRequest | null {
    this.prune(now);
    for (const r of this.byId.values()) {
      if (r.status === 'pending' && (realm === undefined || r.realm === realm)) return r;
    }
    return null;
  }

  /** The request `id` if it is still pending (superseded ones are not addressable). */
  pending(id: unknown, now: number = Date.now()): AuthorizationRequest | null {
    this.prune(now);
    if (typeof id !== 'string') return null;
    const r = this.byId.get(id);
    return r?.status === 'pending' ? r : null;
  }

  /** Marks a pending request decided (§7.3); the caller applies the token change. */
  decide(
    request: AuthorizationRequest,
    approved: boolean,
    role: string,
    reason: string | null,
    now: number = Date.now(),
  ): void {
    request.status = approved ? 'approved' : 'rejected';
    request.role = approved ? role : request.role;
    request.decided_at = new Date(now).toISOString();
    request.decision_reason = reason;
    request.expiresAt = now + this.limits.ttlMs();
  }

  pendingCount(): number {
    let n = 0;
    for (const r of this.byId.values()) if (r.status === 'pending') n++;
    return n;
  }

  /** Drops expired pending requests and decided ones past their retention. */
  prune(now: number = Date.now()): void {
    for (const [id, r] of this.byId) if (r.expiresAt <= now) this.byId.delete(id);
  }

  /** Drops every request of a disposed realm (§9.4 note); returns how many were pending. */
  dropRealm(realm: string): number {
    let pending = 0;
    for (const [id, r] of this.byId) {
      if (r.realm !== realm) continue;
      if (r.status === 'pending') pending++;
      this.byId.delete(id);
    }
    return pending;
  }
}
