/**
 * The broker's settings: the same object as tyo-mq's settings file, validated once with a
 * strict zod schema (unknown keys rejected) and then frozen.
 *
 * Source: `spec/protocol-admin.md` §12.1 (top-level keys and aliases), §10.1 (`http_api`),
 * `spec/protocol-core.md` §15 (`idle_eviction`), §14 (chunking limits), §18 (defaults).
 * Keys of features that later issues implement (auth, cluster, namespaces…) are accepted
 * so existing settings files load, and reported by `unsupportedKeys()`.
 */
import { z } from 'zod';
import { BackPressureSchema, LimitsSchema } from '../limits/limits-schema';

/** Default socket.io `maxHttpBufferSize` (§1.1, §18): 50 MiB, as the reference. */
export const DEFAULT_MAX_HTTP_BUFFER_SIZE = 52_428_800;

const HttpApiSchema = z
  .object({
    enabled: z.boolean().default(false),
    health: z.boolean().default(true),
    metrics: z.boolean().default(true),
    stats: z.boolean().default(true),
    metrics_auth: z.boolean().default(true),
  })
  .strict();

const IdleEvictionSchema = z
  .object({
    enabled: z.boolean().default(true),
    ttl_ms: z.number().int().nonnegative().default(300_000),
    interval_ms: z.number().int().positive().default(60_000),
  })
  .strict();

/** Limits on client input. Sizes are UTF-16 code units (what §14 measures), times in ms. */
const InputLimitsSchema = z
  .object({
    /** Largest reassembled `PRODUCE_CHUNK` message: 64 Mi code units. */
    max_chunked_message_length: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    /** Partial chunked transfers one socket may hold at once. */
    max_partial_transfers_per_socket: z.number().int().positive().default(16),
    /** A partial transfer with no new chunk for this long is dropped. */
    transfer_idle_timeout_ms: z.number().int().positive().default(60_000),
    /** Deepest nesting accepted in an inbound payload. */
    max_payload_depth: z.number().int().positive().default(64),
    /** Distinct `event` label values per realm before metrics fold them into "other". */
    max_event_labels_per_realm: z.number().int().positive().default(200),
  })
  .strict();

/**
 * `storage_options` (`spec/protocol-core.md` §16.1, §16.3). `filename` is resolved against the
 * broker's data directory; `synchronous` trades durability for speed (see SqliteStore).
 */
const StorageOptionsSchema = z
  .object({
    filename: z.string().min(1).optional(),
    synchronous: z.enum(['FULL', 'NORMAL']).default('FULL'),
    default_ttl: z.number().nonnegative().optional(),
    max_batch_rows: z.number().int().positive().max(100_000).default(512),
    commit_delay_ms: z.number().nonnegative().max(1_000).default(0),
  })
  .strict();

/** Settings after alias folding; see `normalizeSettingsAliases`. */
export const SettingsSchema = z
  .object({
    http_api: HttpApiSchema.default(HttpApiSchema.parse({})),
    idle_eviction: IdleEvictionSchema.default(IdleEvictionSchema.parse({})),
    input_limits: InputLimitsSchema.default(InputLimitsSchema.parse({})),
    /** Broker-wide default ACK timeout (§6.2): duration; default 30 s. */
    ack_timeout: z.union([z.number(), z.string()]).optional(),
    /** socket.io `maxHttpBufferSize` in bytes; `TYO_MQ_MAX_HTTP_BUFFER_SIZE` overrides. */
    max_http_buffer_size: z.number().int().positive().default(DEFAULT_MAX_HTTP_BUFFER_SIZE),
    /** Cluster node id reported by `/health` (cluster issue); null when not clustered. */
    node_id: z.string().min(1).max(128).optional(),
    // Accepted for compatibility with tyo-mq settings files; implemented by later issues.
    auth: z.unknown().optional(),
    auth_store: z.unknown().optional(),
    /** `memory` (default; `true` means memory) or `sqlite`. */
    storage: z
      .union([z.literal(true), z.enum(['memory', 'sqlite'])])
      .default('memory')
      .transform((v) => (v === true ? 'memory' : v)),
    storage_options: StorageOptionsSchema.default(StorageOptionsSchema.parse({})),
    /** Seconds; TTL of stored copies without one (§9.3). Default 86,400. */
    default_ttl: z.number().nonnegative().optional(),
    limits: LimitsSchema.optional(),
    back_pressure: BackPressureSchema.default(BackPressureSchema.parse({})),
    cluster: z.unknown().optional(),
    namespaces: z.unknown().optional(),
    http_publish: z.unknown().optional(),
    remote: z.unknown().optional(),
  })
  .strict();

export type SettingsInput = z.input<typeof SettingsSchema>;
export type Settings = Readonly<z.infer<typeof SettingsSchema>>;

const LATER_KEYS = ['auth', 'auth_store', 'cluster', 'http_publish'] as const;

/** Keys present in `settings` whose features this build does not implement yet. */
export function unsupportedKeys(settings: Settings): string[] {
  const keys: string[] = LATER_KEYS.filter((k) => settings[k] !== undefined);
  for (const k of Object.keys(settings.limits ?? {})) {
    if (!(k in LimitsSchema.shape)) keys.push(`limits.${k}`);
  }
  return keys;
}
