/**
 * ConsoleApi contract of the Activity view (issue 12): the audit log of every command this
 * console sent to a broker — who, what, target, result, time — kept in the console's data
 * directory. Entries never hold a secret: parameters are kept by a per-command allow-list, and a
 * secret parameter is only ever recorded as `"<set>"` or `"<cleared>"`.
 */
import { z } from 'zod';

/**
 * Who started a command: the operator (a button, a form) or the console's own background work
 * (temporary tap tokens, demo mode's set-up and clean-up). Entries written before the field
 * existed were all read as the operator's.
 */
export const ActivityOriginSchema = z.enum(['operator', 'console']);
export type ActivityOrigin = z.infer<typeof ActivityOriginSchema>;

/** Most replayed entries one Activity entry lists in its `trail` (the rest are counted). */
export const MAX_ACTIVITY_TRAIL = 20;

/** Longest id or name a trail step keeps, chars (longer ones are cut by the host). */
export const MAX_TRAIL_TEXT = 200;

const TrailText = z.string().max(MAX_TRAIL_TEXT);

/**
 * One replayed dead letter of a `dlq_replay` (docs/management.md "DLQ commands"): the DLQ id it
 * had, the id of its re-queued copy, and where that copy went. `realm`, `consumer` and `event`
 * (the queue's subscription key) are Switchboard's reply fields: absent when the broker's reply
 * does not name them (a plain tyo-mq broker answers `{ok, msg_id, new_msg_id}` only).
 */
export const ActivityTrailStepSchema = z.object({
  /** The DLQ id replayed (gone from the DLQ after the replay). */
  from: TrailText,
  /** The re-queued copy's id: what the consumer receives and ACKs. */
  to: TrailText,
  realm: TrailText.optional(),
  consumer: TrailText.optional(),
  event: TrailText.optional(),
});
export type ActivityTrailStep = z.infer<typeof ActivityTrailStepSchema>;

export const ActivityEntrySchema = z.object({
  /** Increasing per log file; for ordering and React keys. */
  seq: z.number().int().nonnegative(),
  /** Epoch ms. */
  at: z.number(),
  /** Who: `console` plus the OS user running the console host (e.g. `console (alice)`). */
  actor: z.string(),
  connectionId: z.string(),
  /** The connection's name when the entry was written (absent in older entries: show the id,
   * or the connection's current name). */
  connectionName: z.string().optional(),
  /** Operator action or the console's own background work; absent in old entries = operator. */
  origin: ActivityOriginSchema.default('operator'),
  /** The wire action: a management command name (`add_realm`…), `AUTHORIZATION_DECIDE`, or
   * `console_publish` (a test message from the Live tap's publisher). */
  action: z.string(),
  /** The realm (or prefix, request id) the command was about; null when global. */
  target: z.string().nullable(),
  /** Non-secret parameters; secret ones only as `"<set>"` / `"<cleared>"`; a list of ids as
   * `count` plus `ids` (the first 20, comma-separated). */
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  ok: z.boolean(),
  /** The error (code and message) when `ok` is false. */
  error: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  /** What a successful command did, from its reply (e.g. `replayed 3, 1 not found`); absent
   * when the reply says no more than ok. */
  result: z.string().optional(),
  /** A DLQ replay's trail, in reply order: the first `MAX_ACTIVITY_TRAIL` replayed entries,
   * each DLQ id → new id → where it went. Absent for other commands and failed replays. */
  trail: z.array(ActivityTrailStepSchema).max(MAX_ACTIVITY_TRAIL).optional(),
  /** Replayed entries past `MAX_ACTIVITY_TRAIL`, not listed in `trail`; absent when none. */
  trailOmitted: z.number().int().positive().optional(),
  /** Why a refused command still counts as done (e.g. `already gone`: a clean-up found the
   * realm removed); absent otherwise. */
  note: z.string().optional(),
});
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;

/** Outcome filter of `listActivity`. */
export const ActivityOutcomeSchema = z.enum(['ok', 'failed']);

export const ActivityListSchema = z.object({
  entries: z.array(ActivityEntrySchema),
  /** What the whole log holds to filter by, whatever the filters: every connection (with its
   * latest recorded name) and every action. */
  facets: z.object({
    connections: z.array(z.object({ id: z.string(), name: z.string() })),
    actions: z.array(z.string()),
  }),
});
export type ActivityList = z.infer<typeof ActivityListSchema>;

export const ActivityMethods = {
  /**
   * The newest entries first, optionally of one connection, of some origins only (default:
   * every origin), of some actions (wire names) and of one outcome. `limit` default 200, max
   * 1000, counted after the filters.
   */
  listActivity: {
    input: z
      .object({
        connectionId: z.string().min(1).max(128).optional(),
        origins: z.array(ActivityOriginSchema).min(1).max(2).optional(),
        actions: z.array(z.string().min(1).max(64)).min(1).max(50).optional(),
        outcome: ActivityOutcomeSchema.optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      })
      .strict(),
    output: ActivityListSchema,
  },
} as const;

export const ActivityEvents = {
  /** A command was sent and its result recorded. */
  activity: ActivityEntrySchema,
} as const;
