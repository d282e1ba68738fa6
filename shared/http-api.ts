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
  METRICS: '/api/metrics',
  STATS: '/api/stats',
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
});
export type Health = z.infer<typeof HealthSchema>;

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

/** `GET /api/stats` (§10.5). */
export const StatsSchema = z.object({
  realms: z.record(z.string(), RealmStatsSchema),
  connections_current: z.number().int(),
  cluster_node_id: z.string().optional(),
});
export type Stats = z.infer<typeof StatsSchema>;
