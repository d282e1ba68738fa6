/**
 * ConsoleApi contract of the Realms, Clients-and-tokens and Requests-queue views (issue 12):
 * realm lifecycle and flags, generated secrets, tokens, management tokens, external validators.
 * Every method names its `connectionId`; every one is a signed management command of
 * `spec/protocol-admin.md` §8.2 (or `AUTHORIZATION_NEXT`, §7.2) sent by the host.
 *
 * Secrets: no result carries one, except `revealGeneratedSecret`, the one deliberate exception —
 * the host generates a key (32 random bytes, hex), installs it on the broker and returns it once
 * so the operator can copy it. It is never stored by the console, listed, logged or audited.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const RealmName = z.string().min(1).max(256);
/** A realm TTL as the broker accepts it (§9.1): `300`, `"30m"`, `"2h"`, `"7d"`. */
const Ttl = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?(ms|s|m|h|d)?$/i, 'use e.g. 300, "30m", "2h", "7d"')
  .max(32);
const TokenHash = z.string().regex(/^[0-9a-f]{64}$/i, 'a 64-hex token hash');
const Role = z.enum(['producer', 'consumer', 'both', 'manager', 'admin']);

/** What a mutation did, for the confirmation line of the view (no secret). */
export const RealmActionSchema = z.object({
  connectionId: z.string(),
  /** The realm, management-token prefix or validator scope acted on. */
  target: z.string(),
  /** One sentence, e.g. "Realm fleet created (ephemeral, 2h)". */
  summary: z.string(),
});
export type RealmAction = z.infer<typeof RealmActionSchema>;

/** The kinds of secret the host can generate (§8.2 `set_realm_key`, `set_realm_manager_key`,
 * `add_management_token`). */
export const GeneratedSecretKind = z.enum(['realmKey', 'managerKey', 'managementToken']);
export type GeneratedSecretKind = z.infer<typeof GeneratedSecretKind>;

/** The one-shot reveal: the generated secret, returned once by `revealGeneratedSecret`. */
export const GeneratedSecretSchema = z.object({
  connectionId: z.string(),
  kind: GeneratedSecretKind,
  target: z.string(),
  /** 64 lowercase hex characters. Shown once; the console keeps no copy. */
  secret: z.string(),
  summary: z.string(),
});
export type GeneratedSecret = z.infer<typeof GeneratedSecretSchema>;

/** An approved client token (§8.4 `tokens[]`), never the token itself. */
export const ClientTokenSchema = z.object({
  realm: z.string(),
  role: z.string(),
  clientId: z.string().nullable(),
  clientName: z.string().nullable(),
  tokenHash: z.string(),
  /** A global admin token (`realm: "*"`, `role: "admin"`): not revocable from the console. */
  globalAdmin: z.boolean(),
});
export type ClientToken = z.infer<typeof ClientTokenSchema>;

/** A management (provisioning) token (§8.4 `management_tokens[]`, §10.7). */
export const ManagementTokenSchema = z.object({
  realmPrefix: z.string(),
  tokenHash: z.string(),
  ephemeralOnly: z.boolean(),
  maxTtl: z.string().nullable(),
});
export type ManagementTokenInfo = z.infer<typeof ManagementTokenSchema>;

/** An external validator (§4.4) in one of its three scopes. */
export const ValidatorSchema = z.object({
  scope: z.enum(['global', 'realm', 'prefix']),
  /** The realm or prefix; `""` for the global validator. */
  target: z.string(),
  /** The URL as the broker shows it (credentials inside it redacted by the broker). */
  url: z.string(),
  secretConfigured: z.boolean(),
});
export type ValidatorInfo = z.infer<typeof ValidatorSchema>;

export const TokenListSchema = z.object({
  connectionId: z.string(),
  tokens: z.array(ClientTokenSchema),
  managementTokens: z.array(ManagementTokenSchema),
  validators: z.array(ValidatorSchema),
});
export type TokenList = z.infer<typeof TokenListSchema>;

/** The §7.4 request as the console shows it (same shape as `AuthorizationRequestSchema`). */
const QueuedRequestSchema = z.object({
  requestId: z.string(),
  status: z.string(),
  realm: z.string(),
  role: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  challenge: z.string().nullable(),
  createdAt: z.number().nullable(),
  decidedAt: z.number().nullable(),
  decisionReason: z.string().nullable(),
});

/**
 * One page of the pending requests, oldest first. `total` and `perRealm` count every pending
 * request of the filter; `nextCursor` asks for the following page (null on the last one).
 * `complete` is false on a broker without `list_requests` (docs/management.md): it shows only
 * the oldest request of a filter (`AUTHORIZATION_NEXT`, §7.2), so the page holds the oldest one
 * overall plus the oldest of each configured realm.
 */
export const RequestQueueSchema = z.object({
  connectionId: z.string(),
  realm: z.string().nullable(),
  requests: z.array(QueuedRequestSchema),
  total: z.number().int().nonnegative(),
  perRealm: z.record(z.string(), z.number().int().nonnegative()),
  nextCursor: z.string().nullable(),
  complete: z.boolean(),
});
export type RequestQueue = z.infer<typeof RequestQueueSchema>;

const realmInput = { connectionId: ConnectionId, realm: RealmName };

export const RealmsMethods = {
  /**
   * `add_realm`: permanent, or ephemeral with `ttl` (default: the broker's, 1 day). Errors:
   * `SWB_ERR_VALIDATION` (bad ttl or name), the broker's refusal (e.g. 409 realm already exists).
   */
  createRealm: {
    input: z
      .object({
        ...realmInput,
        authRequired: z.boolean(),
        ephemeral: z.boolean(),
        ttl: Ttl.optional(),
        acceptanceRequired: z.boolean().optional(),
        /** `allow_tokenless_consumers` (issue 20): consumers without a token or key. */
        tokenlessConsumers: z.boolean().optional(),
      })
      .strict(),
    output: RealmActionSchema,
  },
  /** `set_realm_lifetime`: extend (restart the clock with `ttl`) or convert. */
  setRealmLifetime: {
    input: z.object({ ...realmInput, ephemeral: z.boolean(), ttl: Ttl.optional() }).strict(),
    output: RealmActionSchema,
  },
  /**
   * One realm switch: `auth` (`set_realm_auth`), `acceptance` (`set_realm_acceptance`),
   * `keyRequired` (keyless realm: `set_realm_key` with `key: null`; with a key set, Switchboard's
   * `set_realm_require_key`, which keeps the key — a plain tyo-mq broker, whose `set_realm_key`
   * changes the requirement only together with the key, gets `SWB_ERR_VALIDATION` saying so) or
   * `tokenlessConsumers` (`set_realm_tokenless_consumers`, Switchboard's, issue 20).
   */
  setRealmFlag: {
    input: z
      .object({
        ...realmInput,
        flag: z.enum(['auth', 'acceptance', 'keyRequired', 'tokenlessConsumers']),
        value: z.boolean(),
      })
      .strict(),
    output: RealmActionSchema,
  },
  /** Clears the realm's pre-shared key (`set_realm_key`) or manager key (`set_realm_manager_key`). */
  clearRealmSecret: {
    input: z.object({ ...realmInput, kind: z.enum(['realmKey', 'managerKey']) }).strict(),
    output: RealmActionSchema,
  },
  /**
   * `end_sessions` (issue 22 item 7): ends every live session of the realm (socket.io and MQTT);
   * clients that still hold a valid credential reconnect. The summary says how many ended.
   */
  endRealmSessions: {
    input: z.object(realmInput).strict(),
    output: RealmActionSchema,
  },
  /** `remove_realm`; `confirmName` must repeat the realm's name (type-the-name confirmation). */
  removeRealm: {
    input: z.object({ ...realmInput, confirmName: z.string().max(256) }).strict(),
    output: RealmActionSchema,
  },
  /**
   * THE ONE-SHOT REVEAL. Generates a secret in the host (32 random bytes, hex) and installs it:
   * `realmKey` → `set_realm_key` (with optional `requireKey`), `managerKey` →
   * `set_realm_manager_key` (both need `realm`), `managementToken` → `add_management_token`
   * (needs `realmPrefix`; optional `ephemeralOnly`, `maxTtl`). Rotating = generating again.
   * The result is the only ConsoleApi value that ever carries a secret.
   */
  revealGeneratedSecret: {
    input: z
      .object({
        connectionId: ConnectionId,
        kind: GeneratedSecretKind,
        realm: RealmName.optional(),
        requireKey: z.boolean().optional(),
        realmPrefix: z.string().min(1).max(256).optional(),
        ephemeralOnly: z.boolean().optional(),
        maxTtl: Ttl.optional(),
      })
      .strict(),
    output: GeneratedSecretSchema,
  },
  /** Client tokens, management tokens and external validators from the `get` settings (§8.4). */
  listTokens: { input: z.object({ connectionId: ConnectionId }).strict(), output: TokenListSchema },
  /** `revoke_token` by hash (the broker then disconnects that token's sessions). */
  revokeToken: {
    input: z.object({ connectionId: ConnectionId, tokenHash: TokenHash }).strict(),
    output: RealmActionSchema,
  },
  /** `revoke_management_token` by hash. */
  revokeManagementToken: {
    input: z.object({ connectionId: ConnectionId, tokenHash: TokenHash }).strict(),
    output: RealmActionSchema,
  },
  /**
   * `set_external_auth` (§8.3): sets the validator of a scope (`target` = realm or prefix; `""`
   * for global). `secret` absent keeps the current one; it is sent to the broker only.
   */
  setValidator: {
    input: z
      .object({
        connectionId: ConnectionId,
        scope: z.enum(['global', 'realm', 'prefix']),
        target: z.string().max(256),
        url: z
          .string()
          .url()
          .max(2048)
          .regex(/^https?:\/\//i, 'an http(s) URL'),
        secret: z.string().min(1).max(1024).optional(),
      })
      .strict(),
    output: RealmActionSchema,
  },
  /** `set_external_auth` with an empty URL: removes the validator of that scope. */
  removeValidator: {
    input: z
      .object({
        connectionId: ConnectionId,
        scope: z.enum(['global', 'realm', 'prefix']),
        target: z.string().max(256),
      })
      .strict(),
    output: RealmActionSchema,
  },
  /**
   * One page of the pending requests (see `RequestQueueSchema`), optionally of one realm;
   * `cursor` is a page's `nextCursor`, `limit` the page size (default 20).
   */
  listPendingRequests: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: RealmName.optional(),
        cursor: z.string().min(1).max(600).optional(),
        limit: z.number().int().min(1).max(200).optional(),
      })
      .strict(),
    output: RequestQueueSchema,
  },
} as const;

export const RealmsEvents = {} as const;

/** Roles a decision may grant (re-exported for the views). */
export const DecisionRole = Role;
