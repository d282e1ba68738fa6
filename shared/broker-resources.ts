/**
 * A broker's resources and alarms (issue 27, "Broker resources and alarms"): the reply of the
 * Switchboard management command `resources` (docs/management.md "Resources and alarms"), read
 * by the console's Resources view for local and remote brokers alike. The same numbers are on
 * `GET /api/metrics` (docs/http-api.md) for Prometheus users.
 */
import type { StorageStatus } from './http-api';

/** One file of the message or auth store on disk. */
export interface StoreFileSize {
  /** `messages`, `messages-wal`, `auth`, `auth-wal`. */
  name: string;
  path: string;
  /** 0 when the file does not exist (a WAL after a checkpoint). */
  bytes: number;
}

/** Event-loop delay over the last 30–60 s, in ms (`perf_hooks.monitorEventLoopDelay`). */
export interface EventLoopDelay {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** Why an alarm is raised; each id is raised at most once at a time. */
export const ALARM_IDS = [
  'event_loop_delay',
  'memory',
  'disk_low',
  'store_refusing',
  'dlq_growing',
  'queue_stale',
  'storage_fell_back',
] as const;
export type AlarmId = (typeof ALARM_IDS)[number];

/** One raised alarm. `value` and `threshold` are in the unit `unit` names. */
export interface Alarm {
  id: AlarmId;
  level: 'warning' | 'critical';
  /** One sentence an operator acts on. */
  message: string;
  value: number;
  threshold: number;
  unit: 'ms' | 'bytes' | 'entries' | 'state';
  /** Epoch ms when this alarm was first seen raised (kept while it stays raised). */
  since: number;
}

/** `resources` → `{ok: true, resources: BrokerResources}`. */
export interface BrokerResources {
  /** Epoch ms of the reading. */
  at: number;
  uptime_s: number;
  memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number };
  event_loop: EventLoopDelay;
  /** Open file descriptors; null where the platform does not tell (no `/proc/self/fd`). */
  open_fds: number | null;
  store: {
    backend: string;
    files: StoreFileSize[];
    dlq_entries: number;
    /** Durable queues and the age (ms) of the oldest ready copy among them; null = none. */
    queues: number;
    oldest_ready_age_ms: number | null;
    /** The Redis store fell back at start-up (Note 7-A); messages since live on this node only. */
    fell_back: boolean;
    /** After a fallback, whether Redis answers again (null before the first re-probe). */
    redis_reachable: boolean | null;
  };
  /** Free space under the store's directory and its reserve; null for stores off local disk. */
  disk: StorageStatus | null;
  alarms: Alarm[];
}
