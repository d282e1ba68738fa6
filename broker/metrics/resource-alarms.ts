/**
 * When a broker raises an alarm (issue 27, "Broker resources and alarms"; docs/configuration.md
 * `alarms.*`): thresholds from the live settings, evaluated on each `resources` reading and at
 * each `/api/metrics` scrape (`tyo_mq_alarm_active{alarm}`).
 *
 * - `event_loop_delay`: the p99 delay of the last 30–60 s above `alarms.event_loop_delay_ms`
 *   (default 200 ms: a stock client's ACK timeout is 30 s, but a loop this slow already delays
 *   every delivery visibly); critical above 5×.
 * - `memory`: RSS above `alarms.rss_bytes` (default off).
 * - `store_refusing` (critical): the store refuses new durable copies (disk below its reserve,
 *   or a write failed for lack of space; storage/free-space-reserve.ts).
 * - `disk_low` (warning): free space under the store below `alarms.disk_warn_factor` × the
 *   reserve (default 2), before copies are refused.
 * - `dlq_growing`: at least `alarms.dlq_growth` entries dead-lettered within the last
 *   `alarms.dlq_window_ms` (defaults 1 entry, 5 min); 0 turns it off.
 * - `queue_stale`: a durable queue's oldest ready copy older than `alarms.queue_oldest_age_ms`
 *   (default 5 min; 0 turns it off): a consumer that is gone or stuck.
 * - `storage_fell_back`: the Redis store fell back at start-up (spec/protocol-extensions.md
 *   §7.1 Note 7-A); critical once Redis answers again (the operator's move: drain, restart).
 */
import { z } from 'zod';
import { MAX_TIMER_DELAY_MS } from '../../shared/duration';
import type { Alarm, AlarmId, BrokerResources } from '../../shared/broker-resources';

export const AlarmsSchema = z
  .object({
    event_loop_delay_ms: z.number().positive().max(MAX_TIMER_DELAY_MS).default(200),
    rss_bytes: z.number().int().positive().nullable().default(null),
    disk_warn_factor: z.number().min(1).max(100).default(2),
    dlq_growth: z.number().int().nonnegative().default(1),
    dlq_window_ms: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(300_000),
    queue_oldest_age_ms: z.number().int().nonnegative().max(MAX_TIMER_DELAY_MS).default(300_000),
  })
  .strict();
export type AlarmSettings = z.infer<typeof AlarmsSchema>;

/** A reading without its alarms, plus the DLQ growth over the window. */
export type AlarmInput = Omit<BrokerResources, 'alarms'> & { dlq_added: number };

type Draft = Omit<Alarm, 'since'>;

/** `250 ms`, `5 s`, `5 min`: a threshold as an operator set it. */
function duration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000 || ms % 60_000 !== 0) return `${Math.round(ms / 1000)} s`;
  return `${ms / 60_000} min`;
}

function conditions(r: AlarmInput, t: AlarmSettings): Draft[] {
  const out: Draft[] = [];
  const delay = r.event_loop.p99_ms;
  if (delay > t.event_loop_delay_ms) {
    out.push({
      id: 'event_loop_delay',
      level: delay > 5 * t.event_loop_delay_ms ? 'critical' : 'warning',
      message: `Event-loop delay p99 ${Math.round(delay)} ms is above ${t.event_loop_delay_ms} ms: deliveries and ACKs are late`,
      value: delay,
      threshold: t.event_loop_delay_ms,
      unit: 'ms',
    });
  }
  if (t.rss_bytes !== null && r.memory.rss_bytes > t.rss_bytes) {
    out.push({
      id: 'memory',
      level: 'warning',
      message: `Broker memory (RSS) ${r.memory.rss_bytes} bytes is above ${t.rss_bytes} bytes`,
      value: r.memory.rss_bytes,
      threshold: t.rss_bytes,
      unit: 'bytes',
    });
  }
  const disk = r.disk;
  if (disk?.refusing_writes) {
    out.push({
      id: 'store_refusing',
      level: 'critical',
      message:
        disk.reason === 'store_full'
          ? 'The message store is full: new durable copies are refused until space is freed'
          : 'Free disk space is below the store reserve: new durable copies are refused',
      value: disk.free_bytes ?? 0,
      threshold: disk.reserve_bytes ?? 0,
      unit: 'bytes',
    });
  } else if (
    disk &&
    disk.free_bytes !== null &&
    disk.reserve_bytes !== null &&
    disk.reserve_bytes > 0 &&
    disk.free_bytes < disk.reserve_bytes * t.disk_warn_factor
  ) {
    const threshold = disk.reserve_bytes * t.disk_warn_factor;
    out.push({
      id: 'disk_low',
      level: 'warning',
      message: `Free disk space ${disk.free_bytes} bytes is below ${threshold} bytes; durable copies are refused below ${disk.reserve_bytes}`,
      value: disk.free_bytes,
      threshold,
      unit: 'bytes',
    });
  }
  if (t.dlq_growth > 0 && r.dlq_added >= t.dlq_growth) {
    out.push({
      id: 'dlq_growing',
      level: 'warning',
      message: `${r.dlq_added} ${r.dlq_added === 1 ? 'message' : 'messages'} dead-lettered in the last ${duration(t.dlq_window_ms)}`,
      value: r.dlq_added,
      threshold: t.dlq_growth,
      unit: 'entries',
    });
  }
  const age = r.store.oldest_ready_age_ms;
  if (t.queue_oldest_age_ms > 0 && age !== null && age > t.queue_oldest_age_ms) {
    out.push({
      id: 'queue_stale',
      level: 'warning',
      message: `A durable queue's oldest ready message is ${Math.round(age / 1000)} s old (threshold ${duration(t.queue_oldest_age_ms)}): its consumer is gone or stuck`,
      value: age,
      threshold: t.queue_oldest_age_ms,
      unit: 'ms',
    });
  }
  if (r.store.fell_back) {
    out.push({
      id: 'storage_fell_back',
      level: r.store.redis_reachable ? 'critical' : 'warning',
      message: r.store.redis_reachable
        ? 'Redis answers again, but this node still stores durable messages in its fallback store: drain it, then restart on Redis'
        : "Redis was unreachable at start-up: durable messages are stored on this node only, out of its cluster peers' reach",
      value: 1,
      threshold: 0,
      unit: 'state',
    });
  }
  return out;
}

/**
 * The alarms raised now, each with when it was first seen raised. Keeps that time across
 * readings while an alarm stays raised; an alarm that clears and comes back starts again.
 */
export class AlarmBook {
  private readonly since = new Map<AlarmId, number>();

  evaluate(input: AlarmInput, thresholds: AlarmSettings): Alarm[] {
    const raised = conditions(input, thresholds);
    const ids = new Set(raised.map((a) => a.id));
    for (const id of [...this.since.keys()]) if (!ids.has(id)) this.since.delete(id);
    return raised.map((a) => {
      let since = this.since.get(a.id);
      if (since === undefined) this.since.set(a.id, (since = input.at));
      return { ...a, since };
    });
  }

  /** Ids raised at the last evaluation. */
  active(): ReadonlySet<AlarmId> {
    return new Set(this.since.keys());
  }
}
