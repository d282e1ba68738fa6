/**
 * The public settings view returned by management commands (`spec/protocol-admin.md` §8.4):
 * a redacted deep copy of the `auth` block plus `persistence` and `namespaces`. Clients (the
 * web manager, our console) depend on its exact shape, so the redaction rules are exactly the
 * spec's; on top of them (the §8.4 security note) credentials inside URLs are redacted.
 */
import type { AuthConfig, RealmConfig } from '../auth/auth-schema';
import { tokenHash } from '../auth/auth-state';
import { hasOwn } from './command-types';

/** Replaces the password (or, without one, the user name) of a URL; other strings unchanged. */
export const REDACTED = '<redacted>';
/** What a configured `jwt_secret` / `auth_secret` shows as (§8.4). */
export const CONFIGURED = '<configured>';

/** The persistence part of the view: top-level `storage` and `storage_options` (§8.4). */
export interface PersistenceView {
  storage: string;
  storage_options: Record<string, unknown>;
}

/** Redacts the credentials of a URL string; anything that is not such a URL is returned as is. */
export function redactUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!url.username && !url.password) return value;
  if (url.password) url.password = REDACTED;
  else url.username = REDACTED;
  return url.toString();
}

/** Keys whose string values are secrets wherever they appear (e.g. `sentinel.password`). */
const SECRET_KEY = /password/i;

/**
 * Deep copy with every URL string's credentials redacted, and the value of every key naming a
 * password (`storage_options.sentinel.password`, `sentinel_password`) replaced by `<redacted>`.
 */
export function redactUrlsDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactUrl(value);
  if (Array.isArray(value)) return value.map(redactUrlsDeep);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k) && typeof v === 'string' ? REDACTED : redactUrlsDeep(v);
    }
    return out;
  }
  return value;
}

/** One realm's public config (§8.4): keys and secrets replaced by `*_configured: true`. */
export function publicRealm(config: Readonly<RealmConfig>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (k === 'manager_key') {
      if (v) out.manager_key_configured = true;
    } else if (k === 'key') {
      if (v) out.key_configured = true;
    } else if (k === 'auth_secret') {
      if (v) out.auth_secret_configured = true;
    } else if (k === 'auth_url' && typeof v === 'string') {
      out.auth_url = redactUrl(v);
    } else {
      out[k] = structuredClone(v);
    }
  }
  return out;
}

/** The redacted `auth` block (§8.4), without `persistence` / `namespaces`. */
export function publicAuth(auth: Readonly<AuthConfig>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(auth)) {
    switch (k) {
      case 'realms': {
        const realms: Record<string, unknown> = {};
        for (const [name, config] of Object.entries(auth.realms)) {
          realms[name] = publicRealm(config);
        }
        out.realms = realms;
        break;
      }
      case 'tokens':
        out.tokens = auth.tokens.map((t) => ({
          realm: t.realm,
          role: t.role,
          client_id: t.client_id ?? null,
          client_name: t.client_name ?? null,
          token_hash: tokenHash(t.token),
        }));
        break;
      case 'jwt_secret':
      case 'auth_secret':
        if (v) out[k] = CONFIGURED;
        else if (v !== undefined) out[k] = v;
        break;
      case 'auth_url':
        out.auth_url = typeof v === 'string' ? redactUrl(v) : v;
        break;
      case 'external_validators':
        out.external_validators = auth.external_validators.map((e) => ({
          realm_prefix: e.realm_prefix,
          auth_url: redactUrl(e.auth_url),
          auth_secret_configured: Boolean(e.auth_secret),
        }));
        break;
      case 'management_tokens':
        out.management_tokens = auth.management_tokens.map((m) => {
          const view: Record<string, unknown> = {
            realm_prefix: m.realm_prefix,
            token_hash: tokenHash(m.token),
          };
          if (m.ephemeral_only) view.ephemeral_only = true;
          if (m.max_ttl !== undefined) view.max_ttl = m.max_ttl;
          return view;
        });
        break;
      default:
        out[k] = structuredClone(v);
    }
  }
  return out;
}

/**
 * The `namespaces` part (§8.4): `/remote` is built in; configured namespaces show their module
 * path (`{"/name": "path"}` or `{"/name": {module: "path", options}}`, names normalised to a
 * leading slash, §16.1).
 */
export function publicNamespaces(configured: unknown): Record<string, { module: string }> {
  const out: Record<string, { module: string }> = { '/remote': { module: 'built-in' } };
  if (typeof configured !== 'object' || configured === null || Array.isArray(configured)) {
    return out;
  }
  for (const [rawName, entry] of Object.entries(configured)) {
    const name = rawName.startsWith('/') ? rawName : `/${rawName}`;
    if (name === '/' || name === '/remote') continue;
    const module =
      typeof entry === 'string'
        ? entry
        : typeof entry === 'object' && entry !== null && hasOwn(entry, 'module')
          ? (entry as { module: unknown }).module
          : undefined;
    if (typeof module === 'string' && module) out[name] = { module };
  }
  return out;
}

/** The whole public settings view (§8.4). */
export function publicSettings(
  auth: Readonly<AuthConfig>,
  persistence: PersistenceView,
  namespaces: unknown,
): Record<string, unknown> {
  return {
    ...publicAuth(auth),
    persistence: {
      storage: persistence.storage,
      storage_options: redactUrlsDeep(persistence.storage_options),
    },
    namespaces: publicNamespaces(namespaces),
  };
}

/** The narrowed view a realm-scoped caller receives (§8.1): only its own realm. */
export function realmScopedSettings(
  auth: Readonly<AuthConfig>,
  realm: string,
): { realms: Record<string, unknown> } {
  const config = hasOwn(auth.realms, realm) ? auth.realms[realm] : undefined;
  return { realms: config ? { [realm]: publicRealm(config) } : {} };
}
