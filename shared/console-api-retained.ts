/**
 * ConsoleApi entries of the Retained view (issue 27): a realm's MQTT retained messages, one
 * message's payload in full, and clearing one message or every match of a topic filter.
 * Spread into `ConsoleMethods` by `console-api.ts`.
 *
 * Source: the Switchboard management commands `list_retained`, `delete_retained`
 * (docs/management.md "Retained messages"). Sizes are bytes, seconds are seconds.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const Realm = z.string().min(1).max(256);
/** MQTT topics and filters are at most 65,535 bytes on the wire. */
const Topic = z.string().min(1).max(65_535);

/** Largest page of `listRetained` (the broker's `list_retained` limit). */
export const MAX_RETAINED_PAGE = 1_000;

/**
 * One retained message as the realm's clients see its topic. `payload` is text when the whole
 * payload is valid UTF-8 (`payloadEncoding: 'utf8'`), else base64 of the bytes shown; a listed
 * entry shows at most 1 KiB (`truncated`), `getRetained` the whole payload (up to 1 MiB).
 * `contentType` / `messageExpiryIntervalS` are MQTT 5 properties (null when absent);
 * `expiresInS` is what is left of the interval (null when unknown).
 */
export const RetainedEntrySchema = z.object({
  topic: z.string(),
  qos: z.number().int().min(0).max(2),
  sizeBytes: z.number().int().nonnegative(),
  payload: z.string(),
  payloadEncoding: z.enum(['utf8', 'base64']),
  truncated: z.boolean(),
  contentType: z.string().nullable(),
  messageExpiryIntervalS: z.number().nonnegative().nullable(),
  expiresInS: z.number().nonnegative().nullable(),
});
export type RetainedEntry = z.infer<typeof RetainedEntrySchema>;

/**
 * A page of retained messages. `state`: `ok`; `unsupported` (the broker does not offer
 * `list_retained`: a plain tyo-mq broker, an older Switchboard); `mqtt-off` (the broker runs
 * without its MQTT listener). `entries` is empty unless `ok`.
 */
export const RetainedListSchema = z.object({
  connectionId: z.string(),
  state: z.enum(['ok', 'unsupported', 'mqtt-off']),
  realm: z.string(),
  filter: z.string(),
  entries: z.array(RetainedEntrySchema),
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: z.string().nullable(),
  /** When the broker answered, epoch ms. */
  fetchedAt: z.number(),
});
export type RetainedList = z.infer<typeof RetainedListSchema>;

export const RetainedMethods = {
  /**
   * The retained messages of `realm` whose topic matches `filter` (MQTT topic filter, default
   * `#`), sorted by topic (signed `list_retained`). Errors: `SWB_ERR_NOT_FOUND` (unknown
   * connection), `SWB_ERR_BROKER_UNREACHABLE`, `SWB_ERR_UNAUTHORIZED`, `SWB_ERR_VALIDATION`.
   */
  listRetained: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: Realm,
        filter: Topic.optional(),
        cursor: Topic.nullable().optional(),
        limit: z.number().int().min(1).max(MAX_RETAINED_PAGE).optional(),
      })
      .strict(),
    output: RetainedListSchema,
  },
  /** One retained message with its whole payload, or null when none. Errors as `listRetained`. */
  getRetained: {
    input: z.object({ connectionId: ConnectionId, realm: Realm, topic: Topic }).strict(),
    output: RetainedEntrySchema.nullable(),
  },
  /**
   * Clears the retained message of `topic`, or of every topic matching `filter` (exactly one of
   * the two; signed `delete_retained`). Needs a confirmation (`console-api-confirm.ts`); with
   * `filter`, `confirmFilter` must equal it (the operator typed it). Errors as `listRetained`;
   * `SWB_ERR_VALIDATION` when both or neither are given or `confirmFilter` differs.
   */
  deleteRetained: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: Realm,
        topic: Topic.optional(),
        filter: Topic.optional(),
        confirmFilter: z.string().max(65_535).optional(),
      })
      .strict(),
    output: z.object({
      connectionId: z.string(),
      deleted: z.number().int().nonnegative(),
      summary: z.string(),
    }),
  },
} as const;
