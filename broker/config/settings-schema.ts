/**
 * The broker's settings: the same object as tyo-mq's settings file, validated once with a
 * strict zod schema (unknown keys rejected) and then frozen.
 *
 * Source: `spec/protocol-admin.md` §12.1 (top-level keys and aliases), §10.1 (`http_api`),
 * `spec/protocol-core.md` §15 (`idle_eviction`), §14 (chunking limits), §18 (defaults).
 * Keys of features not implemented (`limits.max_connections`…) are accepted so existing
 * settings files load, and reported by `unsupportedKeys()`.
 */
import { z } from 'zod';
import { MAX_TIMER_DELAY_MS, parseStrictDurationMs } from '../../shared/duration';
import { AuthStoreSettingSchema } from '../auth/store/auth-store-config';
import { BackPressureSchema, LimitsSchema } from '../limits/limits-schema';
import { SealedSettingsSchema } from '../extensions/sealed/sealed-config';
import { ClusterSettingsSchema } from '../cluster/cluster-schema';
import { AlarmsSchema } from '../metrics/resource-alarms';
import { MqttSettingsSchema } from '../mqtt/mqtt-schema';
import { HttpPublishSchema } from '../http-publish/http-publish-schema';
import { RedisStorageOptionsShape } from '../storage/redis-options';

/** Default socket.io `maxHttpBufferSize` (§1.1, §18): 50 MiB, as the reference. */
export const DEFAULT_MAX_HTTP_BUFFER_SIZE = 52_428_800;

/**
 * A delay that reaches a Node timer, in ms: a positive integer up to `MAX_TIMER_DELAY_MS`
 * (2^31 - 1; a longer `setTimeout` fires after 1 ms).
 */
const timerDelay = z.number().int().positive().max(MAX_TIMER_DELAY_MS);

const HttpApiSchema = z
  .object({
    enabled: z.boolean().default(false),
    health: z.boolean().default(true),
    metrics: z.boolean().default(true),
    stats: z.boolean().default(true),
    metrics_auth: z.boolean().default(true),
    /** Most bytes of entry JSON in one DLQ page (`GET /api/realms/{realm}/dlq`); 16 MiB. */
    max_response_bytes: z
      .number()
      .int()
      .min(1_024)
      .max(256 * 1024 * 1024)
      .default(16 * 1024 * 1024),
  })
  .strict();

const IdleEvictionSchema = z
  .object({
    enabled: z.boolean().default(true),
    ttl_ms: z.number().int().nonnegative().max(MAX_TIMER_DELAY_MS).default(300_000),
    interval_ms: timerDelay.default(60_000),
  })
  .strict();

/**
 * A graceful stop (`Broker.drain()`, SIGTERM/SIGINT of the CLI; docs/http-api.md "Drain"), in
 * ms, read when the stop begins. `grace_ms`: how long new connections are still accepted after
 * `GET /ready` turned 503, so a load balancer or Kubernetes notices before connections are
 * refused (set it to the readiness probe's period × failure threshold); 0 (default) refuses
 * them at once. `timeout_ms`: the longest the rest may take — work in progress, flushing the
 * connections, closing the store — after the grace (default 10,000); the CLI exits (code 0)
 * at `grace_ms + timeout_ms` at the latest.
 */
const ShutdownSchema = z
  .object({
    grace_ms: z.number().int().nonnegative().max(MAX_TIMER_DELAY_MS).default(0),
    timeout_ms: z.number().int().min(100).max(MAX_TIMER_DELAY_MS).default(10_000),
  })
  .strict();

/**
 * A duration for a timer, as the settings file writes it (`parseStrictDurationMs`: a number of
 * seconds, or `<number>[ms|s|m|h]`), normalised to **seconds** (the protocol's unit for a bare
 * number). Positive, and at most `MAX_TIMER_DELAY_MS`; anything else is refused with its path.
 */
const TimerDurationSeconds = z.union([z.number(), z.string().max(64)]).transform((v, ctx) => {
  const ms = parseStrictDurationMs(v);
  if (ms === null || ms <= 0 || ms > MAX_TIMER_DELAY_MS) {
    ctx.addIssue({
      code: 'custom',
      message:
        ms === null
          ? `"${String(v).slice(0, 64)}" is not a duration (a number of seconds, or <number>ms|s|m|h)`
          : `must be above 0 and at most ${MAX_TIMER_DELAY_MS} ms`,
    });
    return z.NEVER;
  }
  return ms / 1000;
});

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
    transfer_idle_timeout_ms: timerDelay.default(60_000),
    /** A partial transfer not complete this long after its first chunk is dropped: 5 min. */
    transfer_deadline_ms: timerDelay.default(300_000),
    /**
     * Bytes all partial transfers of the broker may hold together (2 per code unit): 256 MiB.
     * At least twice `max_chunked_message_length`, so the largest message can complete.
     */
    max_reassembly_bytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024 * 1024),
    /** Deepest nesting accepted in an inbound payload. */
    max_payload_depth: z.number().int().positive().default(64),
    /** Distinct `event` label values per realm before metrics fold them into "other". */
    max_event_labels_per_realm: z.number().int().positive().default(200),
    /**
     * Series of `tyo_mq_subscription_queue_depth`: the deepest queues, the rest summed under
     * `_other` (its labels are client-chosen; issue 20).
     */
    max_queue_depth_series: z.number().int().nonnegative().default(100),
  })
  .strict()
  .refine((l) => l.max_reassembly_bytes >= 2 * l.max_chunked_message_length, {
    message: 'must be at least 2 × max_chunked_message_length (bytes per code unit)',
    path: ['max_reassembly_bytes'],
  });

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
    /**
     * Free-space reserve of the SQLite store (docs/configuration.md): below this many free bytes
     * on the database's filesystem new durable copies are refused with `SWB_ERR_STORAGE`, so ACKs
     * and DLQ moves can still commit. With neither key the reserve is the smaller of 256 MiB and
     * 5 %; with one, that one; with both, the smaller. 0 turns the reserve off.
     */
    min_free_bytes: z.number().int().nonnegative().optional(),
    min_free_percent: z.number().nonnegative().max(100).optional(),
    ...RedisStorageOptionsShape,
  })
  .strict();

/** `e2ee` (`spec/protocol-extensions.md` §9): Switchboard's extension settings. */
const E2eeSettingsSchema = z
  .object({
    /** Note 3-B: one-time prekeys one socket may take per 60 s window; default 60. */
    prekey_takes_per_minute: z.number().int().positive().max(1_000_000).default(60),
    /**
     * Note 2-C: identities of one realm that may hold published keys; a `KEY_PUBLISH` for one
     * more gets 429. Default null: unlimited (the reference's behaviour).
     */
    max_key_identities_per_realm: z.number().int().positive().nullable().default(null),
  })
  .strict();

/** zlib options of `per_message_deflate` (node:zlib's, snake_case). */
const ZlibOptionsSchema = z
  .object({
    /** Compression level, -1 (zlib default) to 9. Deflate side only. */
    level: z.number().int().min(-1).max(9).optional(),
    mem_level: z.number().int().min(1).max(9).optional(),
    window_bits: z.number().int().min(8).max(15).optional(),
    /** Bytes, at least 64. */
    chunk_size: z.number().int().min(64).optional(),
  })
  .strict();

/**
 * `per_message_deflate`: the WebSocket compression extension the broker accepts (issue 7).
 * `false` (default) declines it — every client keeps working, they just send and receive plain
 * frames. `true` means the stock launcher's settings (`spec/protocol-core.md` §1.1); an object
 * accepts the extension with those settings overridden. Sizes in bytes. See
 * docs/configuration.md for the measured cost.
 */
const PerMessageDeflateObjectSchema = z
  .object({
    /** Server→client messages smaller than this are sent uncompressed (bytes). */
    threshold: z.number().int().nonnegative().optional(),
    zlib_deflate_options: ZlibOptionsSchema.optional(),
    zlib_inflate_options: ZlibOptionsSchema.omit({ level: true }).optional(),
    client_no_context_takeover: z.boolean().optional(),
    server_no_context_takeover: z.boolean().optional(),
    server_max_window_bits: z.number().int().min(8).max(15).optional(),
    /** Concurrent zlib calls per process. */
    concurrency_limit: z.number().int().positive().optional(),
  })
  .strict();
export const PerMessageDeflateSchema = z.union([z.boolean(), PerMessageDeflateObjectSchema]);
export type PerMessageDeflateSetting = z.infer<typeof PerMessageDeflateSchema>;

/** An exact browser origin, `scheme://host[:port]` (http or https), normalised to lower case. */
const OriginString = z
  .string()
  .max(2_048)
  .transform((o, ctx) => {
    let origin: string | null = null;
    try {
      const url = new URL(o);
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch {
      // reported below
    }
    if (origin === null || origin !== o.toLowerCase().replace(/\/$/, '')) {
      ctx.addIssue({
        code: 'custom',
        message: `"${o.slice(0, 100)}" is not an origin (scheme://host[:port], http or https)`,
      });
      return z.NEVER;
    }
    return origin;
  });

/**
 * Browser origins allowed to use socket.io (see `transport/request-guard.ts`). `origin`: `false`
 * (default: no browser page), `"*"` (every page: the reference's behaviour), or exact origins.
 * `methods` and `credentials` are passed to socket.io's CORS headers as the reference does.
 */
const CorsSchema = z
  .object({
    origin: z
      .union([z.literal(false), z.literal('*'), OriginString, z.array(OriginString).max(256)])
      .default(false)
      .transform((o) => (typeof o === 'string' && o !== '*' ? [o] : o)),
    methods: z.array(z.enum(['GET', 'POST'])).default(['GET', 'POST']),
    credentials: z.boolean().default(true),
  })
  .strict();

/** A host name for `allowed_hosts`: letters, digits, `-`, `.` (no port, no scheme). */
const HostName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, {
    message: 'must be a host name without scheme or port',
  });

/** Settings after alias folding; see `normalizeSettingsAliases`. */
export const SettingsSchema = z
  .object({
    http_api: HttpApiSchema.default(HttpApiSchema.parse({})),
    idle_eviction: IdleEvictionSchema.default(IdleEvictionSchema.parse({})),
    input_limits: InputLimitsSchema.default(InputLimitsSchema.parse({})),
    /**
     * Broker-wide default ACK timeout (§6.2), normalised to seconds: `"1h"` → 3600. Default
     * (absent) 30 s.
     */
    ack_timeout: TimerDurationSeconds.optional(),
    /** Browser origins allowed on socket.io (§1.1 hardened); default none. */
    cors: CorsSchema.default(CorsSchema.parse({})),
    /** Extra `Host` names the broker answers besides loopback names and IP literals. */
    allowed_hosts: z.array(HostName).max(256).default([]),
    /** socket.io heartbeat: ping every `ping_interval` ms (§1.1: 5,000). */
    ping_interval: timerDelay.default(5_000),
    /** socket.io heartbeat: ms to answer a ping before the connection is dropped (10,000). */
    ping_timeout: timerDelay.default(10_000),
    /** Whether Engine.IO v3 (socket.io v2) clients may connect (§1.1: true). */
    allow_eio3: z.boolean().default(true),
    /** socket.io `maxHttpBufferSize` in bytes; `TYO_MQ_MAX_HTTP_BUFFER_SIZE` overrides. */
    max_http_buffer_size: z.number().int().positive().default(DEFAULT_MAX_HTTP_BUFFER_SIZE),
    /** WebSocket per-message deflate (see `PerMessageDeflateSchema`); default off. */
    per_message_deflate: PerMessageDeflateSchema.default(false),
    /**
     * Node id reported by `/health` and `/api/stats`; a clustered node uses `cluster.node_id`
     * first (docs/cluster.md).
     */
    node_id: z.string().min(1).max(128).optional(),
    /** `spec/protocol-admin.md` §12.2; validated by `AuthState` (errors carry `auth.` paths). */
    auth: z.unknown().optional(),
    /** SQLite auth store (`spec/protocol-admin.md` §14): true | "<file>" | {enabled, filename}. */
    auth_store: AuthStoreSettingSchema.optional(),
    /** `memory` (default; `true` means memory), `sqlite` or `redis`. */
    storage: z
      .union([z.literal(true), z.enum(['memory', 'sqlite', 'redis'])])
      .default('memory')
      .transform((v) => (v === true ? 'memory' : v)),
    storage_options: StorageOptionsSchema.default(StorageOptionsSchema.parse({})),
    /** Seconds; TTL of stored copies without one (§9.3). Default 86,400. */
    default_ttl: z.number().nonnegative().optional(),
    limits: LimitsSchema.optional(),
    /**
     * Allows `set_persistence` with `storage: "custom"` (a module path loaded on the server —
     * code execution for whoever holds the admin token; `spec/protocol-admin.md` §8.4 note).
     * Default false: refused with 403.
     */
    allow_custom_storage: z.boolean().default(false),
    back_pressure: BackPressureSchema.default(BackPressureSchema.parse({})),
    /** MQTT listener (issue 14, docs/mqtt.md); off by default. */
    mqtt: MqttSettingsSchema.default(MqttSettingsSchema.parse({})),
    /** Clustering over Redis (`spec/protocol-core.md` §17, docs/cluster.md); off when absent. */
    cluster: ClusterSettingsSchema.optional(),
    /** Graceful stop: grace and bound (see `ShutdownSchema`). */
    shutdown: ShutdownSchema.default(ShutdownSchema.parse({})),
    /** When the broker raises an alarm (metrics/resource-alarms.ts; issue 27). */
    alarms: AlarmsSchema.default(AlarmsSchema.parse({})),
    /** tyo-mq 1.1 extension settings (`spec/protocol-extensions.md` §9). */
    e2ee: E2eeSettingsSchema.default(E2eeSettingsSchema.parse({})),
    /** Sealed sender's Switchboard extensions (`extensions/sealed/sealed-config.ts`). */
    sealed: SealedSettingsSchema.default(SealedSettingsSchema.parse({})),
    namespaces: z.unknown().optional(),
    /** HTTP publish and SSE subscribe (`spec/protocol-extensions.md` §5); off when absent. */
    http_publish: HttpPublishSchema.optional(),
    remote: z.unknown().optional(),
  })
  .strict();

export type SettingsInput = z.input<typeof SettingsSchema>;
export type Settings = Readonly<z.infer<typeof SettingsSchema>>;

/**
 * What the broker logs (warn) for each key of `unsupportedKeys`, and what the console's
 * settings editor shows next to it: one wording for both.
 */
export const UNSUPPORTED_KEY_MESSAGE = 'settings key accepted but not implemented in this build';

/**
 * Keys present in `settings` whose features this build does not implement, as dotted paths
 * (`limits.max_connections`): the broker accepts them so that existing tyo-mq
 * settings files load, and ignores them. The single list of such keys: the broker logs each
 * at start and on reload, the console's settings editor warns about each.
 */
export function unsupportedKeys(settings: Pick<Settings, 'limits'>): string[] {
  const keys: string[] = [];
  for (const k of Object.keys(settings.limits ?? {})) {
    if (!(k in LimitsSchema.shape)) keys.push(`limits.${k}`);
  }
  return keys;
}
