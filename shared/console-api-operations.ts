/**
 * ConsoleApi entries of the operations views (issue 13): metric history for the Overview charts,
 * the dead-letter queue (list, replay, discard) and the clients listing. Spread into
 * `ConsoleMethods` / `ConsoleEvents` by `console-api.ts`.
 *
 * Sources: `spec/protocol-admin.md` §8.2 (`dlq_list`, `dlq_replay`, `dlq_discard` with
 * Switchboard's paging and `ids` extensions, docs/management.md), §10.4 (metrics),
 * docs/http-api.md (`GET /api/clients`). Times are epoch ms; rates are per second.
 */
import { z } from 'zod';
import { ClientDetailSchema } from './client-detail';
import {
  ClientConsumerSchema,
  ClientMqttSchema,
  ClientProducerSchema,
  ClientSseSchema,
} from './http-api';

const ConnectionId = z.string().min(1).max(128);
const Realm = z.string().min(1).max(256);
const MessageId = z.string().min(1).max(256);

/** Most ids one `replayDeadLetters` / `discardDeadLetters` call takes (the UI sends batches). */
export const MAX_DEAD_LETTER_BATCH = 500;
/** Largest page of `listDeadLetters`. */
export const MAX_DEAD_LETTER_PAGE = 5_000;
/** Longest payload text handed to the UI per entry, in characters (longer ones are cut). */
export const MAX_DEAD_LETTER_PAYLOAD_CHARS = 64 * 1024;

/** Chart ranges: the last 5 minutes, the last hour, everything since the console started. */
export const MetricRange = z.enum(['5m', '1h', 'all']);
export type MetricRange = z.infer<typeof MetricRange>;

/** Per-second rates of the broker's message counters over one sample period. */
export const MetricRatesSchema = z.object({
  produced: z.number().nonnegative(),
  delivered: z.number().nonnegative(),
  queued: z.number().nonnegative(),
  deadLettered: z.number().nonnegative(),
  ackTimeouts: z.number().nonnegative(),
  rateLimited: z.number().nonnegative(),
});
export type MetricRates = z.infer<typeof MetricRatesSchema>;

/** One realm's rates (rate limiting has no realm label) and depths. */
export const RealmMetricsSchema = z.object({
  rates: MetricRatesSchema.omit({ rateLimited: true }).nullable(),
  queueDepth: z.number().nonnegative(),
  dlqDepth: z.number().nonnegative(),
});
export type RealmMetrics = z.infer<typeof RealmMetricsSchema>;

/**
 * One point of a connection's metric history: a sample, or (for long ranges) the average of
 * consecutive samples over `spanMs`. `up` is false when the broker could not be read; rates are
 * then null, as they are for the first sample after an outage or a broker restart. `totals` are
 * the broker's counters since it (last) started.
 */
export const MetricPointSchema = z.object({
  /** End of the point's period, epoch ms (display only). */
  t: z.number(),
  /** The poller's sample number of the newest sample in this point. */
  seq: z.number().int().nonnegative(),
  /** Width of the period this point covers, ms (the scrape period for raw samples). */
  spanMs: z.number().nonnegative(),
  up: z.boolean(),
  rates: MetricRatesSchema.nullable(),
  totals: MetricRatesSchema.nullable(),
  connections: z.number().nonnegative().nullable(),
  queueDepth: z.number().nonnegative().nullable(),
  dlqDepth: z.number().nonnegative().nullable(),
  realms: z.record(z.string(), RealmMetricsSchema),
});
export type MetricPoint = z.infer<typeof MetricPointSchema>;

export const MetricHistorySchema = z.object({
  connectionId: z.string(),
  range: MetricRange,
  /** Oldest first. */
  points: z.array(MetricPointSchema),
});
export type MetricHistory = z.infer<typeof MetricHistorySchema>;

export const MetricPointEventSchema = z.object({
  connectionId: z.string(),
  point: MetricPointSchema,
});
export type MetricPointEvent = z.infer<typeof MetricPointEventSchema>;

/**
 * A dead-lettered copy as the console shows it. `origin` is where it came from (the producer,
 * its event, the subscription key); `replayCount` > 0 means it was replayed before and
 * dead-lettered again. `payload` is the message as JSON text, cut to
 * `MAX_DEAD_LETTER_PAYLOAD_CHARS` (then `payloadTruncated`); null when the broker omitted it.
 */
export const DeadLetterSchema = z.object({
  id: z.string(),
  realm: z.string(),
  consumer: z.string(),
  reason: z.string(),
  origin: z.object({ producer: z.string(), event: z.string(), key: z.string() }),
  replayCount: z.number().int().nonnegative(),
  firstDeadLetteredAt: z.number().nullable(),
  deadLetteredAt: z.number().nullable(),
  createdAt: z.number().nullable(),
  expiresAt: z.number().nullable(),
  payload: z.string().nullable(),
  payloadTruncated: z.boolean(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;

export const DeadLetterPageSchema = z.object({
  connectionId: z.string(),
  realm: z.string().nullable(),
  entries: z.array(DeadLetterSchema),
  /** Entries in the DLQ (of the realm) when the page was read. */
  total: z.number().int().nonnegative(),
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: z.string().nullable(),
});
export type DeadLetterPage = z.infer<typeof DeadLetterPageSchema>;

const DeadLetterBatchInput = z
  .object({
    connectionId: ConnectionId,
    realm: Realm.optional(),
    ids: z.array(MessageId).min(1).max(MAX_DEAD_LETTER_BATCH),
  })
  .strict();

/** Outcome of a batch: ids done, and ids no longer in the DLQ (replayed or discarded elsewhere). */
export const DeadLetterBatchResultSchema = z.object({
  connectionId: z.string(),
  done: z.array(z.string()),
  notFound: z.array(z.string()),
});
export type DeadLetterBatchResult = z.infer<typeof DeadLetterBatchResultSchema>;

/**
 * What this console itself holds on a broker, so the Clients view can label it instead of
 * counting it as the operator's clients: its management connection (signed commands; counted in
 * the broker's connections, but no producer or consumer), the consumers of its running live taps,
 * and the producer names its test publisher used (offline once the message is sent).
 */
export const ConsoleFootprintSchema = z.object({
  management: z.boolean(),
  taps: z.array(z.object({ realm: z.string(), consumer: z.string() })),
  publishers: z.array(z.object({ realm: z.string(), name: z.string() })),
});
export type ConsoleFootprint = z.infer<typeof ConsoleFootprintSchema>;

/**
 * Messages per second from and to one connection of the listing (socket.io: its `socket_id`,
 * shared by the producer and consumer it binds; MQTT: its `client_id`), computed by the host
 * from successive listings over at least 1 s (issue 27).
 */
export const ClientRateSchema = z.object({
  realm: z.string(),
  protocol: z.enum(['socket.io', 'mqtt']),
  clientId: z.string(),
  inPerSecond: z.number().nonnegative(),
  outPerSecond: z.number().nonnegative(),
});
export type ClientRate = z.infer<typeof ClientRateSchema>;

/** Registrations of a connection's broker per realm (`GET /api/clients`). */
export const ClientListSchema = z.object({
  connectionId: z.string(),
  realms: z.array(
    z.object({
      name: z.string(),
      producers: z.array(ClientProducerSchema),
      consumers: z.array(ClientConsumerSchema),
      /** Connected MQTT clients (absent when none, or from a broker without MQTT listing). */
      mqtt: z.array(ClientMqttSchema).optional(),
      /** SSE streams open on the broker (absent when none, or from an older broker). */
      sse: z.array(ClientSseSchema).optional(),
    }),
  ),
  /** When the broker answered, epoch ms. */
  fetchedAt: z.number(),
  /** This console's own connections and registrations on the broker (absent: not known). */
  console: ConsoleFootprintSchema.optional(),
  /** Rates of the connections read before (none on a first listing, or from a broker without
   * per-connection counters); absent from an older console host. */
  rates: z.array(ClientRateSchema).optional(),
});
export type ClientList = z.infer<typeof ClientListSchema>;

/** Which connection of a broker's realm (`client_detail` / `close_client`, issue 27). */
const ClientInput = z
  .object({
    connectionId: ConnectionId,
    realm: Realm,
    /** socket.io connection id (`socket_id` of the listing) or MQTT client id. */
    clientId: z.string().min(1).max(1_024),
  })
  .strict();

/**
 * One client's detail and history. `available: false` (with `detail` null): the broker does not
 * offer `client_detail` (a plain tyo-mq broker, an older Switchboard); `message` says so.
 */
export const ClientDetailResultSchema = z.object({
  connectionId: z.string(),
  available: z.boolean(),
  detail: ClientDetailSchema.nullable(),
  message: z.string().optional(),
});
export type ClientDetailResult = z.infer<typeof ClientDetailResultSchema>;

/** What `closeClient` did; `available: false` as in `ClientDetailResult`. */
export const CloseClientResultSchema = z.object({
  connectionId: z.string(),
  available: z.boolean(),
  message: z.string(),
});
export type CloseClientResult = z.infer<typeof CloseClientResultSchema>;

export const OperationsMethods = {
  /**
   * The metric history of a connection for `range`, oldest first: raw 1 s samples for `5m`
   * and `1h`, averaged points (bounded count) for `all`. Then follow `metricsPoint`.
   * Errors: `SWB_ERR_NOT_FOUND` (unknown connection).
   */
  getMetricsHistory: {
    input: z.object({ connectionId: ConnectionId, range: MetricRange }).strict(),
    output: MetricHistorySchema,
  },
  /**
   * One page of dead letters, oldest first (signed `dlq_list` with `limit`/`cursor`), of one
   * realm or all. `limit` defaults to 1000. Errors: `SWB_ERR_NOT_FOUND`,
   * `SWB_ERR_BROKER_UNREACHABLE`, `SWB_ERR_UNAUTHORIZED`, `SWB_ERR_VALIDATION` (stale cursor:
   * list again from the start).
   */
  listDeadLetters: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: Realm.optional(),
        cursor: MessageId.nullable().optional(),
        limit: z.number().int().min(1).max(MAX_DEAD_LETTER_PAGE).optional(),
      })
      .strict(),
    output: DeadLetterPageSchema,
  },
  /**
   * Replays up to `MAX_DEAD_LETTER_BATCH` entries to their original consumer (signed
   * `dlq_replay` with `ids`); each entry moves in its own store transaction, so an interrupted
   * batch leaves every entry in exactly one place. Errors as `listDeadLetters`.
   */
  replayDeadLetters: { input: DeadLetterBatchInput, output: DeadLetterBatchResultSchema },
  /** Deletes up to `MAX_DEAD_LETTER_BATCH` entries (signed `dlq_discard` with `ids`). */
  discardDeadLetters: { input: DeadLetterBatchInput, output: DeadLetterBatchResultSchema },
  /**
   * Registered producers and consumers per realm with their subscriptions and durable backlog
   * (`GET /api/clients` with the admin bearer), and each connection's messages in / out per
   * second since the host's earlier listing at least 1 s before (`rates`). Errors: `SWB_ERR_NOT_FOUND`,
   * `SWB_ERR_BROKER_UNREACHABLE` / `SWB_ERR_BROKER_NOT_RUNNING`, `SWB_ERR_UNAUTHORIZED`.
   */
  listClients: {
    input: z.object({ connectionId: ConnectionId }).strict(),
    output: ClientListSchema,
  },
  /**
   * One connection's detail and event history (signed `client_detail`, issue 27), live or
   * recently closed. Errors: `SWB_ERR_NOT_FOUND` (unknown connection, or the broker knows no
   * such client), `SWB_ERR_BROKER_UNREACHABLE`, `SWB_ERR_UNAUTHORIZED`.
   */
  getClientDetail: { input: ClientInput, output: ClientDetailResultSchema },
  /**
   * Closes that one connection (signed `close_client`; MQTT 5 gets DISCONNECT 0x98). Needs a
   * confirmation (console-api-confirm.ts). Errors as `getClientDetail`, plus
   * `SWB_ERR_CONFLICT`-style refusals passed through (not connected any more).
   */
  closeClient: {
    input: ClientInput.extend({
      /** MQTT clients: refuse the client id's reconnects this long (`close_client` `block_seconds`). */
      blockSeconds: z.number().int().min(1).max(86_400).optional(),
    }).strict(),
    output: CloseClientResultSchema,
  },
} as const;

export const OperationsEvents = {
  /** A new point of a connection's metric history (one per scrape, ≥ 1/s). */
  metricsPoint: MetricPointEventSchema,
} as const;
