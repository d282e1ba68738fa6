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
  /** Operator action or the console's own background work; absent in old entries = operator. */
  origin: ActivityOriginSchema.default('operator'),
  /** The wire action: a management command name (`add_realm`…) or `AUTHORIZATION_DECIDE`. */
  action: z.string(),
  /** The realm (or prefix, request id) the command was about; null when global. */
  target: z.string().nullable(),
  /** Non-secret parameters; secret ones only as `"<set>"` / `"<cleared>"`. */
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  ok: z.boolean(),
  /** The error (code and message) when `ok` is false. */
  error: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  /** Why a refused command still counts as done (e.g. `already gone`: a clean-up found the
   * realm removed); absent otherwise. */
  note: z.string().optional(),
});
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;

export const ActivityListSchema = z.object({ entries: z.array(ActivityEntrySchema) });
export type ActivityList = z.infer<typeof ActivityListSchema>;

export const ActivityMethods = {
  /**
   * The newest entries first, optionally of one connection and of some origins only (default:
   * every origin). `limit` default 200, max 1000, counted after the filters.
   */
  listActivity: {
    input: z
      .object({
        connectionId: z.string().min(1).max(128).optional(),
        origins: z.array(ActivityOriginSchema).min(1).max(2).optional(),
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
