/**
 * The cluster's shared authorization-request document (`<prefix>:authreqs`, shared-auth-requests.ts)
 * as data: its entry schema (reference nodes' entries included), parsing with expiry, the
 * order requests are served in, supersession on insert (`spec/protocol-admin.md` §7.1–§7.2),
 * and the decision announcement's schema.
 */
import { z } from 'zod';
import { DEFAULT_REQUEST_TTL_MS, type AuthorizationRequest } from '../auth/authorization-requests';

/** A stored request; fields a reference node may leave out get their defaults. */
const Stored = z
  .object({
    request_id: z.string().min(1).max(128),
    status: z.enum(['pending', 'approved', 'rejected', 'superseded']),
    realm: z.string(),
    role: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    client_token: z.string(),
    client_token_hash: z.string(),
    challenge_response: z.unknown().optional(),
    created_at: z.string(),
    decided_at: z.string().nullish(),
    decision_reason: z.string().nullish(),
    superseded_at: z.string().optional(),
    socket_id: z.string().nullish(),
    node_id: z.string().nullish(),
    /** Ours (epoch ms); a reference entry lives 24 h from `created_at`. */
    expiresAt: z.number().optional(),
  })
  .passthrough();

/** A decision announced on `<prefix>:authreq:decided`. */
export const Decided = z.object({
  request_id: z.string(),
  node_id: z.string().nullable(),
  decided_by: z.string(),
  socket_id: z.string(),
  realm: z.string(),
  role: z.string(),
  approved: z.boolean(),
  reason: z.string().nullable(),
  decided_at: z.number(),
  settings_rev: z.number(),
});

/** The requests of `text` (unreadable entries dropped), without those expired at `now`. */
export function parseRequests(text: string | null, now: number): AuthorizationRequest[] {
  if (!text) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const out: AuthorizationRequest[] = [];
  for (const entry of raw) {
    const parsed = Stored.safeParse(entry);
    if (!parsed.success) continue;
    const r = parsed.data;
    const expiresAt = r.expiresAt ?? (Date.parse(r.created_at) || now) + DEFAULT_REQUEST_TTL_MS;
    if (expiresAt <= now) continue;
    out.push({
      ...r,
      challenge_response: r.challenge_response ?? null,
      decided_at: r.decided_at ?? null,
      decision_reason: r.decision_reason ?? null,
      socket_id: r.socket_id ?? '',
      node_id: r.node_id ?? null,
      expiresAt,
    } as AuthorizationRequest);
  }
  return out;
}

/** Oldest first by `created_at`, then by id (§7.2's `next`). */
export const byAge = (a: AuthorizationRequest, b: AuthorizationRequest): number =>
  a.created_at < b.created_at
    ? -1
    : a.created_at > b.created_at
      ? 1
      : a.request_id < b.request_id
        ? -1
        : 1;

/** Adds `request` to `list`, superseding the pending one of the same client (§7.1). */
export function insert(list: AuthorizationRequest[], request: AuthorizationRequest): void {
  for (const r of list) {
    if (
      r.status === 'pending' &&
      r.realm === request.realm &&
      r.client_id === request.client_id &&
      r.request_id !== request.request_id
    ) {
      r.status = 'superseded';
      r.superseded_at = request.created_at;
      r.expiresAt = request.expiresAt;
    }
  }
  if (!list.some((r) => r.request_id === request.request_id)) list.push({ ...request });
}
