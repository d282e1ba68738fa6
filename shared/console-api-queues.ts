/**
 * ConsoleApi entries of the Queues view (issue 27): every durable queue of a broker with its
 * ready / in-flight counts and oldest ready age, a queue's stored copies (peek), the purge of
 * its ready copies, the move of ready copies to another queue and "release now" of in-flight
 * ones. Spread into `ConsoleMethods` by `console-api.ts`.
 *
 * Source: the Switchboard management commands `list_queues`, `peek_queue`, `purge_queue`,
 * `discard_queued`, `move_queue`, `release_in_flight` (docs/management.md "Queues"). Ages are ms, times epoch
 * ms, sizes bytes.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const Realm = z.string().min(1).max(256);
const Name = z.string().min(1).max(1_024);

/** Largest page of `listQueues` (the broker's `list_queues` limit). */
export const MAX_QUEUE_PAGE = 5_000;
/** Largest page of `peekQueue` (the broker's `peek_queue` limit). */
export const MAX_PEEK_PAGE = 500;
/** Most message ids of one `purgeQueue` / `moveQueue` / `releaseInFlight` (the broker's limit). */
export const MAX_ACTION_IDS = 5_000;

const Ids = z.array(z.string().min(1).max(256)).min(1).max(MAX_ACTION_IDS);

/**
 * Where `moveQueue` sends copies: the durable queue of `consumer` (default: the same one)
 * under subscription key `event` (default: the same key). At least one is given.
 */
export const MoveTargetSchema = z
  .object({ consumer: Name.optional(), event: Name.optional() })
  .strict()
  .refine((t) => t.consumer !== undefined || t.event !== undefined, {
    message: 'a target consumer or event is required',
  });
export type MoveTarget = z.infer<typeof MoveTargetSchema>;

/**
 * What a queue action did. `available` false: the broker does not offer the command (a plain
 * tyo-mq broker, an older Switchboard) and `summary` says so; the counts are 0 then.
 */
const ActionResult = {
  connectionId: z.string(),
  available: z.boolean(),
  summary: z.string(),
};

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
  /** The broker's counters since it started: copies in, deliveries out, ACKs. */
  enqueuedTotal: z.number().int().nonnegative(),
  deliveredTotal: z.number().int().nonnegative(),
  ackedTotal: z.number().int().nonnegative(),
  /**
   * Messages per second since the host's previous reading of this queue (publish = copies in,
   * deliver = deliveries and redeliveries, ack = ACKs); null on the first reading, after a
   * counter reset, or from a broker without the counters.
   */
  rates: z
    .object({
      publish: z.number().nonnegative(),
      deliver: z.number().nonnegative(),
      ack: z.number().nonnegative(),
    })
    .nullable(),
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
  /** In flight and awaiting its ACK: when the wait ends (epoch ms); else null. */
  ackDeadlineAt: z.number().nullable(),
  /** In flight and waiting for its retry: when it is due (epoch ms); else null. */
  nextRetryAt: z.number().nullable(),
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
        /** Only the ready, or only the in-flight copies. */
        state: z.enum(['ready', 'in_flight']).optional(),
      })
      .strict(),
    output: QueuePeekSchema,
  },
  /**
   * Deletes a queue's ready copies — all (signed `purge_queue`), or only `ids` ("Discard
   * selected" in Peek; signed `discard_queued`) — in-flight copies are kept. Needs a
   * confirmation (`console-api-confirm.ts`); a whole purge also needs `confirmName` equal to
   * `consumer` (the operator typed it). `notFound`: ids no longer in the queue (ACKed or moved
   * since the peek). Errors as `peekQueue`; `SWB_ERR_VALIDATION` when `confirmName` differs on a
   * whole purge, or when the broker does not offer `discard_queued` (nothing is deleted).
   */
  purgeQueue: {
    input: z
      .object({
        ...QueueTarget,
        ids: Ids.optional(),
        confirmName: z.string().max(1_024).optional(),
      })
      .strict(),
    output: z.object({
      connectionId: z.string(),
      purged: z.number().int().nonnegative(),
      inFlightKept: z.number().int().nonnegative(),
      notFound: z.number().int().nonnegative(),
      summary: z.string(),
    }),
  },
  /**
   * Moves a queue's ready copies — all, or `ids` — to another durable queue (signed
   * `move_queue`): stored there first, then deleted here; in-flight copies stay. Needs a
   * confirmation. Errors as `peekQueue`; `SWB_ERR_NOT_FOUND` for a target with no durable
   * subscription to the key.
   */
  moveQueue: {
    input: z.object({ ...QueueTarget, ids: Ids.optional(), to: MoveTargetSchema }).strict(),
    output: z.object({
      ...ActionResult,
      moved: z.number().int().nonnegative(),
      inFlightKept: z.number().int().nonnegative(),
      notFound: z.number().int().nonnegative(),
    }),
  },
  /**
   * "Release now" (signed `release_in_flight`): ends the ACK wait of a queue's in-flight copies
   * — all, or `ids` — and redelivers them to another online member of the consumer's group,
   * else leaves them ready; counted as an ACK timeout. Needs a confirmation. Errors as
   * `peekQueue`.
   */
  releaseInFlight: {
    input: z.object({ ...QueueTarget, ids: Ids.optional() }).strict(),
    output: z.object({
      ...ActionResult,
      redelivered: z.number().int().nonnegative(),
      requeued: z.number().int().nonnegative(),
      deadLettered: z.number().int().nonnegative(),
      notInFlight: z.number().int().nonnegative(),
    }),
  },
} as const;
