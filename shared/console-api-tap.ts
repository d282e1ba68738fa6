/**
 * ConsoleApi contract of the live tap and the test publisher (issue 13, our addition): watch the
 * messages of a realm arrive (topic pattern, or one producer's event) and publish a test message.
 *
 * Spread into `ConsoleMethods` / `ConsoleEvents` by `console-api.ts`. Source: ARCHITECTURE §1,
 * `spec/protocol-core.md` §3.3 (SUBSCRIBE, topic mode), §3.5 (PRODUCE), §8 (envelope), §11.
 */
import { z } from 'zod';

const ConnectionId = z.string().min(1).max(128);
const RealmName = z.string().min(1).max(256);
const EventName = z.string().min(1).max(1_024);

/**
 * Largest JSON text accepted for a published message, in characters: the largest message a
 * client sends as one `PRODUCE` (`Protocol.CHUNK_SIZE`; longer ones go as `PRODUCE_CHUNK`
 * frames, docs/protocol.md, which the test publisher does not send). Trial finding 20.
 */
export const MAX_PUBLISH_JSON_CHARS = 262_144;
/** The web host's body limit of `publishMessage`, in bytes (up to 3 UTF-8 bytes a character). */
export const PUBLISH_MAX_BODY_BYTES = 3 * MAX_PUBLISH_JSON_CHARS + 64 * 1024;
/** Characters of each tapped payload sent to the page; the rest is cut (`truncated: true`). */
export const TAP_PREVIEW_CHARS = 2_048;
/** Default and bounds of the tap's sampling rate (messages per second passed to the page). */
export const TAP_DEFAULT_MAX_RATE = 200;
export const TAP_MAX_RATE_LIMIT = 2_000;

/**
 * What the tap subscribes to: a topic pattern (`mode: "topic"`, any producer, §11 wildcards
 * `+`/`#`), or one event of one producer (`TYO-MQ-ALL` = any producer; event `TM-ALL` = every
 * event of that producer, Note 2.3-A).
 */
export const TapTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('topic'), pattern: EventName }).strict(),
  z
    .object({ kind: z.literal('event'), producer: z.string().min(1).max(256), event: EventName })
    .strict(),
]);
export type TapTarget = z.infer<typeof TapTargetSchema>;

export const TapInfoSchema = z.object({
  tapId: z.string(),
  connectionId: z.string(),
  realm: z.string(),
  /** The subscription key the broker delivers on (`CONSUME-<key>`). */
  subscriptionKey: z.string(),
  maxRatePerSec: z.number().int().positive(),
  /** How the tap got into the realm: `open` realm, `admin` token (realm `*`), a `temporary`
   * token approved by the console and revoked on stop, or `auth-off`. */
  access: z.enum(['open', 'admin', 'temporary', 'auth-off']),
});
export type TapInfo = z.infer<typeof TapInfoSchema>;

/** One tapped message. `at` is epoch ms (arrival at the console host). */
export const TapMessageSchema = z.object({
  seq: z.number().int().nonnegative(),
  at: z.number(),
  event: z.string(),
  from: z.string(),
  /** The payload as JSON text, cut to `TAP_PREVIEW_CHARS`. */
  payload: z.string(),
  truncated: z.boolean(),
  /**
   * Length of the whole payload's JSON text, in UTF-16 code units (what the broker measures to
   * chunk a delivery, §14.2). Large messages arrive as `CONSUME_CHUNK` frames; the tap joins
   * them and shows the start with this size.
   */
  size: z.number().int().nonnegative(),
  /** Present on ACK deliveries (the tap never ACKs; it subscribes without ACK). */
  msgId: z.string().nullable(),
  /**
   * The envelope's `enc` (`"base64"`: the payload is bytes written as base64, e.g. a binary MQTT
   * publish, docs/mqtt.md "Payload mapping"); absent for plain payloads.
   */
  enc: z.string().max(32).optional(),
});
export type TapMessage = z.infer<typeof TapMessageSchema>;

/**
 * A batch of one tap, pushed at most every 100 ms while messages arrive (and once when the tap
 * stops). Counters are totals since `tapStart`: `received` messages reached the console host,
 * `sampledOut` of them were not passed on because the rate was above `maxRatePerSec`.
 */
export const TapBatchSchema = z.object({
  tapId: z.string(),
  connectionId: z.string(),
  messages: z.array(TapMessageSchema),
  received: z.number().int().nonnegative(),
  sampledOut: z.number().int().nonnegative(),
  /** Messages per second reaching the host over the last second. */
  ratePerSec: z.number().nonnegative(),
  state: z.enum(['running', 'stopped']),
  /** Why the tap stopped, when it was not asked to (broker gone, realm removed…). */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type TapBatch = z.infer<typeof TapBatchSchema>;

/**
 * Who a test message could reach, read from the broker right after the publish (trial finding
 * 23). `subscribers`: online clients of the realm subscribed to the event or topic (socket.io
 * and MQTT, the console's own taps not counted); null when the broker does not list its
 * clients to this connection. `realmConfigured`: whether the broker's settings name the realm
 * (a realm only a token names has no settings); null when unknown.
 */
export const PublishReachShape = {
  subscribers: z.number().int().nonnegative().nullable(),
  realmConfigured: z.boolean().nullable(),
};

export const PublishResultSchema = z.object({
  realm: z.string(),
  event: z.string(),
  /** Durable copies the broker committed (publisher confirm); 0 when none was stored. */
  storedCopies: z.number().int().nonnegative(),
  at: z.number(),
  ...PublishReachShape,
});
export type PublishResult = z.infer<typeof PublishResultSchema>;

export const TapMethods = {
  /**
   * Starts a tap: a consumer socket in `realm` with the connection's credentials, subscribed to
   * `target` without ACK and not durable. Batches arrive on the `tapBatch` stream. Errors:
   * `SWB_ERR_NOT_FOUND`, `SWB_ERR_BROKER_NOT_RUNNING`, `SWB_ERR_BROKER_UNREACHABLE`,
   * `SWB_ERR_UNAUTHORIZED` (the realm refused the console), `SWB_ERR_RATE_LIMITED` (too many taps).
   */
  tapStart: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: RealmName,
        target: TapTargetSchema,
        maxRatePerSec: z.number().int().min(1).max(TAP_MAX_RATE_LIMIT).optional(),
      })
      .strict(),
    output: TapInfoSchema,
  },
  /** Stops a tap (closes its socket, revokes a temporary token). Unknown ids: `stopped: false`. */
  tapStop: {
    input: z.object({ connectionId: ConnectionId, tapId: z.string().min(1).max(128) }).strict(),
    output: z.object({ stopped: z.boolean() }),
  },
  /**
   * Publishes one message with `PRODUCE` (§3.5) from a producer socket in `realm`, waiting for
   * the publisher confirm. `messageJson` must be JSON text (`SWB_ERR_VALIDATION` otherwise).
   * `ttlSeconds` sets the store TTL of durable copies; `guaranteed` stores it for offline
   * subscribers (§9.2). Other errors as `tapStart`.
   */
  publishMessage: {
    input: z
      .object({
        connectionId: ConnectionId,
        realm: RealmName,
        event: EventName,
        from: z.string().min(1).max(256).optional(),
        messageJson: z.string().max(MAX_PUBLISH_JSON_CHARS),
        guaranteed: z.boolean().optional(),
        ttlSeconds: z.number().int().min(0).max(31_536_000).optional(),
      })
      .strict(),
    output: PublishResultSchema,
  },
} as const;

export const TapEvents = {
  /** Messages of one tap (see `TapBatchSchema`). */
  tapBatch: TapBatchSchema,
} as const;
