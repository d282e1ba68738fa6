/**
 * ConsoleApi contract for broker connections (issue 12 "Connections"): the built-in local broker
 * plus remote broker profiles, their layered connection test, profile export/import (never with
 * secrets) and where the console keeps secrets. Spread into `ConsoleMethods` / `ConsoleEvents`
 * in `console-api.ts`.
 *
 * Secrets (admin token, realm manager key) are write-only: an input may carry one, no output
 * ever does — a profile only says `hasSecret`.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const NoInput = z.object({}).strict();

/**
 * A broker URL: `http(s)://host[:port][/base/path]` (`ws`/`wss` are accepted and mean the same).
 * A base path is kept: socket.io is reached at `<base>/socket.io`, the HTTP API at `<base>/api/…`.
 */
export const BrokerUrl = z
  .string()
  .trim()
  .min(1)
  .max(2_048)
  .refine((text) => /^(https?|wss?):\/\/[^/\s]+/i.test(text), {
    message: 'must be an http://, https://, ws:// or wss:// URL with a host',
  });

/** TLS options for `https`/`wss` brokers. `caFile`: a PEM file path on the console's machine. */
export const ConnectionTlsSchema = z
  .object({
    caFile: z.string().trim().min(1).max(4_096).optional(),
    /** Refuse certificates that do not chain to a trusted CA. Default true. */
    rejectUnauthorized: z.boolean().default(true),
  })
  .strict();
export type ConnectionTls = z.infer<typeof ConnectionTlsSchema>;

/**
 * How the console proves itself to the broker (`spec/protocol-admin.md` §6): the global admin
 * token (every command, and the HTTP API bearer, §10.2), a realm's manager key (that realm's
 * authorization requests, §7), or nothing (read-only: `/health` only).
 */
export const ConnectionCredentialSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('admin') }).strict(),
  z.object({ kind: z.literal('realm-manager'), realm: z.string().trim().min(1).max(256) }).strict(),
  z.object({ kind: z.literal('none') }).strict(),
]);
export type ConnectionCredential = z.infer<typeof ConnectionCredentialSchema>;

/** A profile's persisted, secret-free fields (also the shape of an export's entries). */
export const ConnectionProfileFieldsSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    url: BrokerUrl,
    tls: ConnectionTlsSchema.default({ rejectUnauthorized: true }),
    credential: ConnectionCredentialSchema,
    /**
     * Opt-in to send the admin token as an HTTP bearer over clear-text `http://` to a host that
     * is not loopback. Default false: such a request is refused with a clear error.
     */
    allowInsecureBearer: z.boolean().default(false),
  })
  .strict();
export type ConnectionProfileFields = z.infer<typeof ConnectionProfileFieldsSchema>;

/** Write-only secret of a profile: the admin token or the realm manager key. */
const SecretInput = z.string().min(1).max(4_096);

/** Id a draft's test report carries (`testConnectionDraft`: a profile not saved yet). */
export const DRAFT_CONNECTION_ID = 'draft';

/** One layer of a connection test. `skipped` when an earlier layer failed or it does not apply. */
export const ConnectionTestLayerSchema = z.object({
  layer: z.enum(['socket', 'credential', 'http']),
  status: z.enum(['ok', 'failed', 'skipped']),
  /** What was checked and, on failure, why and what to change. Never a secret. */
  message: z.string(),
  /** Round-trip time of the check in ms, when it ran. */
  durationMs: z.number().nonnegative().nullable(),
});
export type ConnectionTestLayer = z.infer<typeof ConnectionTestLayerSchema>;

export const ConnectionTestReportSchema = z.object({
  connectionId: z.string(),
  ok: z.boolean(),
  layers: z.array(ConnectionTestLayerSchema),
  testedAt: z.number(),
});
export type ConnectionTestReport = z.infer<typeof ConnectionTestReportSchema>;

/**
 * Reachability as last seen by the poller: `unknown` until the first sample; `refused` when the
 * broker answers but refuses the connection's admin token (HTTP 401), so nothing can be read.
 */
export const ConnectionState = z.enum(['online', 'refused', 'unreachable', 'unknown']);
export type ConnectionState = z.infer<typeof ConnectionState>;

/**
 * When a connection list was taken: the console host's start (`epoch`, ms since the Unix epoch)
 * and its count of connection changes (`seq`). A call's answer and a pushed `connections` event
 * travel on different channels and can cross; the page keeps the newer list (`isNewerList`).
 */
export const ConnectionsRevisionSchema = z.object({ epoch: z.number(), seq: z.number().int() });
export type ConnectionsRevision = z.infer<typeof ConnectionsRevisionSchema>;

/**
 * Whether a list taken at `next` may replace one taken at `current`: always after a host
 * restart (another epoch), otherwise only when it is not older.
 */
export function isNewerList(
  next: ConnectionsRevision,
  current: ConnectionsRevision | null,
): boolean {
  return !current || next.epoch !== current.epoch || next.seq >= current.seq;
}

/**
 * A connection whose credential the broker refuses is polled less and less often: the console
 * waits `delayMs` (doubling per refusal, capped at a minute) before asking again (`retryAt`,
 * epoch ms). `refusals` counts them in a row; `what` is what was refused: the HTTP API's
 * admin bearer (`http`) or signed commands (`commands`, e.g. a wrong realm manager key).
 */
export const ConnectionBackoffSchema = z.object({
  refusals: z.number().int().positive(),
  delayMs: z.number().int().nonnegative(),
  retryAt: z.number(),
  what: z.enum(['http', 'commands']),
});
export type ConnectionBackoff = z.infer<typeof ConnectionBackoffSchema>;

/** A connection as the renderer sees it: the profile without its secret, plus its state. */
export const ConnectionSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  /** The built-in local broker: cannot be edited or removed. */
  builtIn: z.boolean(),
  tls: ConnectionTlsSchema,
  credential: ConnectionCredentialSchema,
  allowInsecureBearer: z.boolean(),
  /** Whether a secret is stored for it (never the secret). */
  hasSecret: z.boolean(),
  state: ConnectionState,
  /** Why it is unreachable or refused (or its HTTP API is off), else null. */
  problem: z.string().nullable(),
  /** Set while polling backs off after refusals of the credential (absent or null: it does not). */
  backoff: ConnectionBackoffSchema.nullable().optional(),
  /** When the list this summary is part of was taken (the same in every item of a list). */
  revision: ConnectionsRevisionSchema,
});
export type ConnectionSummary = z.infer<typeof ConnectionSummarySchema>;

/** An export document: profiles without ids or secrets. */
export const ConnectionExportSchema = z
  .object({
    format: z.literal('switchboard-connections'),
    version: z.literal(1),
    profiles: z.array(ConnectionProfileFieldsSchema).max(500),
  })
  .strict();
export type ConnectionExport = z.infer<typeof ConnectionExportSchema>;

/** Where the console keeps secrets: for the UI's notice, never a value. */
export const SecretStoreInfoSchema = z.object({
  /** `file`: a 0600 file, no OS keychain; `os-keychain`: Electron safeStorage or similar. */
  kind: z.enum(['file', 'os-keychain', 'other']),
  osKeychain: z.boolean(),
  description: z.string(),
});
export type SecretStoreInfo = z.infer<typeof SecretStoreInfoSchema>;

export const ConnectionsMethods = {
  /** Every connection, the local broker first. */
  listConnections: { input: NoInput, output: z.array(ConnectionSummarySchema) },
  /**
   * Adds a remote profile (persisted at once; the secret goes to the SecretStore).
   * Errors: `SWB_ERR_VALIDATION` (bad URL, a credential without its secret, a name in use).
   */
  addConnection: {
    input: ConnectionProfileFieldsSchema.extend({ secret: SecretInput.optional() }).strict(),
    output: ConnectionSummarySchema,
  },
  /**
   * Replaces a remote profile's fields; `secret` omitted keeps the stored one, `clearSecret`
   * forgets it. Errors: `SWB_ERR_NOT_FOUND`, `SWB_ERR_VALIDATION` (the local broker, bad input).
   */
  editConnection: {
    input: ConnectionProfileFieldsSchema.extend({
      connectionId: ConnectionId,
      secret: SecretInput.optional(),
      clearSecret: z.boolean().optional(),
    }).strict(),
    output: ConnectionSummarySchema,
  },
  /** Removes a remote profile and its secret. Errors: `SWB_ERR_NOT_FOUND`, `SWB_ERR_VALIDATION`. */
  removeConnection: {
    input: z.object({ connectionId: ConnectionId }).strict(),
    output: z.object({ connectionId: z.string() }),
  },
  /**
   * Tests a connection layer by layer: socket reachable, credential accepted (a signed `get` or
   * `AUTHORIZATION_NEXT`), HTTP API reachable and authorized. Never rejects for a broker
   * problem: the report says which layer failed and why. Errors: `SWB_ERR_NOT_FOUND`.
   */
  testConnection: {
    input: z.object({ connectionId: ConnectionId }).strict(),
    output: ConnectionTestReportSchema,
  },
  /**
   * Tests a profile before it is saved (the add / edit form), layer by layer as
   * `testConnection`, without storing anything or polling it. `secret` is the one typed in the
   * form; editing (`connectionId`) with no `secret` uses the stored one, but only when the URL
   * is unchanged, so a stored secret is never sent to another address. The report's
   * `connectionId` is `connectionId` or `"draft"`. Errors: `SWB_ERR_NOT_FOUND`,
   * `SWB_ERR_VALIDATION` (bad URL; a stored secret asked for a different URL).
   */
  testConnectionDraft: {
    input: ConnectionProfileFieldsSchema.extend({
      secret: SecretInput.optional(),
      connectionId: ConnectionId.optional(),
    }).strict(),
    output: ConnectionTestReportSchema,
  },
  /** The remote profiles as a document to save elsewhere: no ids, no secrets. */
  exportConnections: { input: NoInput, output: ConnectionExportSchema },
  /**
   * Adds every profile of an export document (new ids, no secrets: add each credential after).
   * A name already in use gets a ` (2)` suffix. Errors: `SWB_ERR_VALIDATION`.
   */
  importConnections: {
    input: z.object({ document: ConnectionExportSchema }).strict(),
    output: z.array(ConnectionSummarySchema),
  },
  /** Where secrets are kept (kind and description, never a value). */
  getSecretStoreInfo: { input: NoInput, output: SecretStoreInfoSchema },
} as const;

export const ConnectionsEvents = {
  /** The connection list changed, or a connection went online/unreachable. Not periodic. */
  connections: z.array(ConnectionSummarySchema),
} as const;
