/**
 * The `auth` block of the settings (`spec/protocol-admin.md` §12.2): realms, tokens, JWT and
 * external-validator secrets, management tokens and the admin-token bootstrap keys.
 *
 * Aliases (`managerKey`, `preshared_key`, `requireKey`, `managementTokens`, …) are folded to
 * their canonical snake_case key by `normalizeAuthAliases` before validation, so the strict
 * schema sees one spelling. Realm names are validated (§18 item 10: never `__proto__`,
 * `constructor`, `prototype`) and realm maps are null-prototype objects.
 */
import { z } from 'zod';
import { parseRealmTtlMs } from '../../shared/realm-ttl';

/** The five roles of §3.1. A token's role outside this list is refused (§18 item 5). */
export const ROLES = ['producer', 'consumer', 'both', 'manager', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Roles a client may obtain without a token (role-declared connections, §2.3 step 7). */
export const CONNECT_ROLES = ['producer', 'consumer', 'both'] as const;

/** Names that would pollute a plain object's prototype (§8.4 note, §18 item 10). */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Longest realm name accepted, in UTF-16 code units. */
export const MAX_REALM_NAME_LENGTH = 256;

/** A realm name: non-empty, at most 256 code units, never a prototype key. */
export const RealmName = z
  .string()
  .min(1)
  .max(MAX_REALM_NAME_LENGTH)
  .refine((s) => !RESERVED_NAMES.has(s), { message: 'reserved realm name' });

/**
 * A TTL as §9.1 accepts it: seconds (number, above 0) or `<number>[ms|s|m|h]`. Anything else
 * (`"30 seconds"`, `"2 days"`) is refused with the key's path rather than silently replaced by the
 * default where it is used (issue 7 item 8: one duration grammar everywhere).
 */
const TtlValue = z
  .union([z.number(), z.string()])
  .refine((value) => parseRealmTtlMs(value) !== null, {
    message: 'is not a duration (a number of seconds above 0, or <number>ms|s|m|h)',
  });

/** Shortest `jwt_secret` accepted, in UTF-8 bytes: an HS256 key at least as long as the hash output (RFC 7518 §3.2). */
export const MIN_JWT_SECRET_BYTES = 32;
/** Fewest distinct characters a `jwt_secret` must use. */
export const MIN_JWT_SECRET_DISTINCT = 8;
/**
 * Least estimated entropy of a `jwt_secret` (bits): its length times the Shannon entropy of its
 * own character distribution. A random 32-character hex secret (128 bits) estimates ~110; one
 * character or one word repeated estimates far less.
 */
export const MIN_JWT_SECRET_BITS = 96;

/**
 * Why `secret` is too weak to sign session tokens (issue 20 defect 6), or null. The floor is
 * documented in docs/configuration.md; it catches short, repetitive and low-entropy secrets, not
 * every guessable one — generate it (`openssl rand -base64 32`).
 */
export function jwtSecretWeakness(secret: string): string | null {
  const advice = 'use a random secret of at least 32 bytes, e.g. `openssl rand -base64 32`';
  const bytes = Buffer.byteLength(secret, 'utf8');
  if (bytes < MIN_JWT_SECRET_BYTES) {
    return `is too weak: ${bytes} bytes, at least ${MIN_JWT_SECRET_BYTES} required (${advice})`;
  }
  const chars = [...secret];
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  if (counts.size < MIN_JWT_SECRET_DISTINCT) {
    return `is too weak: ${counts.size} distinct characters, at least ${MIN_JWT_SECRET_DISTINCT} required (${advice})`;
  }
  let perChar = 0;
  for (const n of counts.values()) {
    const p = n / chars.length;
    perChar -= p * Math.log2(p);
  }
  const bits = Math.floor(perChar * chars.length);
  if (bits < MIN_JWT_SECRET_BITS) {
    return `is too weak: about ${bits} bits of entropy, at least ${MIN_JWT_SECRET_BITS} required (${advice})`;
  }
  return null;
}

const JwtSecret = z
  .string()
  .min(1)
  .superRefine((secret, ctx) => {
    const weakness = jwtSecretWeakness(secret);
    if (weakness !== null) ctx.addIssue({ code: 'custom', message: weakness });
  });

/** One realm's configuration (§12.2), canonical keys only. */
export const RealmConfigSchema = z
  .object({
    required: z.boolean().optional(),
    manager_key: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    require_key: z.boolean().optional(),
    require_acceptance: z.boolean().optional(),
    allow_anonymous: z.boolean().optional(),
    /**
     * Switchboard (issue 20): admit consumers (and `both`) with no token and no key into this
     * realm although it requires auth — the reference's rule (§2.3 step 7, §3.4, §3.5). Default
     * false: an auth-required realm admits a consumer only with a token, a JWT or its key.
     */
    allow_tokenless_consumers: z.boolean().optional(),
    e2ee: z.enum(['opportunistic', 'required']).optional(),
    /**
     * Sealed sender (`spec/protocol-extensions.md` Note 4-G, Switchboard): who may
     * `SEALED_DELIVER` into this realm — `"any"` (default, the reference) or `"same-realm"`.
     */
    sealed_accept_from: z.enum(['any', 'same-realm']).optional(),
    ephemeral: z.boolean().optional(),
    /** Legacy spelling of `ephemeral`, still honoured when read (§9.2). */
    temporary: z.boolean().optional(),
    /** Epoch ms. */
    expires_at: z.number().optional(),
    /**
     * Switchboard: the lifetime, ms, that set `expires_at` (the last `add_realm` /
     * `set_realm_lifetime` ttl, after any cap), so a console can show the realm's TTL and not
     * only its end. Informational: expiry reads `expires_at` alone.
     */
    ttl_ms: z.number().int().positive().optional(),
    auth_url: z.string().min(1).optional(),
    auth_secret: z.string().optional(),
  })
  .strict();
export type RealmConfig = z.infer<typeof RealmConfigSchema>;

/** A static token (§4.3) — configured, bootstrapped (§5) or approved (§7.3). */
export const TokenEntrySchema = z
  .object({
    token: z.string().min(1),
    realm: RealmName.or(z.literal('*')).default('default'),
    role: z.enum(ROLES).default('both'),
    client_id: z.string().nullable().optional(),
    client_name: z.string().nullable().optional(),
    approved_at: z.string().optional(),
    org_id: z.string().optional(),
  })
  .strict();
export type TokenEntry = z.infer<typeof TokenEntrySchema>;

/** A prefix-scoped management token for `POST /api/realms` (§10.7). */
export const ManagementTokenSchema = z
  .object({
    token: z.string().min(1),
    realm_prefix: z.string().min(1),
    ephemeral_only: z.boolean().optional(),
    max_ttl: TtlValue.optional(),
  })
  .strict();
export type ManagementToken = z.infer<typeof ManagementTokenSchema>;

/** A prefix-scoped external validator (§4.4). */
export const ExternalValidatorSchema = z
  .object({
    realm_prefix: z.string().min(1),
    auth_url: z.string().min(1),
    auth_secret: z.string().optional(),
  })
  .strict();
export type ExternalValidator = z.infer<typeof ExternalValidatorSchema>;

/**
 * The `auth` block. Switchboard additions (hardening options of §2.3, §4.2 and §7.5 notes) are
 * marked; everything else is the reference's key.
 */
export const AuthConfigSchema = z
  .object({
    enabled: z.boolean().default(false),
    realms: z.record(RealmName.or(z.literal('*')), RealmConfigSchema).default({}),
    tokens: z.array(TokenEntrySchema).default([]),
    /** HS256 secret of session JWTs; weak ones are refused (`jwtSecretWeakness`). */
    jwt_secret: JwtSecret.optional(),
    auth_url: z.string().min(1).optional(),
    auth_secret: z.string().optional(),
    external_validators: z.array(ExternalValidatorSchema).default([]),
    management_tokens: z.array(ManagementTokenSchema).default([]),
    ephemeral_realm_ttl: TtlValue.optional(),
    env_file: z.string().min(1).optional(),
    admin_token_env: z.string().min(1).optional(),
    auto_admin_token: z.boolean().optional(),
    /** Documentation-only friendly layer (§12.2); not enforced. */
    orgs: z.record(z.string(), z.unknown()).optional(),
    /** Switchboard: refuse JWTs without `exp` (§4.2 note). Default false (accepted, logged). */
    require_jwt_exp: z.boolean().optional(),
    /** Switchboard: allow a global-secret JWT to claim realm `*` (§4.2 note). Default false. */
    allow_jwt_admin_realm: z.boolean().optional(),
    /** Switchboard: refuse a token whose realm differs from the declared one (§2.3 note). */
    reject_realm_mismatch: z.boolean().optional(),
    /** Switchboard: pending authorization requests expire after this (§7.5 note); "24h". */
    request_ttl: TtlValue.optional(),
  })
  .strict();
export type AuthConfig = z.infer<typeof AuthConfigSchema>;
export type AuthConfigInput = z.input<typeof AuthConfigSchema>;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const AUTH_ALIASES: Record<string, string> = {
  jwtSecret: 'jwt_secret',
  authUrl: 'auth_url',
  authSecret: 'auth_secret',
  externalValidators: 'external_validators',
  managementTokens: 'management_tokens',
  ephemeralRealmTtl: 'ephemeral_realm_ttl',
  temporary_realm_ttl: 'ephemeral_realm_ttl',
  temporaryRealmTtl: 'ephemeral_realm_ttl',
  envFile: 'env_file',
  adminTokenEnv: 'admin_token_env',
  autoAdminToken: 'auto_admin_token',
};
const REALM_ALIASES: Record<string, string> = {
  managerKey: 'manager_key',
  preshared_key: 'key',
  presharedKey: 'key',
  requireKey: 'require_key',
  requireAcceptance: 'require_acceptance',
  allowAnonymous: 'allow_anonymous',
  allowTokenlessConsumers: 'allow_tokenless_consumers',
  expiresAt: 'expires_at',
  authUrl: 'auth_url',
  authSecret: 'auth_secret',
};
const MANAGEMENT_TOKEN_ALIASES: Record<string, string> = {
  realmPrefix: 'realm_prefix',
  ephemeralOnly: 'ephemeral_only',
  maxTtl: 'max_ttl',
};
const VALIDATOR_ALIASES: Record<string, string> = {
  realmPrefix: 'realm_prefix',
  authUrl: 'auth_url',
  authSecret: 'auth_secret',
};

function fold(obj: Json, aliases: Record<string, string>): Json {
  const out: Json = Object.create(null) as Json;
  for (const [k, v] of Object.entries(obj)) {
    const canonical = aliases[k];
    if (canonical === undefined) out[k] = v;
    else if (!(canonical in obj)) out[canonical] = v;
  }
  return out;
}

/** Folds the aliases of an `auth` block (top level, realms, tokens lists); pure. */
export function normalizeAuthAliases(input: unknown): unknown {
  if (!isObject(input)) return input;
  const auth = fold(input, AUTH_ALIASES);
  if (isObject(auth.realms)) {
    const realms: Json = Object.create(null) as Json;
    for (const [name, config] of Object.entries(auth.realms)) {
      realms[name] = isObject(config) ? fold(config, REALM_ALIASES) : config;
    }
    auth.realms = realms;
  }
  const foldList = (key: string, aliases: Record<string, string>) => {
    const list = auth[key];
    if (Array.isArray(list)) auth[key] = list.map((e) => (isObject(e) ? fold(e, aliases) : e));
  };
  foldList('management_tokens', MANAGEMENT_TOKEN_ALIASES);
  foldList('external_validators', VALIDATOR_ALIASES);
  return { ...auth };
}

/**
 * Validates an `auth` block (aliases folded first). Realm maps come back null-prototype.
 * @returns the zod result; callers report `error.issues` with their paths.
 */
export function parseAuthConfig(input: unknown) {
  const result = AuthConfigSchema.safeParse(normalizeAuthAliases(input ?? {}));
  if (result.success) {
    result.data.realms = Object.assign(
      Object.create(null) as AuthConfig['realms'],
      result.data.realms,
    );
  }
  return result;
}

/**
 * The first five issues of a failed `parseAuthConfig`, each named by its settings path
 * (`auth.realms.alpha.require_key: …`, or `auth: …` for a key at the block's root).
 */
export function describeAuthIssues(issues: readonly { path: PropertyKey[]; message: string }[]) {
  return issues
    .slice(0, 5)
    .map((i) => `${['auth', ...i.path.map(String)].join('.')}: ${i.message}`)
    .join('; ');
}
