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
 *
 * Bounded state (issue 20 item 4; docs/limits.md "Default bounds"): a superseded request is
 * deleted at once (it is no longer addressable, §7.1, so nothing needs it), the pending one of a
 * client is found through an index instead of a scan, and pending requests are capped broker-wide,
 * per realm and per client IP, with defaults that apply without a `limits` block. Pending counts
 * are kept as numbers, so a submit costs O(1); expired entries are pruned at most once a second.
 *
 * Across restarts (issue 22 item 1; docs/management.md "Requests across a restart"): with a
 * `RequestStore` every change is written through and the live entries are loaded at start, so
 * pending requests survive a restart with their expiry, and a requester that comes back with
 * its `request_id` and `client_token` (`resume`) is re-attached or told the decision.
 */
import { randomBytes } from 'node:crypto';
import { Protocol } from '../../shared/protocol-events';
import { RealmName, ROLES } from './auth-schema';
import { tokenHash } from './auth-state';
import type { RequestStore } from './request-store';
import {
  PRUNE_INTERVAL_MS,
  RequestFailure,
  MAX_CHALLENGE_LENGTH,
  MAX_REQUEST_FIELD_LENGTH,
  type AuthorizationRequest,
  type PendingCap,
  type PendingCaps,
  type RequestLimits,
  type SubmitResult,
} from './authorization-request-types';

export {
  DEFAULT_REQUEST_TTL_MS,
  MAX_CHALLENGE_LENGTH,
  MAX_REQUEST_FIELD_LENGTH,
  PRUNE_INTERVAL_MS,
  RequestFailure,
  publicRequest,
} from './authorization-request-types';
export type {
  AuthorizationRequest,
  PendingCap,
  PendingCaps,
  PublicRequest,
  RequestLimits,
  RequestStatus,
  SubmitResult,
} from './authorization-request-types';

export class AuthorizationRequests {
  /** Every request by id, in insertion order (the order `next` scans). */
  private readonly byId = new Map<string, AuthorizationRequest>();
  /** The pending request of each (realm, client_id). */
  private readonly pendingByClient = new Map<string, AuthorizationRequest>();
  /** Pending requests counted in the totals below (the status may be changed by the cluster). */
  private readonly counted = new WeakSet<AuthorizationRequest>();
  private pendingTotal = 0;
  private readonly pendingPerRealm = new Map<string, number>();
  private readonly pendingPerIp = new Map<string, number>();
  private lastPrune = -Infinity;

  /**
   * @param store written through on every change and read once here (live entries only);
   *   its write errors go to `onStoreError` and never refuse a request.
   */
  constructor(
    private readonly limits: RequestLimits,
    private readonly store?: RequestStore,
    private readonly onStoreError?: (err: Error) => void,
  ) {
    const now = Date.now();
    for (const r of this.write(() => store?.load(now)) ?? []) {
      if (r.status === 'superseded' || r.expiresAt <= now) continue;
      this.byId.set(r.request_id, r);
      if (r.status === 'pending') {
        this.pendingByClient.set(`${r.realm.length}:${r.realm}${r.client_id}`, r);
        this.count(r, 1);
      }
    }
  }

  /** Runs a store operation; errors are reported, never thrown. */
  private write<T>(op: () => T): T | undefined {
    try {
      return op();
    } catch (err) {
      this.onStoreError?.(err as Error);
      return undefined;
    }
  }

  /**
   * Validates and stores a request (§7.1); supersedes (and deletes) the pending one of the same
   * client. `ip` is the requester's address, for the per-IP cap.
   */
  submit(payload: unknown, socketId: string, now: number = Date.now(), ip?: string): SubmitResult {
    this.pruneIfDue(now);
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
    for (const [field, value] of Object.entries({ realm, client_id, client_token, client_name })) {
      if (value.length > MAX_REQUEST_FIELD_LENGTH) {
        return {
          ok: false,
          code: 400,
          message: `${field} is longer than ${MAX_REQUEST_FIELD_LENGTH} characters`,
        };
      }
    }
    const clientKey = `${realm.length}:${realm}${client_id}`;
    const previous = this.livePending(this.pendingByClient.get(clientKey), now);
    // A resubmission replaces its own pending request: it does not grow the table.
    const cap = previous ? null : this.capReached(realm, ip, now);
    if (cap) return { ok: false, code: 429, message: RequestFailure.TOO_MANY, cap };
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
    if (previous) {
      // Superseded (§7.1): no longer addressable by id, so it is not kept.
      previous.status = 'superseded';
      previous.superseded_at = createdAt;
      this.forget(previous);
      this.write(() => this.store?.remove(previous.request_id));
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
    if (ip !== undefined) request.ip = ip;
    this.byId.set(request.request_id, request);
    this.pendingByClient.set(clientKey, request);
    this.count(request, 1);
    this.write(() => this.store?.put(request));
    return { ok: true, request };
  }

  /** Which pending cap a new request of `realm` from `ip` would exceed, or null. */
  private capReached(realm: string, ip: string | undefined, now: number): PendingCap | null {
    const limit = this.limits.maxPending(realm);
    const caps: PendingCaps =
      typeof limit === 'object' ? limit : { total: limit, perRealm: undefined, perIp: undefined };
    const over = (): PendingCap | null => {
      if (caps.total !== undefined && this.pendingTotal >= caps.total) {
        return 'max_pending_authorization_requests';
      }
      if (caps.perRealm !== undefined && (this.pendingPerRealm.get(realm) ?? 0) >= caps.perRealm) {
        return 'max_pending_authorization_requests_per_realm';
      }
      if (
        caps.perIp !== undefined &&
        ip !== undefined &&
        (this.pendingPerIp.get(ip) ?? 0) >= caps.perIp
      ) {
        return 'max_pending_authorization_requests_per_ip';
      }
      return null;
    };
    if (over() === null) return null;
    // At a cap: count exactly (expired or externally decided entries may still be counted).
    this.prune(now);
    return over();
  }

  /** `r` when it is still a live pending request, else null (and it is uncounted). */
  private livePending(
    r: AuthorizationRequest | undefined,
    now: number,
  ): AuthorizationRequest | null {
    if (!r) return null;
    if (r.status === 'pending' && r.expiresAt > now && this.byId.get(r.request_id) === r) return r;
    this.settle(r);
    return null;
  }

  private count(r: AuthorizationRequest, d: 1 | -1): void {
    if (d === 1) this.counted.add(r);
    else this.counted.delete(r);
    this.pendingTotal += d;
    bump(this.pendingPerRealm, r.realm, d);
    if (r.ip !== undefined) bump(this.pendingPerIp, r.ip, d);
  }

  /** Stops counting `r` as pending (decided, superseded, expired, dropped); idempotent. */
  private settle(r: AuthorizationRequest): void {
    if (!this.counted.has(r)) return;
    this.count(r, -1);
    const clientKey = `${r.realm.length}:${r.realm}${r.client_id}`;
    if (this.pendingByClient.get(clientKey) === r) this.pendingByClient.delete(clientKey);
  }

  /** Removes `r` from every table (the store: by the callers that drop it for good). */
  private forget(r: AuthorizationRequest): void {
    this.settle(r);
    this.byId.delete(r.request_id);
  }

  /** The oldest pending request, in `realm` when given (§7.2). */
  next(realm: string | undefined, now: number = Date.now()): AuthorizationRequest | null {
    this.pruneIfDue(now);
    for (const r of this.byId.values()) {
      if (r.status === 'pending' && r.expiresAt > now && (realm === undefined || r.realm === realm))
        return r;
    }
    return null;
  }

  /** Every live pending request, in `realm` when given, in insertion (= age) order. */
  pendingList(realm: string | undefined, now: number = Date.now()): AuthorizationRequest[] {
    this.pruneIfDue(now);
    const out: AuthorizationRequest[] = [];
    for (const r of this.byId.values()) {
      if (r.status === 'pending' && r.expiresAt > now && (realm === undefined || r.realm === realm))
        out.push(r);
    }
    return out;
  }

  /** The request `id` if it is still pending (superseded ones are not addressable). */
  pending(id: unknown, now: number = Date.now()): AuthorizationRequest | null {
    this.pruneIfDue(now);
    if (typeof id !== 'string') return null;
    const r = this.byId.get(id);
    return r?.status === 'pending' && r.expiresAt > now ? r : null;
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
    this.settle(request);
    if (this.byId.get(request.request_id) === request) this.write(() => this.store?.put(request));
  }

  /**
   * A requester coming back (issue 22 item 1): the request `id` — pending or decided, not
   * expired — when `clientToken` is the one it was made with, else null (unknown, expired,
   * superseded, or another token: indistinguishable to the caller). A pending request is
   * re-attached to `socketId`, so the decision is pushed to the new connection.
   */
  resume(
    id: unknown,
    clientToken: unknown,
    socketId: string,
    now: number = Date.now(),
  ): AuthorizationRequest | null {
    this.pruneIfDue(now);
    if (typeof id !== 'string' || typeof clientToken !== 'string') return null;
    const r = this.byId.get(id);
    if (!r || r.expiresAt <= now || r.status === 'superseded') return null;
    if (tokenHash(clientToken) !== r.client_token_hash) return null;
    if (r.status === 'pending' && r.socket_id !== socketId) {
      r.socket_id = socketId;
      this.write(() => this.store?.put(r));
    }
    return r;
  }

  /** Pending requests held now (expired ones until the next prune). */
  pendingCount(): number {
    return this.pendingTotal;
  }

  /** Every request held (pending and decided), for the bounds tests. */
  get size(): number {
    return this.byId.size;
  }

  private pruneIfDue(now: number): void {
    if (now - this.lastPrune >= PRUNE_INTERVAL_MS || now < this.lastPrune) this.prune(now);
  }

  /** Drops expired pending requests and decided ones past their retention. */
  prune(now: number = Date.now()): void {
    this.lastPrune = now;
    for (const r of this.byId.values()) {
      if (r.expiresAt <= now) {
        this.forget(r);
        this.write(() => this.store?.remove(r.request_id));
      } else if (r.status !== 'pending') this.settle(r);
    }
  }

  /** Drops every request of a disposed realm (§9.4 note); returns how many were pending. */
  dropRealm(realm: string): number {
    let pending = 0;
    for (const r of this.byId.values()) {
      if (r.realm !== realm) continue;
      if (r.status === 'pending') pending++;
      this.forget(r);
      this.write(() => this.store?.remove(r.request_id));
    }
    return pending;
  }
}

function bump(m: Map<string, number>, k: string, d: number): void {
  const n = (m.get(k) ?? 0) + d;
  if (n > 0) m.set(k, n);
  else m.delete(k);
}
