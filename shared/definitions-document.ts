/**
 * The definitions document (issue 27, "Definitions export/import"; like RabbitMQ's definitions
 * file): one versioned JSON document with a broker's realms and their settings, its tokens' and
 * management tokens' metadata, its external validators and its broker-wide settings, built by the
 * console host from signed management commands (`get`, `realm_keys`; `spec/protocol-admin.md`
 * §8.2, §8.4, docs/management.md) and applied back as signed commands.
 *
 * Secrets: a token, a validator secret or the admin token is never in it. Realm keys appear as
 * SHA-256 hex (`keys`) and — only in an encrypted export the operator opted in to — inside
 * `encrypted_keys`, AES-256-GCM under a passphrase-derived key (electron/services/
 * definitions-crypto.ts documents the parameters). Parsing never throws: `parseDefinitions`
 * answers a clear message for bad JSON, another format, a newer version or a bad shape.
 */
import { z } from 'zod';

export const DEFINITIONS_FORMAT = 'switchboard-definitions';
export const DEFINITIONS_VERSION = 1;

/** Largest document accepted, in characters (10,000 realms stay far below). */
export const MAX_DEFINITIONS_CHARS = 8 * 1024 * 1024;

/**
 * What to tell an operator whose file is over `MAX_DEFINITIONS_CHARS` (`chars`: its length):
 * the limit, and how to get under it (trial finding 15).
 */
export function definitionsTooLargeMessage(chars: number): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  return (
    `The file has ${fmt(chars)} characters; one import takes at most ${fmt(MAX_DEFINITIONS_CHARS)}. ` +
    'Split it into several files, each with part of the realms, and import them one after ' +
    'another without "Also remove what the file does not have".'
  );
}

const Sha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'a SHA-256 hex digest')
  .nullable();
const B64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');

export const E2eePolicy = z.enum(['off', 'opportunistic', 'required']);

/**
 * One realm (§3.5, §9). `require_key` / `require_acceptance` are null when the realm leaves them
 * to the §3.5 defaults. `ttl_seconds`: an ephemeral realm's lifetime, null when permanent or
 * unknown. `keys`: SHA-256 hex of its pre-shared and manager key, null when none is set.
 */
export const RealmDefinitionSchema = z
  .object({
    name: z.string().min(1).max(256),
    required: z.boolean(),
    require_key: z.boolean().nullable(),
    require_acceptance: z.boolean().nullable(),
    allow_tokenless_consumers: z.boolean(),
    e2ee: E2eePolicy,
    ephemeral: z.boolean(),
    ttl_seconds: z.number().int().positive().nullable(),
    keys: z.object({ key_sha256: Sha256, manager_key_sha256: Sha256 }).strict(),
  })
  .strict();
export type RealmDefinition = z.infer<typeof RealmDefinitionSchema>;

/** An approved client token's metadata (§8.4 `tokens[]`): never the token. */
export const TokenDefinitionSchema = z
  .object({
    realm: z.string(),
    role: z.string(),
    client_id: z.string().nullable(),
    client_name: z.string().nullable(),
    token_hash: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();
export type TokenDefinition = z.infer<typeof TokenDefinitionSchema>;

/** A management token's metadata (§8.4 `management_tokens[]`). */
export const ManagementTokenDefinitionSchema = z
  .object({
    realm_prefix: z.string(),
    token_hash: z.string().regex(/^[0-9a-f]{64}$/),
    ephemeral_only: z.boolean(),
    max_ttl: z.string().nullable(),
  })
  .strict();
export type ManagementTokenDefinition = z.infer<typeof ManagementTokenDefinitionSchema>;

/** An external validator (§4.4): its URL as the broker shows it; its secret is not exported. */
export const ValidatorDefinitionSchema = z
  .object({
    scope: z.enum(['global', 'realm', 'prefix']),
    target: z.string(),
    url: z.string(),
    secret_configured: z.boolean(),
  })
  .strict();
export type ValidatorDefinition = z.infer<typeof ValidatorDefinitionSchema>;

/**
 * The opt-in encrypted keys: `ciphertext` is AES-256-GCM of the JSON `{<realm>: {key, manager_key}}`
 * (strings or null) under scrypt(passphrase, salt, N, r, p) → 32 bytes; all binary fields base64.
 */
export const EncryptedKeysSchema = z
  .object({
    cipher: z.literal('aes-256-gcm'),
    kdf: z.literal('scrypt'),
    kdf_params: z
      .object({
        N: z.number().int().min(1024).max(1_048_576),
        r: z.number().int().min(1).max(32),
        p: z.number().int().min(1).max(16),
      })
      .strict(),
    salt: B64,
    iv: B64,
    tag: B64,
    ciphertext: B64,
  })
  .strict();
export type EncryptedKeys = z.infer<typeof EncryptedKeysSchema>;

export const DefinitionsDocumentSchema = z
  .object({
    format: z.literal(DEFINITIONS_FORMAT),
    version: z.literal(DEFINITIONS_VERSION),
    /** ISO 8601 time of the export. */
    exported_at: z.string(),
    /** Where it came from: the console's connection name and URL, the broker's version if known. */
    broker: z
      .object({ name: z.string(), url: z.string(), version: z.string().nullable() })
      .strict(),
    /** Broker-wide settings: `auth.enabled` (applied) and the storage backend (informational). */
    settings: z.object({ auth_enabled: z.boolean(), storage: z.string().nullable() }).strict(),
    /**
     * Connection limits and quotas. Null: the broker's limits are start-up configuration
     * (`limits` in its settings file) that no management command reports or changes.
     */
    limits: z.record(z.string(), z.unknown()).nullable(),
    realms: z.array(RealmDefinitionSchema),
    tokens: z.array(TokenDefinitionSchema),
    management_tokens: z.array(ManagementTokenDefinitionSchema),
    validators: z.array(ValidatorDefinitionSchema),
    /** Present only in an encrypted export. */
    encrypted_keys: EncryptedKeysSchema.optional(),
  })
  .strict();
export type DefinitionsDocument = z.infer<typeof DefinitionsDocumentSchema>;

export type ParsedDefinitions =
  { ok: true; document: DefinitionsDocument } | { ok: false; message: string };

/** Parses and validates a definitions file's text; never throws. */
export function parseDefinitions(text: string): ParsedDefinitions {
  if (text.length > MAX_DEFINITIONS_CHARS) {
    return { ok: false, message: definitionsTooLargeMessage(text.length) };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `Not JSON: ${(error as Error).message}` };
  }
  const head = (raw ?? {}) as { format?: unknown; version?: unknown };
  if (typeof raw !== 'object' || raw === null || head.format !== DEFINITIONS_FORMAT) {
    return {
      ok: false,
      message: `Not a Switchboard definitions file (format must be "${DEFINITIONS_FORMAT}").`,
    };
  }
  if (head.version !== DEFINITIONS_VERSION) {
    return {
      ok: false,
      message: `Unsupported definitions version ${JSON.stringify(head.version)}: this console reads version ${DEFINITIONS_VERSION}.`,
    };
  }
  const parsed = DefinitionsDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      ok: false,
      message: `Invalid definitions file at ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    };
  }
  const names = new Set<string>();
  for (const realm of parsed.data.realms) {
    if (names.has(realm.name)) {
      return { ok: false, message: `Invalid definitions file: realm ${realm.name} appears twice.` };
    }
    names.add(realm.name);
  }
  return { ok: true, document: parsed.data };
}
