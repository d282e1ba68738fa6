/**
 * The broker's own resources (issue 27, "Broker resources and alarms"): memory, event-loop
 * delay, open file descriptors, the store's files and DLQ, durable-queue staleness and free
 * disk, read for the `resources` management command (shared/broker-resources.ts) and exposed
 * on `/api/metrics`: prom-client's standard process and Node.js metrics (`process_*`,
 * `nodejs_*`, what Prometheus users' dashboards expect) plus `tyo_mq_alarm_active{alarm}`,
 * `tyo_mq_store_file_bytes{file}`, `tyo_mq_event_loop_delay_p99_seconds` and
 * `tyo_mq_queue_oldest_ready_age_seconds`.
 *
 * Cost: nothing per message. The event-loop histogram is Node's (`monitorEventLoopDelay`, 20 ms
 * resolution); a reading stats a few files, asks the store for its DLQ depths and scans the
 * durable queues' heads, at most once per `READ_CACHE_MS` however many consoles poll, plus once
 * per `SAMPLE_MS` on a timer so alarms (and the DLQ growth window) advance without a console.
 */
import { readdir, stat } from 'node:fs/promises';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import {
  ALARM_IDS,
  type Alarm,
  type BrokerResources,
  type EventLoopDelay,
  type StoreFileSize,
} from '../../shared/broker-resources';
import type { StorageStatus } from '../../shared/http-api';
import { MetricName } from '../../shared/metric-names';
import type { Logger } from '../logging/logger';
import type { FallbackStatus } from '../storage/message-store';
import { AlarmBook, type AlarmSettings } from './resource-alarms';

/** A reading is reused for this long (ms): many consoles polling cost one reading. */
export const READ_CACHE_MS = 2_000;
/** How often (ms) a reading is taken without anyone asking, and the loop window rotates. */
export const SAMPLE_MS = 30_000;

/** Where the monitor reads what is not the process's own. */
export interface ResourceSources {
  /** `sqlite`, `memory`, `redis`. */
  storeBackend: string;
  /** The store files to size (missing ones count 0). */
  storeFiles: () => Array<{ name: string; path: string }>;
  storage?: () => StorageStatus;
  /** The Redis start-up store's fallback state (Note 7-A). */
  fallback?: () => FallbackStatus;
  dlqDepths?: () => Promise<Array<{ realm: string; n: number }>>;
  /**
   * Copies dead-lettered since the broker started: the `dlq_growing` alarm counts these events
   * over its window (depths alone hid additions behind a replay or a discard). Without it the
   * alarm falls back to the DLQ depth's growth.
   */
  deadLettered?: () => number;
  /** Durable queues and the oldest ready copy's age (ms). */
  queues?: () => Promise<{ queues: number; oldest_ready_age_ms: number | null }>;
  /** The live `alarms` settings (read at each evaluation: they can be reloaded). */
  thresholds: () => AlarmSettings;
  logger?: Logger;
}

let processRegistry: Registry | null = null;

/**
 * prom-client's default metrics, collected once per process into a registry of their own: they
 * describe the process (which every broker in it shares), and each collection installs a GC
 * observer and a loop monitor that are never removed.
 */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);

async function openFds(): Promise<number | null> {
  try {
    // readdir holds one descriptor of its own while it reads.
    return (await readdir('/proc/self/fd')).length - 1;
  } catch {
    return null;
  }
}

async function fileSizes(files: Array<{ name: string; path: string }>): Promise<StoreFileSize[]> {
  return Promise.all(
    files.map(async (f) => {
      try {
        return { ...f, bytes: (await stat(f.path)).size };
      } catch {
        return { ...f, bytes: 0 };
      }
    }),
  );
}

/** The SQLite files to size: each database and its WAL (`-wal`), for the stores on disk. */
export function storeFiles(
  messages: string | undefined,
  auth: string | null,
): Array<{ name: string; path: string }> {
  const out: Array<{ name: string; path: string }> = [];
  for (const [name, path] of [
    ['messages', messages],
    ['auth', auth],
  ] as const) {
    if (!path) continue;
    out.push({ name, path }, { name: `${name}-wal`, path: `${path}-wal` });
  }
  return out;
}

export class ResourceMonitor {
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  private previousLoop: EventLoopDelay | null = null;
  private readonly book = new AlarmBook();
  /** DLQ totals seen, oldest first, within the growth window. */
  private dlqSamples: Array<{ at: number; n: number }> = [];
  private cached: { at: number; value: Promise<BrokerResources> } | null = null;
  private last: BrokerResources | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly started = Date.now();

  constructor(
    registry: Registry,
    private readonly sources: ResourceSources,
  ) {
    this.loop.enable();
    const alarms: Gauge<'alarm'> = new Gauge({
      name: MetricName.ALARM_ACTIVE,
      help: 'Alarms raised now (1) or not (0), by alarm',
      labelNames: ['alarm'],
      registers: [registry],
      collect: () => {
        const active = this.book.active();
        for (const alarm of ALARM_IDS) alarms.set({ alarm }, active.has(alarm) ? 1 : 0);
      },
    });
    const files: Gauge<'file'> = new Gauge({
      name: MetricName.STORE_FILE_BYTES,
      help: 'Bytes of each store file on disk, by file',
      labelNames: ['file'],
      registers: [registry],
      collect: async () => {
        for (const f of await fileSizes(this.sources.storeFiles())) {
          files.set({ file: f.name }, f.bytes);
        }
      },
    });
    const loop: Gauge = new Gauge({
      name: MetricName.EVENT_LOOP_DELAY_P99,
      help: 'Event-loop delay p99 over the last 30-60 s, seconds',
      registers: [registry],
      collect: () => loop.set(this.loopDelay().p99_ms / 1000),
    });
    const age: Gauge = new Gauge({
      name: MetricName.QUEUE_OLDEST_READY_AGE,
      help: 'Age of the oldest ready durable copy at the last reading, seconds (0 when none)',
      registers: [registry],
      collect: () => age.set((this.last?.store.oldest_ready_age_ms ?? 0) / 1000),
    });
    this.timer = setInterval(() => {
      this.previousLoop = this.currentLoop();
      this.loop.reset();
      this.read().catch((err: unknown) =>
        this.sources.logger?.warn({ err }, 'broker resources not read'),
      );
    }, SAMPLE_MS);
    this.timer.unref();
  }

  /** A reading with its alarms (cached for `READ_CACHE_MS`). Never rejects for a missing file. */
  read(): Promise<BrokerResources> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < READ_CACHE_MS) return this.cached.value;
    const value = this.take(now);
    this.cached = { at: now, value };
    value.catch(() => {
      if (this.cached?.value === value) this.cached = null;
    });
    return value;
  }

  /** Alarms raised at the last reading. */
  alarms(): Alarm[] {
    return this.last?.alarms ?? [];
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.loop.disable();
  }

  private currentLoop(): EventLoopDelay {
    const h = this.loop;
    return h.count > 0
      ? { p50_ms: ms(h.percentile(50)), p99_ms: ms(h.percentile(99)), max_ms: ms(h.max) }
      : { p50_ms: 0, p99_ms: 0, max_ms: 0 };
  }

  /** The current window, with the previous one's worst (a reading right after a rotation). */
  private loopDelay(): EventLoopDelay {
    const cur = this.currentLoop();
    const prev = this.previousLoop;
    if (!prev) return cur;
    return {
      p50_ms: this.loop.count > 0 ? cur.p50_ms : prev.p50_ms,
      p99_ms: Math.max(cur.p99_ms, prev.p99_ms),
      max_ms: Math.max(cur.max_ms, prev.max_ms),
    };
  }

  private async take(now: number): Promise<BrokerResources> {
    const s = this.sources;
    const thresholds = s.thresholds();
    const [fds, files, dlq, queues] = await Promise.all([
      openFds(),
      fileSizes(s.storeFiles()),
      s.dlqDepths ? s.dlqDepths() : Promise.resolve([]),
      s.queues ? s.queues() : Promise.resolve({ queues: 0, oldest_ready_age_ms: null }),
    ]);
    const dlqEntries = dlq.reduce((sum, d) => sum + d.n, 0);
    const fallback = s.fallback?.();
    const deadLettered = s.deadLettered ? s.deadLettered() : dlqEntries;
    this.dlqSamples = this.dlqSamples.filter((x) => now - x.at <= thresholds.dlq_window_ms);
    const base = this.dlqSamples[0]?.n ?? deadLettered;
    this.dlqSamples.push({ at: now, n: deadLettered });
    const mem = process.memoryUsage();
    const reading = {
      at: now,
      uptime_s: Math.round((now - this.started) / 1000),
      memory: {
        rss_bytes: mem.rss,
        heap_used_bytes: mem.heapUsed,
        heap_total_bytes: mem.heapTotal,
      },
      event_loop: this.loopDelay(),
      open_fds: fds,
      store: {
        backend: s.storeBackend,
        files,
        dlq_entries: dlqEntries,
        ...queues,
        fell_back: fallback?.fell_back ?? false,
        redis_reachable: fallback?.redis_reachable ?? null,
      },
      disk: s.storage?.() ?? null,
    };
    const alarms = this.book.evaluate(
      { ...reading, dlq_added: Math.max(0, deadLettered - base) },
      thresholds,
    );
    this.last = { ...reading, alarms };
    return this.last;
  }
}
