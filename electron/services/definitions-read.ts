/**
 * Reads a broker's definitions (issue 27) with signed management commands — `get` (§8.4
 * public settings) and `realm_keys` (docs/management.md "Realm keys for definitions export") —
 * and maps them onto the definitions document (shared/definitions-document.ts). The same read
 * serves export and the "current" side of an import's diff, for local and remote brokers alike.
 */
import {
  DEFINITIONS_FORMAT,
  DEFINITIONS_VERSION,
  type DefinitionsDocument,
  type RealmDefinition,
} from '../../shared/definitions-document';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { RealmKeyMap } from './definitions-crypto';
import type { ManagerClient } from './manager-client';
import { toTokenList } from './token-list';

type Json = Record<string, unknown>;
const bool = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);
const sha = (value: unknown): string | null =>
  typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? value : null;
const E2EE = new Set(['off', 'opportunistic', 'required']);

/** What a definitions read returns: the document, and the keys in clear only when revealed. */
export interface DefinitionsRead {
  document: DefinitionsDocument;
  keys: RealmKeyMap | null;
}

/** One §8.4 public realm config plus its `realm_keys` entry → a realm definition. */
function toRealm(name: string, config: Json, keys: Json | undefined): RealmDefinition {
  const ephemeral = config.ephemeral === true || config.temporary === true;
  const ttlMs = typeof config.ttl_ms === 'number' && config.ttl_ms > 0 ? config.ttl_ms : null;
  return {
    name,
    required: config.required !== false,
    require_key: bool(config.require_key),
    require_acceptance: bool(config.require_acceptance),
    allow_tokenless_consumers: config.allow_tokenless_consumers === true,
    e2ee:
      typeof config.e2ee === 'string' && E2EE.has(config.e2ee)
        ? (config.e2ee as RealmDefinition['e2ee'])
        : 'off',
    ephemeral,
    ttl_seconds: ephemeral && ttlMs !== null ? Math.max(1, Math.round(ttlMs / 1000)) : null,
    keys: { key_sha256: sha(keys?.key_sha256), manager_key_sha256: sha(keys?.manager_key_sha256) },
  };
}

/**
 * Reads the definitions of the broker behind `manager`; `reveal` also reads the keys in clear
 * (for an encrypted export; audited as `realm_keys` with `reveal`).
 * @throws SwitchboardError `SWB_ERR_NOT_SUPPORTED` when the broker has no `realm_keys` (plain
 *   tyo-mq), else the client's errors (refusal, unreachable).
 */
export async function readDefinitions(
  manager: Pick<ManagerClient, 'command'>,
  origin: { name: string; url: string },
  reveal: boolean,
): Promise<DefinitionsRead> {
  const reply = await manager.command({ command: 'get' });
  let keyReply: Json;
  try {
    keyReply = await manager.command(
      reveal ? { command: 'realm_keys', reveal: true } : { command: 'realm_keys' },
    );
  } catch (error) {
    if (/unknown management command/i.test((error as Error).message)) {
      throw new SwitchboardError(
        'SWB_ERR_NOT_SUPPORTED',
        'This broker does not offer realm_keys: definitions export and import need a Switchboard broker.',
      );
    }
    throw error;
  }
  const settings = (reply.settings ?? {}) as Json;
  const realmConfigs = (settings.realms ?? {}) as Record<string, Json>;
  const realmKeys = (keyReply.realms ?? {}) as Record<string, Json>;
  const realms = Object.entries(realmConfigs)
    .map(([name, config]) => toRealm(name, config ?? {}, realmKeys[name]))
    .sort((a, b) => a.name.localeCompare(b.name));
  const list = toTokenList('', settings);
  const persistence = (settings.persistence ?? {}) as Json;
  const document: DefinitionsDocument = {
    format: DEFINITIONS_FORMAT,
    version: DEFINITIONS_VERSION,
    exported_at: new Date().toISOString(),
    broker: {
      name: origin.name,
      url: origin.url,
      version: typeof reply.version === 'string' ? reply.version : null,
    },
    settings: {
      auth_enabled: settings.enabled === true,
      storage: typeof persistence.storage === 'string' ? persistence.storage : null,
    },
    limits: null,
    realms,
    tokens: list.tokens
      .filter((t) => sha(t.tokenHash) !== null)
      .map((t) => ({
        realm: t.realm,
        role: t.role,
        client_id: t.clientId,
        client_name: t.clientName,
        token_hash: t.tokenHash,
      })),
    management_tokens: list.managementTokens
      .filter((m) => sha(m.tokenHash) !== null)
      .map((m) => ({
        realm_prefix: m.realmPrefix,
        token_hash: m.tokenHash,
        ephemeral_only: m.ephemeralOnly,
        max_ttl: m.maxTtl,
      })),
    validators: list.validators.map((v) => ({
      scope: v.scope,
      target: v.target,
      url: v.url,
      secret_configured: v.secretConfigured,
    })),
  };
  if (!reveal) return { document, keys: null };
  const keys: RealmKeyMap = {};
  for (const realm of realms) {
    const entry = realmKeys[realm.name] ?? {};
    keys[realm.name] = {
      key: typeof entry.key === 'string' ? entry.key : null,
      manager_key: typeof entry.manager_key === 'string' ? entry.manager_key : null,
    };
  }
  return { document, keys };
}
