/**
 * `set_external_auth` (`spec/protocol-admin.md` §8.3): the global, realm or prefix-scoped
 * external validator. A pure mutation of a draft `auth` block.
 *
 * Secret rule: `auth_secret` absent or null keeps the current secret, `""` clears it, any
 * other string sets it. An empty or absent `auth_url` removes the validator in that scope.
 */
import type { AuthConfig } from '../auth/auth-schema';
import { CommandError, assertRealmName, hasOwn, pick, type CommandBody } from './command-types';

/** A truthy `auth_url` must parse as an http(s) URL (the validator POSTs to it, §4.4). */
function urlParam(body: CommandBody): string | undefined {
  const raw = pick(body, 'auth_url', 'authUrl');
  if (!raw) return undefined;
  const invalid = new CommandError(400, 'auth_url must be a valid URL');
  if (typeof raw !== 'string') throw invalid;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid;
  return raw;
}

/** `undefined` = keep, `null` = clear, string = set. */
function secretParam(body: CommandBody): string | null | undefined {
  const raw = pick(body, 'auth_secret', 'authSecret');
  if (raw === undefined || raw === null) return undefined;
  if (raw === '') return null;
  return String(raw);
}

export function setExternalAuth(draft: AuthConfig, body: CommandBody): void {
  const realm = typeof body.realm === 'string' && body.realm ? body.realm : undefined;
  const rawPrefix = pick(body, 'realm_prefix', 'realmPrefix');
  const prefix = typeof rawPrefix === 'string' && rawPrefix ? rawPrefix : undefined;
  if (realm !== undefined && prefix !== undefined) {
    throw new CommandError(400, 'pass either realm or realm_prefix, not both');
  }
  const url = urlParam(body);
  const secret = secretParam(body);

  if (realm !== undefined) {
    assertRealmName(realm);
    if (!hasOwn(draft.realms, realm)) throw new CommandError(404, 'realm not found');
    const config = draft.realms[realm]!;
    if (url === undefined) {
      delete config.auth_url;
      delete config.auth_secret;
      return;
    }
    config.auth_url = url;
    if (secret === null) delete config.auth_secret;
    else if (secret !== undefined) config.auth_secret = secret;
    return;
  }

  if (prefix !== undefined) {
    const index = draft.external_validators.findIndex((e) => e.realm_prefix === prefix);
    const previous = index >= 0 ? draft.external_validators[index] : undefined;
    const list = draft.external_validators.filter((e) => e.realm_prefix !== prefix);
    if (url !== undefined) {
      const entry: AuthConfig['external_validators'][number] = {
        realm_prefix: prefix,
        auth_url: url,
      };
      const kept = secret === undefined ? previous?.auth_secret : (secret ?? undefined);
      if (kept) entry.auth_secret = kept;
      list.splice(index >= 0 ? index : list.length, 0, entry);
    }
    draft.external_validators = list;
    return;
  }

  if (url === undefined) delete draft.auth_url;
  else draft.auth_url = url;
  if (secret === null) delete draft.auth_secret;
  else if (secret !== undefined) draft.auth_secret = secret;
}
