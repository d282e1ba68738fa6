/**
 * ConsoleApi entry of the Resources view (issue 27, "Broker resources and alarms"): the
 * selected broker's memory, event-loop delay, open file descriptors, store files, DLQ, queue
 * staleness, free disk and raised alarms. Spread into `ConsoleMethods` by `console-api.ts`.
 *
 * Source: the Switchboard management command `resources` (docs/management.md "Resources and
 * alarms"; shape `shared/broker-resources.ts`). Sizes are bytes, times ms.
 */
import { z } from 'zod';
import { ALARM_IDS } from './broker-resources';
import { StorageStatusSchema } from './http-api';

const bytes = z.number().nonnegative();
const count = z.number().int().nonnegative();

export const AlarmSchema = z.object({
  id: z.enum(ALARM_IDS),
  level: z.enum(['warning', 'critical']),
  message: z.string().max(1_000),
  value: z.number(),
  threshold: z.number(),
  unit: z.enum(['ms', 'bytes', 'entries', 'state']),
  since: z.number(),
});

/** A broker's `resources` reply, checked before it reaches the renderer. */
export const BrokerResourcesSchema = z.object({
  at: z.number(),
  uptime_s: z.number().nonnegative(),
  memory: z.object({ rss_bytes: bytes, heap_used_bytes: bytes, heap_total_bytes: bytes }),
  event_loop: z.object({
    p50_ms: z.number().nonnegative(),
    p99_ms: z.number().nonnegative(),
    max_ms: z.number().nonnegative(),
  }),
  open_fds: count.nullable(),
  store: z.object({
    backend: z.string().max(64),
    files: z
      .array(z.object({ name: z.string().max(64), path: z.string().max(4_096), bytes }))
      .max(16),
    dlq_entries: count,
    queues: count,
    oldest_ready_age_ms: z.number().nonnegative().nullable(),
    // Older Switchboard brokers did not send these.
    fell_back: z.boolean().default(false),
    redis_reachable: z.boolean().nullable().default(null),
  }),
  disk: StorageStatusSchema.nullable(),
  alarms: z.array(AlarmSchema).max(32),
});

/**
 * `state`: `ok`; `unsupported` (the broker does not offer `resources`: a plain tyo-mq broker, an
 * older Switchboard). `resources` is null unless `ok`.
 */
export const ResourcesViewSchema = z.object({
  connectionId: z.string(),
  state: z.enum(['ok', 'unsupported']),
  resources: BrokerResourcesSchema.nullable(),
  /** When the broker answered, epoch ms. */
  fetchedAt: z.number(),
});
export type ResourcesView = z.infer<typeof ResourcesViewSchema>;

export const ResourcesMethods = {
  /**
   * The broker's resources and alarms (signed `resources`, admin). Errors: `SWB_ERR_NOT_FOUND`
   * (unknown connection), `SWB_ERR_BROKER_UNREACHABLE`, `SWB_ERR_UNAUTHORIZED` (a realm manager
   * key: the numbers describe the whole broker), `SWB_ERR_INTERNAL` (a reply of the wrong shape).
   */
  getResources: {
    input: z.object({ connectionId: z.string().min(1).max(128) }).strict(),
    output: ResourcesViewSchema,
  },
} as const;
