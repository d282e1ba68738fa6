/**
 * Token and global-switch commands of the management catalogue (`spec/protocol-admin.md`
 * §8.2): `set_global_auth`, `add_management_token`, `revoke_management_token`, `revoke_token`.
 * Pure mutations of a draft `auth` block. Tokens are matched by SHA-256 digest (§4.3 note).
 */
import { timingSafeEqual } from 'node:crypto';
import type { AuthConfig, ManagementToken, TokenEntry } from '../auth/auth-schema';
import { tokenHash } from '../auth/auth-state';
import { INVALID_MAX_TTL_MESSAGE, parseRealmTtlMs } from '../../shared/realm-ttl';
import { CommandError, pick, type CommandBody } from './command-types';

/** One revoked token as `revoke_token` reports it (§8.2). */
export interface RevokedToken {
  realm: string;
  role: string;
  client_id: string | null;
  client_name: string | null;
  token_hash: string;
}

const HEX64 = /^[0-9a-f]{64}$/i;

/** Constant-time comparison of two SHA-256 hex digests. */
function sameHash(a: string, b: string): boolean {
  if (!HEX64.test(a) || !HEX64.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** `set_global_auth` (§8.2): `auth.enabled = !!enabled`. */
export function setGlobalAuth(draft: AuthConfig, body: CommandBody): void {
  draft.enabled = !!body.enabled;
}

/** `add_management_token` (§8.2, §10.7). */
export function addManagementToken(draft: AuthConfig, body: CommandBody): void {
  const token = body.token;
  if (typeof token !== 'string' || token === '') throw new CommandError(400, 'token is required');
  const prefix = pick(body, 'realm_prefix', 'realmPrefix');
  if (typeof prefix !== 'string' || prefix === '') {
    throw new CommandError(400, 'realm_prefix is required');
  }
  const hash = tokenHash(token);
  if (draft.management_tokens.some((m) => sameHash(tokenHash(m.token), hash))) {
    throw new CommandError(409, 'management token already exists');
  }
  const entry: ManagementToken = { token, realm_prefix: prefix };
  if (pick(body, 'ephemeral_only', 'ephemeralOnly')) entry.ephemeral_only = true;
  const maxTtl = pick(body, 'max_ttl', 'maxTtl');
  if (maxTtl !== undefined && maxTtl !== null) {
    if (parseRealmTtlMs(maxTtl) === null) throw new CommandError(400, INVALID_MAX_TTL_MESSAGE);
    entry.max_ttl = maxTtl as number | string;
  }
  draft.management_tokens.push(entry);
}

/** `revoke_management_token` (§8.2): removes every management token with that hash. */
export function revokeManagementToken(draft: AuthConfig, body: CommandBody): void {
  const hash = pick(body, 'token_hash', 'tokenHash');
  if (typeof hash !== 'string' || hash === '') {
    throw new CommandError(400, 'token_hash is required');
  }
  const kept = draft.management_tokens.filter((m) => !sameHash(tokenHash(m.token), hash));
  if (kept.length === draft.management_tokens.length) {
    throw new CommandError(404, 'management token not found');
  }
  draft.management_tokens = kept;
}

function isGlobalAdmin(t: TokenEntry): boolean {
  return t.realm === '*' && t.role === 'admin';
}

/**
 * `revoke_token` (§8.2): criteria `token` | `token_hash` | (`realm` + `client_id`), OR-ed;
 * global admin tokens are kept unless `allow_admin: true`.
 * @returns the `revoked` list of the response.
 */
export function revokeToken(draft: AuthConfig, body: CommandBody): { revoked: RevokedToken[] } {
  const token = typeof body.token === 'string' && body.token ? body.token : undefined;
  const rawHash = pick(body, 'token_hash', 'tokenHash');
  const hash = typeof rawHash === 'string' && rawHash ? rawHash : undefined;
  const realm = typeof body.realm === 'string' && body.realm ? body.realm : undefined;
  const rawClient = pick(body, 'client_id', 'clientId');
  const clientId = typeof rawClient === 'string' && rawClient ? rawClient : undefined;
  const byClient = realm !== undefined && clientId !== undefined;
  if (!token && !hash && !byClient) {
    throw new CommandError(400, 'token, token_hash, or realm + client_id is required');
  }
  const tokenDigest = token ? tokenHash(token) : undefined;
  const allowAdmin = body.allow_admin === true;
  const revoked: RevokedToken[] = [];
  draft.tokens = draft.tokens.filter((t) => {
    const digest = tokenHash(t.token);
    const matches =
      (tokenDigest !== undefined && sameHash(digest, tokenDigest)) ||
      (hash !== undefined && sameHash(digest, hash)) ||
      (byClient && t.realm === realm && t.client_id === clientId);
    if (!matches || (isGlobalAdmin(t) && !allowAdmin)) return true;
    revoked.push({
      realm: t.realm,
      role: t.role,
      client_id: t.client_id ?? null,
      client_name: t.client_name ?? null,
      token_hash: digest,
    });
    return false;
  });
  if (revoked.length === 0) throw new CommandError(404, 'matching revocable token not found');
  return { revoked };
}
