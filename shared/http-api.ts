/**
 * Shapes of the broker's opt-in HTTP API, shared by the broker (which serves them) and the
 * console (which reads local and remote brokers through them).
 *
 * Source: `spec/protocol-admin.md` §10.3 (`/health`), §10.5 (`/api/stats`) and
 * `spec/protocol-core.md` §15 (`getStats()`).
 */
import { z } from 'zod';

/** HTTP paths of the API (§10.1). */
export const HttpPath = {
  HEALTH: '/health',
  HEALTHZ: '/healthz',
  /** Switchboard extension: readiness (200 ready, 503 not), public like `/health`. */
  READY: '/ready',
  READYZ: '/readyz',
  METRICS: '/api/metrics',
  STATS: '/api/stats',
  /** Switchboard extension: connected producers and consumers with their subscriptions. */
  CLIENTS: '/api/clients',
} as const;

/** `GET /api/realms/{realm}/dlq` (§10.6); the realm is one percent-encoded path segment. */
export function dlqPath(realm: string): string {
  return `/api/realms/${encodeURIComponent(realm)}/dlq`;
}

/** `GET /health`: `uptime_seconds` is whole seconds since start; `node_id` the cluster node or null. */
export const HealthSchema = z.object({
  status: z.literal('ok'),
  version: z.string(),
  uptime_seconds: z.number().int().nonnegative(),
  node_id: z.string().nullable(),
  /**
   * Switchboard (Note 7-A of spec/protocol-extensions.md §7.1): present, `true`, once the Redis
   * store fell back at start-up (durable messages then live on this node only).
   */
  storage_fell_back: z.literal(true).optional(),
});
export type Health = z.infer<typeof HealthSchema>;

/**
 * The values of `GET /ready`'s checks: `OK` passes, `NOT_CLUSTERED` passes too (`redis`,
 * `catch_up` of a node without `cluster.enabled`); every other value is why the check fails.
 */
export const ReadinessReason = {
  OK: 'ok',
  NOT_CLUSTERED: 'not clustered',
  /** listeners: `listen()` not finished (or not called), or the broker stopped. */
  NOT_LISTENING: 'not listening',
  /** listeners: `mqtt.enabled` and the MQTT listener is not bound. */
  MQTT_NOT_LISTENING: 'mqtt not listening',
  /** store: still opening (the Redis store's start-up probe). */
  STORE_OPENING: 'opening',
  /** store: it could not be opened. */
  STORE_UNAVAILABLE: 'unavailable',
  /** store: below the free-space reserve (`storage_options.min_free_*`). */
  LOW_FREE_SPACE: 'low free space',
  /** store: a write failed for lack of space, and no reading above the reserve since. */
  STORE_FULL: 'store full',
  /** store: closed by a stop. */
  STORE_CLOSED: 'closed',
  /** redis: this node's Redis links are down. */
  REDIS_UNREACHABLE: 'unreachable',
  /** catch_up: the cluster has not started (first Redis connection attempt pending). */
  CLUSTER_STARTING: 'starting',
  /** catch_up: reading the inbox backlog peers left while this node was away. */
  CATCHING_UP: 'catching up',
} as const;
export type ReadinessReasonValue = (typeof ReadinessReason)[keyof typeof ReadinessReason];

/**
 * One readiness check of `GET /ready`: a `ReadinessReason` value (short, never a secret or a
 * path). Read as any string, so a console can read a newer broker that adds reasons.
 */
export const ReadinessCheckSchema = z.string().max(64);

/**
 * `GET /ready` (Switchboard extension, docs/http-api.md "GET /ready"): `ready` is true — and
 * the status 200 — only when every check passes and the broker is not draining; else 503.
 */
export const ReadinessSchema = z.object({
  ready: z.boolean(),
  /** A graceful stop has begun (`drain()`, SIGTERM): never ready again. */
  draining: z.boolean(),
  checks: z.object({
    /** socket.io port bound, and the MQTT listener when `mqtt.enabled`. */
    listeners: ReadinessCheckSchema,
    /** Store open and accepting new durable copies (the free-space reserve respected). */
    store: ReadinessCheckSchema,
    /** Clustered: this node's Redis links are up. */
    redis: ReadinessCheckSchema,
    /** Clustered: this node has read the inbox backlog it found at start. */
    catch_up: ReadinessCheckSchema,
  }),
});
export type Readiness = z.infer<typeof ReadinessSchema>;

const OnlineCount = z.object({ total: z.number().int(), online: z.number().int() });

/** One durable queue's depth: copies held for `consumer_id` under subscription `key`. */
export const QueueDepthSchema = z.object({
  key: z.string(),
  consumer_id: z.string(),
  queued: z.number().int(),
});

/**
 * Per-realm registry counts; `subscriptions` counts subscription keys (§15). Switchboard adds
 * `queued` (durable copies held in the realm) and `queues` (the non-empty durable queues).
 */
export const RealmStatsSchema = z.object({
  producers: OnlineCount,
  consumers: OnlineCount,
  subscriptions: z.number().int(),
  queued: z.number().int().optional(),
  queues: z.array(QueueDepthSchema).optional(),
  /** MQTT clients of the realm connected now (absent when none; docs/mqtt.md). */
  mqtt_clients: z.number().int().optional(),
});
export type RealmStats = z.infer<typeof RealmStatsSchema>;

/** A node of the cluster as the answering node last saw it (docs/cluster.md). Times epoch ms. */
export const ClusterNodeSchema = z.object({
  node_id: z.string(),
  started_at: z.number(),
  last_seen: z.number(),
  version: z.string(),
  /** The node that answered. */
  self: z.boolean(),
});
export type ClusterNodeInfo = z.infer<typeof ClusterNodeSchema>;

/** `cluster` of `GET /api/stats` when clustering is on (Switchboard extension). */
export const ClusterStatusSchema = z.object({
  node_id: z.string(),
  /** Whether this node's Redis links are up (messages are relayed only then). */
  redis: z.enum(['up', 'down']),
  /** While down: Redis's or the connection's last error (e.g. `WRONGPASS …`). */
  redis_error: z.string().optional(),
  /** The Redis URL without its password, or `sentinel://host:port,…/name` (Sentinel set). */
  redis_url: z.string(),
  prefix: z.string(),
  /** Alive nodes, this one first; only this one while Redis is down. */
  nodes: z.array(ClusterNodeSchema),
  /**
   * The relay (docs/cluster.md): `streams` with this node's inbox figures, or `pubsub`.
   * `missed`: messages trimmed from the inbox before this node read them (since start);
   * `backlog`: entries not read yet; `members`: nodes the relay writes to (down ones included
   * until their retention passes).
   */
  relay: z
    .object({
      mode: z.enum(['streams', 'pubsub']),
      backlog: z.number().optional(),
      missed: z.number().optional(),
      retention_ms: z.number().optional(),
      retention_bytes: z.number().optional(),
      members: z.array(z.string()).optional(),
    })
    .optional(),
});
export type ClusterStatus = z.infer<typeof ClusterStatusSchema>;

/**
 * `storage` of `GET /api/stats` for a store on the broker's filesystem (SQLite; Switchboard
 * extension, docs/delivery-guarantees.md "Disk full"): whether it refuses new durable copies
 * now and why — `low_free_space` (free bytes below the reserve) or `store_full` (a write failed
 * for lack of space; clears once a later reading shows free space above the reserve).
 */
export const StorageStatusSchema = z.object({
  refusing_writes: z.boolean(),
  reason: z.enum(['low_free_space', 'store_full']).nullable(),
  /** Bytes available on the data directory's filesystem at the last reading (null: none yet). */
  free_bytes: z.number().nullable(),
  total_bytes: z.number().nullable(),
  /** The low-water mark in bytes (`storage_options.min_free_bytes` / `min_free_percent`). */
  reserve_bytes: z.number().nullable(),
  /** The directory watched (the database file's). */
  path: z.string(),
  /** Why the last reading failed, when it did. */
  error: z.string().optional(),
  /**
   * Message-store writes that failed since the broker started (commits, ACK deletes, copies
   * the reserve refused…); per kind and reason in `tyo_mq_store_write_failures_total`.
   */
  write_failures: z.number().int().nonnegative().optional(),
});
export type StorageStatus = z.infer<typeof StorageStatusSchema>;

/** `GET /api/stats` (§10.5). */
export const StatsSchema = z.object({
  realms: z.record(z.string(), RealmStatsSchema),
  connections_current: z.number().int(),
  cluster_node_id: z.string().optional(),
  cluster: ClusterStatusSchema.optional(),
  /** The store's free-space state (SQLite stores only). */
  storage: StorageStatusSchema.optional(),
  /** As `Health.storage_fell_back`. */
  storage_fell_back: z.literal(true).optional(),
});
export type Stats = z.infer<typeof StatsSchema>;

/** One subscription of a consumer, as `GET /api/clients` lists it (Switchboard extension). */
export const ClientSubscriptionSchema = z.object({
  /** Subscription key (§6.1), e.g. `fleet-job` or a topic key. */
  key: z.string(),
  /** The producer named in `SUBSCRIBE`, or `TYO-MQ-ALL`. */
  producer: z.string(),
  /** `topic` for a topic pattern, else null (exact event). */
  mode: z.enum(['topic']).nullable(),
  pattern: z.string().nullable(),
  group: z.string().nullable(),
  durable: z.boolean(),
  ack_required: z.boolean(),
  ack_timeout_ms: z.number(),
  consumer_id: z.string(),
  /** Durable copies held for this subscription's queue now (0 when not durable). */
  backlog: z.number().int().nonnegative(),
});
export type ClientSubscription = z.infer<typeof ClientSubscriptionSchema>;

/** A registered producer; `offline_since` is epoch ms, null while online. */
export const ClientProducerSchema = z.object({
  name: z.string(),
  id: z.string().nullable(),
  online: z.boolean(),
  offline_since: z.number().nullable(),
  /**
   * The socket.io connection it is bound to now (the `client_id` of `client_detail` /
   * `close_client`, issue 27); null while offline; absent from older brokers.
   */
  socket_id: z.string().nullable().optional(),
  /** Created by a subscription before the producer ever connected (§5.1). */
  placeholder: z.boolean(),
  subscribers: z.number().int().nonnegative(),
  /** `id` is the socket.io connection id: the client gave none (Switchboard; absent: unknown). */
  id_from_socket: z.boolean().optional(),
  /** The last distinct events it produced, at most 16, oldest first (Switchboard). */
  events: z.array(z.string()).optional(),
  /**
   * Connected MQTT clients of the realm with a filter matching one of `events` (Switchboard):
   * they get its messages but are not in `subscribers`. Absent when not counted.
   */
  mqtt_subscribers: z.number().int().nonnegative().optional(),
  /**
   * Application messages received from / sent to its connection so far (socket.io events,
   * MQTT PUBLISH; as `client_detail`'s; Switchboard, issue 27): the console's per-client rates.
   * Absent while offline and from older brokers.
   */
  messages_in: z.number().int().nonnegative().optional(),
  messages_out: z.number().int().nonnegative().optional(),
});
export type ClientProducer = z.infer<typeof ClientProducerSchema>;

export const ClientConsumerSchema = z.object({
  name: z.string(),
  id: z.string(),
  /** `id` is the socket.io connection id: the client gave none (Switchboard; absent: unknown). */
  id_from_socket: z.boolean().optional(),
  online: z.boolean(),
  offline_since: z.number().nullable(),
  /** As the producer's `socket_id` (issue 27). */
  socket_id: z.string().nullable().optional(),
  subscriptions: z.array(ClientSubscriptionSchema),
  /**
   * Application messages received from / sent to its connection so far (socket.io events,
   * MQTT PUBLISH; as `client_detail`'s; Switchboard, issue 27): the console's per-client rates.
   * Absent while offline and from older brokers.
   */
  messages_in: z.number().int().nonnegative().optional(),
  messages_out: z.number().int().nonnegative().optional(),
});
export type ClientConsumer = z.infer<typeof ClientConsumerSchema>;

/** One MQTT subscription: the filter as the client sent it (no realm prefix) and its QoS. */
export const ClientMqttSubscriptionSchema = z.object({
  filter: z.string(),
  /** Granted QoS, 0–2. */
  qos: z.number().int().min(0).max(2),
});
export type ClientMqttSubscription = z.infer<typeof ClientMqttSubscriptionSchema>;

/**
 * A connected MQTT client (issue 14, docs/mqtt.md). `client_id` is the id the client chose
 * (without the internal realm scope); `username` the CONNECT username as sent (null when none;
 * never the password); `role` and `authenticated` how it was admitted; `clean` false for a
 * persistent session; `connected_since` epoch ms of its CONNACK; `protocol_version` the CONNECT's
 * protocol level (3 = MQTT 3.1, 4 = 3.1.1, 5 = 5.0; absent from brokers before MQTT 5 support).
 */
export const ClientMqttSchema = z.object({
  client_id: z.string(),
  protocol_version: z.number().int().min(3).max(5).optional(),
  username: z.string().nullable(),
  role: z.string(),
  authenticated: z.boolean(),
  transport: z.literal('mqtt'),
  clean: z.boolean(),
  connected_since: z.number(),
  subscriptions: z.array(ClientMqttSubscriptionSchema),
  /**
   * Application messages received from / sent to its connection so far (socket.io events,
   * MQTT PUBLISH; as `client_detail`'s; Switchboard, issue 27): the console's per-client rates.
   * Absent and from older brokers.
   */
  messages_in: z.number().int().nonnegative().optional(),
  messages_out: z.number().int().nonnegative().optional(),
});
export type ClientMqtt = z.infer<typeof ClientMqttSchema>;

/**
 * An SSE stream open on the node (`GET /sub`, `spec/protocol-extensions.md` §5.5; Switchboard,
 * issue 28): the event it follows, when it opened (epoch ms), the role it was admitted with.
 */
export const ClientSseSchema = z.object({
  event: z.string(),
  opened_at: z.number(),
  role: z.string(),
});
export type ClientSse = z.infer<typeof ClientSseSchema>;

/** One realm of `GET /api/clients`. */
export const ClientRealmSchema = z.object({
  producers: z.array(ClientProducerSchema),
  consumers: z.array(ClientConsumerSchema),
  /** MQTT clients of the realm connected now (absent when none; Switchboard, issue 14). */
  mqtt: z.array(ClientMqttSchema).optional(),
  /** SSE streams open on this node (absent when none; Switchboard, issue 28). */
  sse: z.array(ClientSseSchema).optional(),
});
export type ClientRealm = z.infer<typeof ClientRealmSchema>;

/** `GET /api/clients` (Switchboard extension, docs/http-api.md): registrations per realm. */
export const ClientsSchema = z.object({
  realms: z.record(z.string(), ClientRealmSchema),
});
export type Clients = z.infer<typeof ClientsSchema>;
