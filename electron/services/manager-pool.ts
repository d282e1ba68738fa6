/**
 * One ManagerClient per connection, created on first use and replaced when the broker's address
 * changes (the local broker restarted on another port), plus the mapping of the broker's wire
 * shapes (§7.4 public request, §8.4 public settings) onto the ConsoleApi's.
 *
 * Source: ARCHITECTURE §1 (ManagerClient ×N), `spec/protocol-admin.md` §3.5, §7.4, §8.4.
 */
import type {
  AuthorizationRequest,
  ConsumerAccess,
  RealmInUse,
  RealmList,
  RealmSummary,
} from '../../shared/console-api';
import type { ActivityOrigin } from '../../shared/console-api-activity';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { ConnectionManager } from './connection-manager';
import { ManagerClient } from './manager-client';

/** Longest challenge text handed to the UI, in characters (the spec's hardening cap is 4 KiB). */
const MAX_CHALLENGE_CHARS = 4_096;

export class ManagerPool {
  private readonly clients = new Map<string, ManagerClient>();
  private readonly detach: () => void;

  constructor(
    private readonly connections: ConnectionManager,
    private readonly timeoutMs = 5_000,
  ) {
    // An edited or removed profile may have a new URL, TLS options or secret: start afresh.
    this.detach = connections.onChange((changedId) => {
      if (changedId !== null) this.forget(changedId);
    });
  }

  /** Whether the console's management connection to `connectionId` is open now. */
  isConnected(connectionId: string): boolean {
    return this.clients.get(connectionId)?.connected() ?? false;
  }

  /** Closes and drops the client of `connectionId` (the next `get` opens a new one). */
  forget(connectionId: string): void {
    this.clients.get(connectionId)?.close();
    this.clients.delete(connectionId);
  }

  /**
   * The manager client of `connectionId`.
   * Its public shape (`next`, `decide`, `command`) is what other console services build on.
   * @throws SwitchboardError `SWB_ERR_NOT_FOUND` (unknown id), `SWB_ERR_BROKER_NOT_RUNNING` (local
   *   broker down), `SWB_ERR_UNAUTHORIZED` (no credential configured), `SWB_ERR_BROKER_UNREACHABLE`
   *   (a profile that cannot be used, e.g. an unreadable CA file).
   * `_origin`: who the calls are for — the operator (default) or the console's own background
   * work; this pool ignores it, the audited pool (activity-log.ts) records it.
   */
  get(connectionId: string, _origin: ActivityOrigin = 'operator'): ManagerClient {
    const profile = this.connections.profile(connectionId);
    let target: ReturnType<typeof profile.target>;
    try {
      target = profile.target();
    } catch (error) {
      throw new SwitchboardError('SWB_ERR_BROKER_UNREACHABLE', (error as Error).message);
    }
    if (!target) {
      throw new SwitchboardError(
        profile.local ? 'SWB_ERR_BROKER_NOT_RUNNING' : 'SWB_ERR_BROKER_UNREACHABLE',
      );
    }
    const secret = profile.secret?.() ?? null;
    if (!secret) {
      throw new SwitchboardError(
        'SWB_ERR_UNAUTHORIZED',
        `No credential is configured for connection ${connectionId}`,
      );
    }
    const existing = this.clients.get(connectionId);
    if (existing?.url === target.baseUrl) return existing;
    existing?.close();
    const client = new ManagerClient({
      url: target.baseUrl,
      secret,
      timeoutMs: this.timeoutMs,
      ...(target.tls ? { tls: target.tls } : {}),
    });
    this.clients.set(connectionId, client);
    return client;
  }

  /** Closes every client. */
  close(): void {
    this.detach();
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const time = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
};

/** §7.4 public request → `AuthorizationRequest` (the token hash is not passed on). */
export function toAuthorizationRequest(raw: Record<string, unknown>): AuthorizationRequest {
  const challenge = raw.challenge_response;
  const text =
    challenge === null || challenge === undefined
      ? null
      : typeof challenge === 'string'
        ? challenge
        : JSON.stringify(challenge);
  return {
    requestId: str(raw.request_id),
    status: str(raw.status),
    realm: str(raw.realm),
    role: str(raw.role) || 'both',
    clientId: str(raw.client_id),
    clientName: str(raw.client_name),
    challenge: text === null ? null : text.slice(0, MAX_CHALLENGE_CHARS),
    createdAt: time(raw.created_at),
    decidedAt: time(raw.decided_at),
    decisionReason: typeof raw.decision_reason === 'string' ? raw.decision_reason : null,
  };
}

/**
 * Who may consume (issue 20; broker/auth/realm-policy.ts `tokenlessConsumersAllowed`): a realm
 * requiring auth admits a consumer with a token, a JWT or its key, and without any of them only
 * when it sets `allow_tokenless_consumers` and requires no key. (A reference tyo-mq broker
 * ignores that setting and admits token-less consumers wherever no key is required.)
 */
function consumerAccess(
  authRequired: boolean,
  keyRequired: boolean,
  keyConfigured: boolean,
  tokenless: boolean,
): ConsumerAccess {
  if (!authRequired) return 'open';
  if (keyRequired) return 'token-or-key';
  if (tokenless) return 'tokenless';
  return keyConfigured ? 'token-or-key' : 'token';
}

/**
 * §8.4 public settings → realm list, with the §3.5 requirement defaults resolved: auth required
 * unless `required: false`; key required when `require_key`, else when a key is configured;
 * acceptance required when `require_acceptance`, else when auth is required.
 */
export function toRealmList(connectionId: string, settings: unknown): RealmList {
  const auth = (settings ?? {}) as Record<string, unknown>;
  const authEnabled = auth.enabled === true;
  const realms = (auth.realms ?? {}) as Record<string, Record<string, unknown>>;
  const list: RealmSummary[] = Object.entries(realms).map(([name, config]) => {
    const authRequired = authEnabled && config.required !== false;
    const keyConfigured = config.key_configured === true;
    const bool = (key: string, fallback: boolean): boolean =>
      typeof config[key] === 'boolean' ? (config[key] as boolean) : fallback;
    const keyRequired = authEnabled && bool('require_key', keyConfigured);
    const tokenlessConsumers = config.allow_tokenless_consumers === true;
    return {
      name,
      authRequired,
      keyConfigured,
      keyRequired,
      managerKeyConfigured: config.manager_key_configured === true,
      acceptanceRequired: authEnabled && bool('require_acceptance', authRequired),
      tokenlessConsumers,
      consumerAccess: consumerAccess(authRequired, keyRequired, keyConfigured, tokenlessConsumers),
      ephemeral: config.ephemeral === true,
      expiresAt: time(config.expires_at),
      ttlMs:
        config.ephemeral === true && typeof config.ttl_ms === 'number' && config.ttl_ms > 0
          ? config.ttl_ms
          : null,
    };
  });
  list.sort((a, b) => a.name.localeCompare(b.name));
  return { connectionId, authEnabled, realms: list, inUse: [] };
}

/**
 * The realms of a `stats` reply (§10.5 shape, `{realms: {<name>: {producers: {online}, consumers:
 * {online}}}}`) that have online clients and are not in `configured`, by name. Anything else in
 * the reply (a plain tyo-mq broker's other shape) is ignored: no realm is invented.
 */
export function realmsInUse(stats: unknown, configured: ReadonlySet<string>): RealmInUse[] {
  const realms = (stats as { realms?: unknown } | null)?.realms;
  if (typeof realms !== 'object' || realms === null) return [];
  const online = (v: unknown): number => {
    const n = (v as { online?: unknown } | null)?.online;
    return typeof n === 'number' && Number.isFinite(n) ? n : 0;
  };
  const list: RealmInUse[] = [];
  for (const [name, entry] of Object.entries(realms as Record<string, unknown>)) {
    if (configured.has(name) || name === '*') continue;
    const e = (entry ?? {}) as { producers?: unknown; consumers?: unknown };
    const producers = online(e.producers);
    const consumers = online(e.consumers);
    if (producers + consumers > 0) list.push({ name, producers, consumers });
  }
  return list.sort((a, b) => a.name.localeCompare(b.name));
}
