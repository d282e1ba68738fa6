/**
 * The `cluster` settings block: nodes sharing one Redis relay every message to each other and
 * share replay protection, settings and authorization requests.
 *
 * Source: `spec/protocol-core.md` §17 (keys, defaults, aliases folded by
 * `normalizeSettingsAliases`: `channel_prefix`/`channelPrefix` → `prefix`, `redisUrl`/`url` →
 * `redis_url`, `nodeId` → `node_id`) and `spec/protocol-admin.md` §6.4 note (c) (fail-open kept
 * configurable, off by default) and §15. See docs/cluster.md.
 *
 * `{enabled (false), prefix ("tyo-mq:cluster"), redis_url (default: storage_options.url, else
 *   redis://127.0.0.1:6379), sentinel (none; default: storage_options.sentinel when neither
 *   redis_url nor sentinel is set; shape in `broker/storage/redis-target.ts`), node_id (default:
 *   the top-level node_id, else 16 random hex characters kept in <data dir>/cluster-node-id, so a
 *   restarted node keeps its inbox), nonce_fail_open (false: a proof is refused while Redis cannot be
 *   asked whether its nonce was used elsewhere; true, the reference's default, accepts it on the
 *   node's own replay protection — a proof captured then can be replayed on another node),
 *   heartbeat_ms (5,000: how often a node
 *   announces itself under <prefix>:nodes), connect_timeout_ms (5,000), inline_max_bytes
 *   (1 MiB: larger relayed messages go by reference, see `MessageRelay`), relay ("streams": a
 *   Redis Stream inbox per node, caught up on after a restart; "pubsub": the reference's channel
 *   only), retention_ms (600,000) and retention_bytes (256 MiB): what an inbox keeps unread,
 *   member_expiry_ms (24 h, at least retention_ms): when an absent node stops being written to}`.
 */
import { z } from 'zod';
import { isRedisUrl } from '../storage/redis-options';
import { SentinelSettingsSchema } from '../storage/redis-target';

/** Redis key prefix of the reference (§17). */
export const DEFAULT_CLUSTER_PREFIX = 'tyo-mq:cluster';

const RedisUrl = z
  .string()
  .max(2048)
  .refine(isRedisUrl, { message: 'must be a redis:// or rediss:// URL' });

export const ClusterSettingsSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** Prefix of every key and channel (`<prefix>:messages`, `<prefix>:nonce:<n>`, …). */
    prefix: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\s*?[\]]*$/, { message: 'must not contain spaces or glob characters' })
      .default(DEFAULT_CLUSTER_PREFIX),
    redis_url: RedisUrl.optional(),
    /**
     * A Redis Sentinel set to follow instead of one fixed server (`broker/storage/redis-target.ts`
     * for the shape): the nodes ask the sentinels for the master and move to the new one after
     * a failover. `redis_url`, when given too, supplies only the password, user, db and TLS.
     */
    sentinel: SentinelSettingsSchema.optional(),
    /** This node's id; unique per process in the cluster (messages from it are ignored). */
    node_id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[\w.:-]+$/, { message: 'letters, digits, _ . : - only' })
      .optional(),
    nonce_fail_open: z.boolean().default(false),
    heartbeat_ms: z.number().int().min(100).max(3_600_000).default(5_000),
    connect_timeout_ms: z.number().int().min(100).max(120_000).default(5_000),
    /**
     * Relayed messages larger than this (bytes of JSON) go through a Redis key instead of the
     * pub/sub channel, which Redis cuts when a subscriber's backlog passes its
     * `client-output-buffer-limit pubsub`. Default 1 MiB.
     */
    inline_max_bytes: z
      .number()
      .int()
      .min(1_024)
      .max(512 * 1024 * 1024)
      .default(1024 * 1024),
    /**
     * How messages reach the peers: `streams` (default) through a Redis Stream per node that
     * it catches up on after a restart or an outage (`StreamRelay`); `pubsub` through the
     * reference's channel `<prefix>:messages` only (for clusters with reference nodes; a node
     * that is down misses what is published meanwhile).
     */
    relay: z.enum(['streams', 'pubsub']).default('streams'),
    /** How long a node's inbox keeps what it has not read (ms). Default 10 min. */
    retention_ms: z
      .number()
      .int()
      .min(1_000)
      .max(7 * 24 * 3_600_000)
      .default(600_000),
    /**
     * How long a node that is not seen stays a member its peers write to (ms): a node away
     * longer is taken for removed from the cluster. Default 24 h; at least `retention_ms`.
     */
    member_expiry_ms: z
      .number()
      .int()
      .min(1_000)
      .max(30 * 24 * 3_600_000)
      .default(24 * 3_600_000),
    /** Estimated size past which a node's inbox is trimmed, oldest first (bytes). 256 MiB. */
    retention_bytes: z
      .number()
      .int()
      .min(1024 * 1024)
      .max(64 * 1024 * 1024 * 1024)
      .default(256 * 1024 * 1024),
  })
  .strict();

export type ClusterSettings = z.infer<typeof ClusterSettingsSchema>;

/** Aliases of the reference's cluster keys (§17), folded before validation. */
export const CLUSTER_ALIASES: Record<string, string> = {
  channel_prefix: 'prefix',
  channelPrefix: 'prefix',
  redisUrl: 'redis_url',
  url: 'redis_url',
  nodeId: 'node_id',
  nonceFailOpen: 'nonce_fail_open',
  heartbeatMs: 'heartbeat_ms',
  connectTimeoutMs: 'connect_timeout_ms',
  inlineMaxBytes: 'inline_max_bytes',
  retentionMs: 'retention_ms',
  retentionBytes: 'retention_bytes',
  memberExpiryMs: 'member_expiry_ms',
};
