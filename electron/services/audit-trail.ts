/**
 * The trail of a DLQ replay for its Activity entry (issue 27): from the broker's `dlq_replay`
 * reply, each replayed entry's old DLQ id → the id of its re-queued copy → where the copy went
 * (realm, consumer, event: Switchboard's reply fields, docs/management.md "DLQ commands").
 *
 * The reply comes from a broker, so it is validated, never trusted: items without both ids are
 * skipped, a reply without the Switchboard fields (a plain tyo-mq broker's
 * `{ok, msg_id, new_msg_id}`, `spec/protocol-admin.md` §8.2) still gives a trail of ids, and
 * every string is cut to `MAX_TRAIL_TEXT`, so the log line stays bounded.
 */
import { z } from 'zod';
import {
  MAX_ACTIVITY_TRAIL,
  MAX_TRAIL_TEXT,
  type ActivityTrailStep,
} from '../../shared/console-api-activity';

/** What the trail reads of one replayed entry (either reply form); other fields are ignored. */
const ReplayedItemSchema = z.object({
  msg_id: z.string().min(1),
  new_msg_id: z.string().min(1),
  realm: z.string().min(1).optional().catch(undefined),
  consumer: z.string().min(1).optional().catch(undefined),
  event: z.string().min(1).optional().catch(undefined),
});

/** An Activity entry's `trail` and `trailOmitted` (the latter only when entries were left out). */
export interface AuditTrail {
  trail: ActivityTrailStep[];
  trailOmitted?: number;
}

const cut = (text: string): string => text.slice(0, MAX_TRAIL_TEXT);

function step(item: z.infer<typeof ReplayedItemSchema>): ActivityTrailStep {
  const out: ActivityTrailStep = { from: cut(item.msg_id), to: cut(item.new_msg_id) };
  if (item.realm) out.realm = cut(item.realm);
  if (item.consumer) out.consumer = cut(item.consumer);
  if (item.event) out.event = cut(item.event);
  return out;
}

/**
 * The trail of a successful `action` from its `reply`: for `dlq_replay` with `ids` the
 * `replayed` list, for the single-id form the reply itself; null for any other action, or when
 * nothing valid was replayed. At most `MAX_ACTIVITY_TRAIL` steps, the rest counted in
 * `trailOmitted`.
 */
export function auditTrail(action: string, reply: unknown): AuditTrail | null {
  if (action !== 'dlq_replay' || typeof reply !== 'object' || reply === null) return null;
  const r = reply as Record<string, unknown>;
  const items: unknown[] = Array.isArray(r.replayed) ? r.replayed : [r];
  const steps: ActivityTrailStep[] = [];
  for (const item of items) {
    const parsed = ReplayedItemSchema.safeParse(item);
    if (parsed.success) steps.push(step(parsed.data));
  }
  if (steps.length === 0) return null;
  const omitted = steps.length - MAX_ACTIVITY_TRAIL;
  return {
    trail: steps.slice(0, MAX_ACTIVITY_TRAIL),
    ...(omitted > 0 ? { trailOmitted: omitted } : {}),
  };
}
