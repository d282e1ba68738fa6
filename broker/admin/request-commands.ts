/**
 * `list_requests` (Switchboard extension; docs/management.md "Listing pending requests"): every
 * pending authorization request, oldest first, a page at a time, with the count per realm —
 * where `AUTHORIZATION_NEXT` (§7.2) shows only the oldest one of a filter. Signed by the admin
 * token, or by a realm's `manager_key` with `realm` set to that realm.
 *
 * Body: `{realm?, limit? (1–500, default 50), cursor?}`. Reply: `{ok, realm|null, requests:
 * [public request (§7.4)…], total, per_realm: {<realm>: n}, next_cursor}`. `total` and
 * `per_realm` count the filtered requests; `next_cursor` is null on the last page. A cursor
 * names a position (`<created_at>|<request_id>` of the last request returned), so it stays
 * valid when that request is decided meanwhile. Requests made in the same millisecond are
 * listed in the order they arrived.
 */
import {
  publicRequest,
  type AuthorizationRequest,
  type PublicRequest,
} from '../auth/authorization-requests';
import { CommandError, assertRealmName, type CommandBody } from './command-types';

/** Default and largest `limit` of one page. */
export const DEFAULT_REQUEST_PAGE = 50;
export const MAX_REQUEST_PAGE = 500;

export interface RequestServices {
  /** Every pending request (in `realm` when given), oldest first; absent → 501. */
  pendingRequests?(realm: string | undefined): Promise<AuthorizationRequest[]>;
}

const position = (r: AuthorizationRequest): string => `${r.created_at}|${r.request_id}`;

/**
 * The requests after position `cursor`: every later `created_at`; of the same millisecond,
 * those after the cursor's request — all of them when it is gone (decided meanwhile), as a
 * request shown twice is better than one skipped.
 */
function afterCursor(all: AuthorizationRequest[], cursor: string): AuthorizationRequest[] {
  const bar = cursor.indexOf('|');
  const createdAt = cursor.slice(0, bar);
  const id = cursor.slice(bar + 1);
  const at = all.findIndex((r) => r.request_id === id);
  return all.filter(
    (r, i) => r.created_at > createdAt || (r.created_at === createdAt && (at < 0 || i > at)),
  );
}

export type RequestPage = {
  ok: true;
  realm: string | null;
  requests: PublicRequest[];
  total: number;
  per_realm: Record<string, number>;
  next_cursor: string | null;
};

export async function listRequests(
  services: RequestServices,
  body: CommandBody,
): Promise<RequestPage> {
  if (!services.pendingRequests) throw new CommandError(501, 'list_requests is not available');
  const realm = typeof body.realm === 'string' && body.realm !== '' ? body.realm : undefined;
  if (realm !== undefined) assertRealmName(realm);
  const limit = body.limit ?? DEFAULT_REQUEST_PAGE;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw new CommandError(400, 'limit must be a positive integer');
  }
  const cursor = body.cursor ?? null;
  if (cursor !== null && (typeof cursor !== 'string' || !cursor.includes('|'))) {
    throw new CommandError(400, 'cursor must be a next_cursor of an earlier page');
  }
  // Oldest first; requests of the same millisecond keep the order they came in (stable sort).
  const all = (await services.pendingRequests(realm)).sort((a, b) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0,
  );
  const perRealm: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const r of all) perRealm[r.realm] = (perRealm[r.realm] ?? 0) + 1;
  const after = cursor === null ? all : afterCursor(all, cursor);
  const page = after.slice(0, Math.min(limit, MAX_REQUEST_PAGE));
  return {
    ok: true,
    realm: realm ?? null,
    requests: page.map(publicRequest),
    total: all.length,
    per_realm: { ...perRealm },
    next_cursor: after.length > page.length ? position(page[page.length - 1]!) : null,
  };
}
