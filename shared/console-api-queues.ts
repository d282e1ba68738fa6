/**
 * ConsoleApi entries of the Queues view (issue 27): every durable queue of a broker with its
 * ready / in-flight counts and oldest ready age, a queue's stored copies (peek) and the purge
 * of its ready copies. Spread into `ConsoleMethods` by `console-api.ts`.
 *
 * Source: the Switchboard management commands `list_queues`, `peek_queue`, `purge_queue`
 * (docs/management.md "Queues"). Ages are ms, times epoch ms, sizes bytes.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const Realm = z.string().min(1).max(256);
const Name = z.string().min(1).max(1_024);

/** Largest page of `listQueues` (the broker's `list_queues` limit). */
export const MAX_QUEUE_PAGE = 5_000;
/** Largest page of `peekQueue` (the broker's `peek_queue` limit). */
export const MAX_PEEK_PAGE = 500;

/**
 * One durable queue `(realm, key, consumerId)`. `consumer` is its subscription's consumer name
 * (the `consumerId` when no subscription owns it any more: `subscribed` false). `ready` =
 * `stored` − `inFlight`; `oldestReadyAgeMs` null when nothing is ready.
 */
export const QueueRowSchema = z.object({
  id: z.string(),
  realm: z.string(),
  key: z.string(),
  consumer: z.string(),
  consumerId: z.string(),
  group: z.string().nullable(),
  subscribed: z.boolean(),
  online: z.boolean(),
  stored: z.number().int().nonnegative(),
  ready: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  oldestReadyAgeMs: z.number().nonnegative().nullable(),
});
export type QueueRow = z.infer<typeof QueueRowSchema>;

/**
 * A page of queues. `supported` false: the broker does not offer `list_queues` (a plain tyo-mq
 * broker, an older Switchboard); `queues` is then empty.
 */
export const QueueListSchema = z.object({
  connectionId: z.string(),
  supported: z.boolean(),
  queues: z.array(QueueRowSchema),
  total: z.number().int().nonnegative(),
  nextCursor: z.string().nullable(),
  /** When the broker answered, epoch ms. */
  fetchedAt: z.number(),
});
export type QueueList = z.infer<typeof QueueListSchema>;

/** One stored copy as `peekQueue` shows it; `preview` is the payload's JSON, cut. */
export const QueuedMessageSchema = z.object({
  msgId: z.string(),
  event: z.string(),
  producer: z.string(),
  createdAt: z.number().nullable(),
  ageMs: z.number().nonnegative(),
  attempts: z.number().int().nonnegative(),
  inFlight: z.boolean(),
  size: z.number().int().nonnegative(),
  preview: z.string(),
  truncated: z.boolean(),
});
export type QueuedMessage = z.infer<typeof QueuedMessageSchema>;

export const QueuePeekSchema = z.object({
  connectionId: z.string(),
  realm: z.string(),
  key: z.string(),
  consumer: z.string(),
  stored: z.number().int().nonnegative(),
  messages: z.array(QueuedMessageSchema),
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: z.string().nullable(),
});
export type QueuePeek = z.infer<typeof QueuePeekSchema>;

const QueueTarget = {
  connectionId: ConnectionId,
  realm: Realm,
  consumer: Name,
  key: Name.optional(),
};

export const QueuesMethods = {
  /**
   * The durable queues of a connection's broker (signed `list_queues`), of one realm or all,
   * ordered by realm, key, consumer id. Errors: `SWB_ERR_NOT_FOUND` (unknown connection),
   * `SWB_ERR_BROKER_UNREACHABLE`, `SWB_ERR_UNAUTHORIZED`, `SWB_ERR_VALIDATION`.
   */
  listQueues: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: Realm.optional(),
        cursor: z.string().max(4_096).nullable().optional(),
        limit: z.number().int().min(1).max(MAX_QUEUE_PAGE).optional(),
      })
      .strict(),
    output: QueueListSchema,
  },
  /**
   * One page of a queue's stored copies, oldest first, read without changing their state
   * (signed `peek_queue`). Errors as `listQueues`; `SWB_ERR_NOT_FOUND` for an unknown queue.
   */
  peekQueue: {
    input: z
      .object({
        ...QueueTarget,
        cursor: z.string().max(16).nullable().optional(),
        limit: z.number().int().min(1).max(MAX_PEEK_PAGE).optional(),
      })
      .strict(),
    output: QueuePeekSchema,
  },
  /**
   * Deletes a queue's ready copies (signed `purge_queue`; in-flight copies are kept). Needs a
   * confirmation (`console-api-confirm.ts`) and `confirmName` equal to `consumer` (the
   * operator typed it). Errors as `peekQueue`; `SWB_ERR_VALIDATION` when `confirmName` differs.
   */
  purgeQueue: {
    input: z.object({ ...QueueTarget, confirmName: z.string().max(1_024) }).strict(),
    output: z.object({
      connectionId: z.string(),
      purged: z.number().int().nonnegative(),
      inFlightKept: z.number().int().nonnegative(),
      summary: z.string(),
    }),
  },
} as const;
