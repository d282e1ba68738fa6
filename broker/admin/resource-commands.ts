/**
 * The `resources` management command (Switchboard extension, docs/management.md "Resources and
 * alarms"; issue 27): the broker's memory, event-loop delay, open file descriptors, store files,
 * DLQ, durable-queue staleness, free disk and the alarms raised (shared/broker-resources.ts).
 * Admin only: the numbers describe the whole broker, every realm's queues included.
 */
import type { BrokerResources } from '../../shared/broker-resources';
import { listQueues, MAX_QUEUE_PAGE, type QueueServices } from './queue-commands';
import { CommandError } from './command-types';

/** What `resources` reads (metrics/resource-monitor.ts). */
export interface ResourceServices {
  read(): Promise<BrokerResources>;
}

/** `resources` `{}` → `{ok, resources}`; 501 when the broker has no monitor. */
export async function readResources(services: ResourceServices | undefined) {
  if (!services) throw new CommandError(501, 'resources is not available');
  return { ok: true as const, resources: await services.read() };
}

/**
 * Every durable queue of this node and the age (ms) of the oldest ready copy among them, for
 * the `queue_stale` alarm: `list_queues` page by page, so the scan stays the command's.
 */
export async function queueStaleness(
  services: QueueServices,
): Promise<{ queues: number; oldest_ready_age_ms: number | null }> {
  let queues = 0;
  let oldest: number | null = null;
  let cursor: string | undefined;
  for (;;) {
    const page = await listQueues(services, {
      limit: MAX_QUEUE_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    queues = page.total;
    for (const q of page.queues) {
      const age = q.oldest_ready_age_ms;
      if (age !== null && (oldest === null || age > oldest)) oldest = age;
    }
    if (!page.next_cursor) return { queues, oldest_ready_age_ms: oldest };
    cursor = page.next_cursor;
  }
}
