/**
 * The broker's public settings (`spec/protocol-admin.md` §8.4) → the Clients-and-tokens view's
 * `TokenList`: approved client tokens, management tokens and external validators in their three
 * scopes (§4.4). The public view holds only hashes and "configured" flags, never a secret.
 */
import type {
  ClientToken,
  ManagementTokenInfo,
  TokenList,
  ValidatorInfo,
} from '../../shared/console-api-realms';

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const nullableStr = (value: unknown): string | null =>
  typeof value === 'string' && value ? value : null;
const list = (value: unknown): Json[] =>
  Array.isArray(value) ? value.filter((v): v is Json => !!v && typeof v === 'object') : [];

/** Maps the `settings` of a `get` reply; unknown or missing parts give empty lists. */
export function toTokenList(connectionId: string, settings: unknown): TokenList {
  const auth = (settings ?? {}) as Json;
  const tokens: ClientToken[] = list(auth.tokens).map((t) => ({
    realm: str(t.realm) || 'default',
    role: str(t.role) || 'both',
    clientId: nullableStr(t.client_id),
    clientName: nullableStr(t.client_name),
    tokenHash: str(t.token_hash),
    globalAdmin: t.realm === '*' && t.role === 'admin',
  }));
  const managementTokens: ManagementTokenInfo[] = list(auth.management_tokens).map((m) => ({
    realmPrefix: str(m.realm_prefix),
    tokenHash: str(m.token_hash),
    ephemeralOnly: m.ephemeral_only === true,
    maxTtl:
      typeof m.max_ttl === 'string' || typeof m.max_ttl === 'number' ? String(m.max_ttl) : null,
  }));
  const validators: ValidatorInfo[] = [];
  if (str(auth.auth_url)) {
    validators.push({
      scope: 'global',
      target: '',
      url: str(auth.auth_url),
      secretConfigured: typeof auth.auth_secret === 'string' && auth.auth_secret !== '',
    });
  }
  const realms = (auth.realms ?? {}) as Record<string, Json>;
  for (const [name, config] of Object.entries(realms)) {
    const url = str(config?.auth_url) || str(config?.authUrl);
    if (url) {
      validators.push({
        scope: 'realm',
        target: name,
        url,
        secretConfigured: config.auth_secret_configured === true,
      });
    }
  }
  for (const v of list(auth.external_validators)) {
    validators.push({
      scope: 'prefix',
      target: str(v.realm_prefix),
      url: str(v.auth_url),
      secretConfigured: v.auth_secret_configured === true,
    });
  }
  tokens.sort(
    (a, b) => a.realm.localeCompare(b.realm) || str(a.clientId).localeCompare(str(b.clientId)),
  );
  return { connectionId, tokens, managementTokens, validators };
}
