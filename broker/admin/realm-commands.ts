/**
 * Realm commands of the management catalogue (`spec/protocol-admin.md` §8.2, §9): pure
 * mutations of a draft `auth` block (AuthState.update commits it whole or not at all).
 * Side effects on the running broker (disposal, disconnects) are the caller's, after commit.
 *
 * Hardening (§8.4 note, §3.5 note): realm names are never prototype keys; `*` is never created
 * by a command (it may be edited where it is already configured); `default` and `*` are never
 * removed, renamed or given a lifetime.
 */
import type { AuthConfig, ManagementToken, RealmConfig } from '../auth/auth-schema';
import { Protocol } from '../../shared/protocol-events';
import { INVALID_TTL_MESSAGE, defaultRealmTtlMs, parseRealmTtlMs } from '../../shared/realm-ttl';
import {
  CommandError,
  STRUCTURAL_REALMS,
  assertRealmName,
  has,
  hasOwn,
  pick,
  realmParam,
  type CommandBody,
  type ManagerScope,
} from './command-types';

const E2EE_MESSAGE = "e2ee must be 'off', 'opportunistic', or 'required'";

/** What a realm command hands back besides the new settings. */
export interface RealmCommandOutcome {
  /** The realm whose runtime state must be disposed of after commit (`remove_realm`). */
  disposed?: string;
  /** The realm whose sockets must be disconnected after commit (`rename_realm` source). */
  renamedFrom?: string;
  /** The raw tokens `rename_realm` retargeted (kept in memory, to revert a failed move). */
  retargeted?: string[];
  removed_tokens?: number;
}

function existing(draft: AuthConfig, realm: string): RealmConfig {
  if (!hasOwn(draft.realms, realm)) throw new CommandError(404, 'realm not found');
  return draft.realms[realm]!;
}

/** The realm's config, created empty when absent; `*` is never created by a command. */
function upsert(draft: AuthConfig, realm: string): RealmConfig {
  if (hasOwn(draft.realms, realm)) return draft.realms[realm]!;
  if (realm === Protocol.ADMIN_REALM) throw new CommandError(400, 'invalid realm name');
  const config: RealmConfig = {};
  draft.realms[realm] = config;
  return config;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Parameter names of the issue 20 opt-in (snake_case and the camelCase alias). */
export const TOKENLESS_KEYS = ['allow_tokenless_consumers', 'allowTokenlessConsumers'] as const;

/**
 * The `allow_tokenless_consumers` parameter (issue 20): undefined when absent (or null), else a
 * boolean; anything else is refused (400) rather than coerced — this opens a realm to readers.
 */
export function tokenlessParam(body: CommandBody, ...keys: string[]): boolean | undefined {
  const value = pick(body, ...(keys.length > 0 ? keys : TOKENLESS_KEYS));
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    throw new CommandError(400, 'allow_tokenless_consumers must be true or false');
  }
  return value;
}

/** Sets or (false) removes the opt-in, so the default (false) stays implicit in the settings. */
function applyTokenless(config: RealmConfig, allow: boolean | undefined): void {
  if (allow === true) config.allow_tokenless_consumers = true;
  else if (allow === false) delete config.allow_tokenless_consumers;
}

/** `add_realm` (§8.2, §9.2). */
export function addRealm(draft: AuthConfig, body: CommandBody, now: number): RealmCommandOutcome {
  const realm = realmParam(body);
  if (realm === Protocol.ADMIN_REALM) throw new CommandError(400, 'invalid realm name');
  if (hasOwn(draft.realms, realm)) throw new CommandError(409, 'realm already exists');
  const config: RealmConfig = { required: body.required === undefined ? true : !!body.required };
  const managerKey = optionalString(pick(body, 'manager_key', 'managerKey'));
  if (managerKey) config.manager_key = managerKey;
  const key = optionalString(pick(body, 'key', 'preshared_key', 'presharedKey'));
  if (key) config.key = key;
  const acceptance = pick(body, 'require_acceptance', 'requireAcceptance');
  if (acceptance !== undefined) config.require_acceptance = !!acceptance;
  applyTokenless(config, tokenlessParam(body));
  const e2ee = body.e2ee;
  if (e2ee !== undefined && e2ee !== null && e2ee !== 'off') {
    if (e2ee !== 'opportunistic' && e2ee !== 'required') throw new CommandError(400, E2EE_MESSAGE);
    config.e2ee = e2ee;
  }
  const ttl = pick(body, 'ttl');
  const ephemeral =
    !!body.ephemeral ||
    !!body.temporary ||
    !!body.disposable ||
    (ttl !== undefined && ttl !== null);
  if (ephemeral) {
    const ttlMs = ttl === undefined || ttl === null ? defaultTtl(draft) : parseRealmTtlMs(ttl);
    if (ttlMs === null) throw new CommandError(400, INVALID_TTL_MESSAGE);
    config.ephemeral = true;
    config.expires_at = now + ttlMs;
    config.ttl_ms = ttlMs;
  }
  draft.realms[realm] = config;
  return {};
}

/** `rename_realm` (§8.2): moves the config and retargets tokens; structural realms refused. */
export function renameRealm(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  const { from, to } = body;
  if (typeof from !== 'string' || !from || typeof to !== 'string' || !to) {
    throw new CommandError(400, 'from and to are required');
  }
  assertRealmName(from);
  assertRealmName(to);
  for (const name of [from, to]) {
    if (STRUCTURAL_REALMS.has(name)) {
      throw new CommandError(400, `cannot rename the "${name}" realm`);
    }
  }
  const config = existing(draft, from);
  if (hasOwn(draft.realms, to)) throw new CommandError(409, 'target realm already exists');
  delete draft.realms[from];
  draft.realms[to] = config;
  const retargeted: string[] = [];
  for (const token of draft.tokens) {
    if (token.realm !== from) continue;
    token.realm = to;
    retargeted.push(token.token);
  }
  return { renamedFrom: from, retargeted };
}

/** `remove_realm` (§8.2, §9.4 steps 1–2); the runtime disposal follows the commit. */
export function removeRealm(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  const realm = realmParam(body);
  if (STRUCTURAL_REALMS.has(realm)) {
    throw new CommandError(400, `cannot remove the "${realm}" realm`);
  }
  existing(draft, realm);
  return { ...disposeRealmConfig(draft, realm), disposed: realm };
}

/** Deletes a realm's config and scoped tokens (§9.4 steps 1–2); returns `removed_tokens`. */
export function disposeRealmConfig(draft: AuthConfig, realm: string): { removed_tokens: number } {
  delete draft.realms[realm];
  const before = draft.tokens.length;
  draft.tokens = draft.tokens.filter((t) => t.realm !== realm);
  return { removed_tokens: before - draft.tokens.length };
}

/**
 * `set_realm_auth` (§8.2): upsert; `required = !!required`; an optional
 * `allow_tokenless_consumers` (issue 20) is set in the same commit.
 */
export function setRealmAuth(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  const allow = tokenlessParam(body);
  const config = upsert(draft, realmParam(body));
  config.required = !!body.required;
  applyTokenless(config, allow);
  return {};
}

/**
 * `set_realm_tokenless_consumers` (Switchboard, issue 20): upsert; `allow_tokenless_consumers`
 * (alias `allow`, a boolean, required) opts the realm into (true) or out of (false) the
 * reference's token-less consumers. Realm `*` never admits them (§18 item 1): 400.
 */
export function setRealmTokenlessConsumers(
  draft: AuthConfig,
  body: CommandBody,
): RealmCommandOutcome {
  const realm = realmParam(body);
  const allow = tokenlessParam(body, ...TOKENLESS_KEYS, 'allow');
  if (allow === undefined) {
    throw new CommandError(400, 'allow_tokenless_consumers must be true or false');
  }
  if (realm === Protocol.ADMIN_REALM && allow) {
    throw new CommandError(400, 'realm "*" never admits token-less consumers');
  }
  applyTokenless(upsert(draft, realm), allow);
  return {};
}

/** `set_realm_manager_key` (§8.2): sets, rotates or (falsy) clears the manager key. */
export function setRealmManagerKey(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  const config = existing(draft, realmParam(body));
  const key = optionalString(pick(body, 'manager_key', 'managerKey'));
  if (key) config.manager_key = key;
  else delete config.manager_key;
  return {};
}

/** `set_realm_key` (§8.2): sets or (falsy) clears the consumer PSK; optional `require_key`. */
export function setRealmKey(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  const config = existing(draft, realmParam(body));
  const key = optionalString(pick(body, 'key', 'preshared_key', 'presharedKey'));
  if (key) config.key = key;
  else delete config.key;
  const requireKey = pick(body, 'require_key', 'requireKey');
  if (typeof requireKey === 'boolean') config.require_key = requireKey;
  return {};
}

/**
 * `set_realm_require_key` (Switchboard, issue 27): sets `require_key` (alias `requireKey`, a
 * boolean, required) and leaves the pre-shared key as it is. §8.2's `set_realm_key` changes the
 * requirement only together with the key (an absent key clears it), so a console without the
 * key in hand could turn the requirement off only by rotating the key. The realm must exist.
 */
export function setRealmRequireKey(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  const config = existing(draft, realmParam(body));
  const requireKey = pick(body, 'require_key', 'requireKey');
  if (typeof requireKey !== 'boolean') {
    throw new CommandError(400, 'require_key must be true or false');
  }
  config.require_key = requireKey;
  return {};
}

/** `set_realm_acceptance` (§8.2): upsert; `require_acceptance = !!required`. */
export function setRealmAcceptance(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  upsert(draft, realmParam(body)).require_acceptance = !!body.required;
  return {};
}

/** `set_realm_e2ee` (§8.2): `off` deletes the policy. */
export function setRealmE2ee(draft: AuthConfig, body: CommandBody): RealmCommandOutcome {
  const realm = realmParam(body);
  const policy = pick(body, 'e2ee', 'policy');
  if (policy !== 'off' && policy !== 'opportunistic' && policy !== 'required') {
    throw new CommandError(400, E2EE_MESSAGE);
  }
  const config = upsert(draft, realm);
  if (policy === 'off') delete config.e2ee;
  else config.e2ee = policy;
  return {};
}

/**
 * `set_realm_lifetime` (§9.3): extend, shorten or convert. A realm-scoped caller is capped by
 * every management token covering the realm (§9.5); admin callers never are.
 */
export function setRealmLifetime(
  draft: AuthConfig,
  body: CommandBody,
  scope: ManagerScope,
  now: number,
): RealmCommandOutcome {
  const realm = realmParam(body);
  if (STRUCTURAL_REALMS.has(realm)) {
    throw new CommandError(400, `cannot change the lifetime of the "${realm}" realm`);
  }
  const config = existing(draft, realm);
  let ephemeral = has(body, 'ephemeral', 'temporary')
    ? !!pick(body, 'ephemeral', 'temporary')
    : true;
  const ttl = pick(body, 'ttl');
  let ttlMs = ttl === undefined || ttl === null ? defaultTtl(draft) : parseRealmTtlMs(ttl);
  if (ttlMs === null && ephemeral) throw new CommandError(400, INVALID_TTL_MESSAGE);
  if (scope.kind === 'realm') {
    const caps = provisioningCaps(draft.management_tokens, realm);
    if (caps.ephemeralOnly) ephemeral = true;
    if (ttlMs === null) throw new CommandError(400, INVALID_TTL_MESSAGE);
    if (caps.maxTtlMs !== null) ttlMs = Math.ceil(Math.min(ttlMs, caps.maxTtlMs) / 1000) * 1000;
  }
  delete config.temporary;
  if (!ephemeral) {
    delete config.ephemeral;
    delete config.expires_at;
    delete config.ttl_ms;
  } else {
    config.ephemeral = true;
    config.expires_at = now + ttlMs!;
    config.ttl_ms = ttlMs!;
  }
  return {};
}

/** The prefix rule of §10.7: non-empty prefix, strictly longer realm, never `*`/`default`. */
export function prefixCovers(prefix: string, realm: string): boolean {
  return (
    prefix !== '' &&
    realm.startsWith(prefix) &&
    realm.length > prefix.length &&
    !STRUCTURAL_REALMS.has(realm)
  );
}

/** The strictest caps of the management tokens covering `realm` (§9.5). */
export function provisioningCaps(
  tokens: readonly ManagementToken[],
  realm: string,
): { ephemeralOnly: boolean; maxTtlMs: number | null } {
  let ephemeralOnly = false;
  let maxTtlMs: number | null = null;
  for (const token of tokens) {
    if (!prefixCovers(token.realm_prefix, realm)) continue;
    if (token.ephemeral_only) ephemeralOnly = true;
    const cap = token.max_ttl === undefined ? null : parseRealmTtlMs(token.max_ttl);
    if (cap !== null && (maxTtlMs === null || cap < maxTtlMs)) maxTtlMs = cap;
  }
  return { ephemeralOnly, maxTtlMs };
}

function defaultTtl(draft: AuthConfig): number {
  return defaultRealmTtlMs(draft.ephemeral_realm_ttl);
}

/** Whether a realm config is ephemeral (legacy `temporary` honoured, §9.2). */
export function isEphemeral(config: Readonly<RealmConfig>): boolean {
  return Boolean(config.ephemeral || config.temporary);
}
