/**
 * Where authorization requests are kept between broker runs (issue 22 item 1; docs/management.md
 * "Requests across a restart"): pending ones with their expiry, and decided ones for the same
 * retention (`auth.request_ttl`, default 24 h), so a requester that comes back with its
 * `request_id` after a restart learns the decision.
 *
 * Backends: the SQLite auth store (`authorization_requests` table), in memory (lost with the
 * process; an embedder may pass one instance to successive brokers), and — clustered — the
 * shared Redis document of `cluster/shared-auth-requests.ts`, which outlives every node by
 * itself. Writes are synchronous and small (one row per change); a failing write is logged by
 * the caller and never refuses the request (the in-memory registry stays authoritative).
 */
import type { AuthorizationRequest } from './authorization-request-types';

export interface RequestStore {
  /** Every stored request not expired at `now` (epoch ms), oldest first. */
  load(now: number): AuthorizationRequest[];
  /** Inserts or replaces request `r` (by `request_id`). */
  put(r: Readonly<AuthorizationRequest>): void;
  /** Deletes request `id`; unknown ids are ignored. */
  remove(id: string): void;
}

/** Requests in a map: for tests, embedders, and brokers without an auth store. */
export class MemoryRequestStore implements RequestStore {
  private readonly rows = new Map<string, AuthorizationRequest>();

  load(now: number): AuthorizationRequest[] {
    const out: AuthorizationRequest[] = [];
    for (const r of this.rows.values()) {
      if (r.expiresAt > now) out.push(structuredClone(r));
      else this.rows.delete(r.request_id);
    }
    return out;
  }

  put(r: Readonly<AuthorizationRequest>): void {
    // Re-inserted at the end only when new: a Map keeps the first insertion's place.
    this.rows.set(r.request_id, structuredClone(r) as AuthorizationRequest);
  }

  remove(id: string): void {
    this.rows.delete(id);
  }

  get size(): number {
    return this.rows.size;
  }
}
