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
