/**
 * ConsoleApi contract of the Topic tree (issue 27, MQTT Explorer's signature): the topics a realm
 * carries, built in the console host from live traffic (a consumer subscribed to `#`, any
 * producer, no ACK, not durable, like the tap) and seeded from retained messages, pushed to the
 * page as changed nodes once a second, and one topic's detail (history ring, numeric series).
 *
 * Spread into `ConsoleMethods` / `ConsoleEvents` by `console-api.ts`. Source: ARCHITECTURE §1,
 * `spec/protocol-core.md` §3.3 (SUBSCRIBE, topic mode), §11 (topic keys, `/` levels),
 * docs/management.md "Retained messages" (`list_retained`). Times are epoch ms (console host
 * clock), rates messages per second.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const RealmName = z.string().min(1).max(256);
const TreeId = z.string().min(1).max(128);

/** Most topics one tree keeps; messages on further topics only count in `overflow`. */
export const TOPIC_TREE_MAX_TOPICS = 20_000;
/** Messages kept per topic for the detail's history. */
export const TOPIC_HISTORY_SIZE = 20;
/** Characters of a history entry's payload kept (the newest one keeps `TAP_PREVIEW_CHARS`). */
export const TOPIC_HISTORY_PREVIEW_CHARS = 256;
/** Characters of a node's `last` preview in an update. */
export const TOPIC_NODE_PREVIEW_CHARS = 120;
/** Points kept per numeric field, and the most fields plotted per topic. */
export const TOPIC_SERIES_POINTS = 120;
export const TOPIC_SERIES_MAX_FIELDS = 8;
/** Period of `topicTreeUpdate`, ms. */
export const TOPIC_TREE_UPDATE_MS = 1_000;
/** Most trees running at once in one console (each holds a socket). */
export const MAX_TOPIC_TREES = 8;

/** One topic's figures as an update carries them (only topics that changed since the last). */
export const TopicNodeSchema = z.object({
  topic: z.string(),
  /** Messages seen since the tree started (retained seeds do not count). */
  count: z.number().int().nonnegative(),
  /** Messages over the last update period, per second. */
  rate: z.number().nonnegative(),
  /** Start of the last payload as JSON text (or the retained payload), cut to
   * `TOPIC_NODE_PREVIEW_CHARS`; null when none yet. */
  last: z.string().nullable(),
  /** When the last message arrived (or the retained seed was read); null when never. */
  lastAt: z.number().nullable(),
  /** The broker holds a retained message for this topic (as last read by the seed). */
  retained: z.boolean(),
  /** Subscribers of the topic when the broker tells; null = unknown (shown as "—"). */
  subscribers: z.number().int().nonnegative().nullable(),
});
export type TopicNode = z.infer<typeof TopicNodeSchema>;

/**
 * Where the retained seed stands: `loading`, `ok` (read, `retainedSeeded` topics), `unsupported`
 * (the broker does not offer retained messages: a plain tyo-mq broker), `mqtt-off` (the broker
 * runs without MQTT), `error` (the broker refused or failed; live traffic still builds the tree).
 */
export const RetainedSeedState = z.enum(['loading', 'ok', 'unsupported', 'mqtt-off', 'error']);
export type RetainedSeedState = z.infer<typeof RetainedSeedState>;

/** One push of a tree, every `TOPIC_TREE_UPDATE_MS` while it runs and once when it stops. */
export const TopicTreeUpdateSchema = z.object({
  treeId: z.string(),
  connectionId: z.string(),
  /** Increases by one per update of this tree: a gap means the page missed one. */
  seq: z.number().int().nonnegative(),
  at: z.number(),
  /** Topics changed since the previous update (all of them in the first). */
  nodes: z.array(TopicNodeSchema),
  /** Topics kept, messages seen, messages/s over the last period, messages on topics past the
   * cap (`TOPIC_TREE_MAX_TOPICS`). */
  topics: z.number().int().nonnegative(),
  received: z.number().int().nonnegative(),
  ratePerSec: z.number().nonnegative(),
  overflow: z.number().int().nonnegative(),
  retained: RetainedSeedState,
  retainedSeeded: z.number().int().nonnegative(),
  state: z.enum(['running', 'stopped']),
  /** Why the tree stopped when it was not asked to (broker gone, realm removed…). */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type TopicTreeUpdate = z.infer<typeof TopicTreeUpdateSchema>;

/** One message of a topic's history; `payload` cut as `truncated` says, `size` the whole. */
export const TopicHistoryEntrySchema = z.object({
  at: z.number(),
  from: z.string(),
  payload: z.string(),
  truncated: z.boolean(),
  size: z.number().int().nonnegative(),
  /** The envelope's `enc` (`base64`: bytes), absent for plain payloads. */
  enc: z.string().max(32).optional(),
  /** The entry came from the retained seed, not from live traffic. */
  retained: z.boolean(),
});
export type TopicHistoryEntry = z.infer<typeof TopicHistoryEntrySchema>;

/** A numeric field of the topic's payloads (`value` for a bare number, `a.b` one level deep). */
export const TopicSeriesSchema = z.object({
  field: z.string(),
  points: z.array(z.object({ t: z.number(), v: z.number() })),
});
export type TopicSeries = z.infer<typeof TopicSeriesSchema>;

export const TopicDetailSchema = z.object({
  treeId: z.string(),
  node: TopicNodeSchema,
  /** Newest first, at most `TOPIC_HISTORY_SIZE`. */
  history: z.array(TopicHistoryEntrySchema),
  /** At most `TOPIC_SERIES_MAX_FIELDS`, each at most `TOPIC_SERIES_POINTS` points, oldest first. */
  series: z.array(TopicSeriesSchema),
});
export type TopicDetail = z.infer<typeof TopicDetailSchema>;

export const TopicsMethods = {
  /**
   * Starts a tree of `realm`: a consumer socket with the connection's credentials (as the tap,
   * realm-access.ts) subscribed to `#` in topic mode, and a retained seed (`list_retained`,
   * paged). Updates arrive on `topicTreeUpdate`. Errors: `SWB_ERR_NOT_FOUND`,
   * `SWB_ERR_BROKER_NOT_RUNNING`, `SWB_ERR_BROKER_UNREACHABLE`, `SWB_ERR_UNAUTHORIZED`,
   * `SWB_ERR_RATE_LIMITED` (more than `MAX_TOPIC_TREES`).
   */
  topicTreeStart: {
    input: z.object({ connectionId: ConnectionId, realm: RealmName }).strict(),
    output: z.object({ treeId: z.string(), realm: z.string() }),
  },
  /** Stops a tree (its socket leaves the broker). Unknown ids: `stopped: false`. */
  topicTreeStop: {
    input: z.object({ connectionId: ConnectionId, treeId: TreeId }).strict(),
    output: z.object({ stopped: z.boolean() }),
  },
  /** One topic's detail. Errors: `SWB_ERR_NOT_FOUND` (unknown tree or topic). */
  topicTreeNode: {
    input: z
      .object({ connectionId: ConnectionId, treeId: TreeId, topic: z.string().min(1).max(65_535) })
      .strict(),
    output: TopicDetailSchema,
  },
} as const;

export const TopicsEvents = {
  /** Changed topics of one tree (see `TopicTreeUpdateSchema`). */
  topicTreeUpdate: TopicTreeUpdateSchema,
} as const;
