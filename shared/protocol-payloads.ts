/**
 * zod schemas of the inbound tyo-mq payloads, with the aliases the reference accepts.
 *
 * Source: `spec/protocol-core.md` §3 (payload tables), §6.2 (option aliases) and §19
 * (what must be validated). Schemas are permissive about unknown fields (clients send
 * extras such as `id`, `scope`, `app_id`) but strict about the types of known ones.
 */
import { z } from 'zod';

/** Longest accepted name (producer, consumer, id, group), in UTF-16 code units. */
export const MAX_NAME_LENGTH = 1024;
/** Longest accepted event name or topic pattern, in UTF-16 code units. */
export const MAX_EVENT_LENGTH = 4096;

const name = z.string().max(MAX_NAME_LENGTH);
const optName = name.optional().nullable();

/** `event` may be a string or an object carrying a string `.event` (§2.2, §19). */
export const EventField = z.union([
  z.string().min(1).max(MAX_EVENT_LENGTH),
  z
    .object({ event: z.string().min(1).max(MAX_EVENT_LENGTH) })
    .passthrough()
    .transform((o) => o.event),
]);

/** `CONSUMER` (§3.1). `consumer_id` is accepted and ignored here (it matters in `SUBSCRIBE`). */
export const ConsumerPayload = z.object({ name, id: optName, consumer_id: optName }).passthrough();
export type ConsumerPayload = z.infer<typeof ConsumerPayload>;

/** `PRODUCER` (§3.2). `default_ttl` is in seconds (a duration string is accepted too). */
export const ProducerPayload = z
  .object({
    name,
    id: optName,
    default_ttl: z
      .union([z.number(), z.string().max(64)])
      .optional()
      .nullable(),
  })
  .passthrough();
export type ProducerPayload = z.infer<typeof ProducerPayload>;

const Duration = z
  .union([z.number(), z.string().max(64)])
  .optional()
  .nullable();

/** Retry policy object of a subscription (§10.3); normalised when used. */
export const RetryOptions = z
  .object({
    max_attempts: z.number().optional().nullable(),
    maxAttempts: z.number().optional().nullable(),
    delay: Duration,
    backoff: z.string().max(64).optional().nullable(),
  })
  .passthrough();

/** Options that may appear at the top level of `SUBSCRIBE` or in its nested `options` (§3.3). */
const SubscribeOptionsShape = {
  consumer_id: optName,
  consumerId: optName,
  scope: z.string().max(64).optional().nullable(),
  durable: z.unknown().optional(),
  ack: z.unknown().optional(),
  require_ack: z.unknown().optional(),
  requireAck: z.unknown().optional(),
  manual_ack: z.unknown().optional(),
  manualAck: z.unknown().optional(),
  ack_timeout: Duration,
  ackTimeout: Duration,
  retry: RetryOptions.optional().nullable(),
  mode: z.unknown().optional(),
  group: optName,
};
export const SubscribeOptions = z.object(SubscribeOptionsShape).passthrough();

/** `SUBSCRIBE` (§3.3). A missing `event` is answered separately with the verbatim string error. */
export const SubscribePayload = z
  .object({
    event: EventField,
    producer: optName,
    consumer: optName,
    id: optName,
    options: SubscribeOptions.optional().nullable(),
    ...SubscribeOptionsShape,
  })
  .passthrough();
export type SubscribePayload = z.infer<typeof SubscribePayload>;

/** `UNSUBSCRIBE` (Note 3.4 fix): a subscription key, or `{event, producer?, consumer?}`. */
export const UnsubscribePayload = z.union([
  z
    .string()
    .min(1)
    .max(MAX_NAME_LENGTH + MAX_EVENT_LENGTH + 1),
  z.object({ event: EventField, producer: optName, consumer: optName }).passthrough(),
]);
export type UnsubscribePayload = z.infer<typeof UnsubscribePayload>;

/** `PRODUCE` (§3.5). `message` is any JSON value; everything else is typed. */
export const ProducePayload = z
  .object({
    event: EventField,
    message: z.unknown().optional(),
    from: optName,
    ttl: z
      .union([z.number(), z.string().max(64)])
      .optional()
      .nullable(),
    lifespan: z
      .union([z.number(), z.string().max(64)])
      .optional()
      .nullable(),
    guaranteed: z.unknown().optional(),
    guaranteed_delivery: z.unknown().optional(),
    guaranteedDelivery: z.unknown().optional(),
    durable: z.unknown().optional(),
    delivery: z.unknown().optional(),
    delivery_mode: z.unknown().optional(),
    method: z.unknown().optional(),
    broadcast: z.unknown().optional(),
    group: optName,
    enc: z.unknown().optional(),
    to: z.unknown().optional(),
    contentType: z.unknown().optional(),
    id: z.unknown().optional(),
  })
  .passthrough();
export type ProducePayload = z.infer<typeof ProducePayload>;

/** Largest `total` a chunked transfer may announce (Note 14-A): 4,096 × 256 K code units. */
export const MAX_CHUNKS_PER_TRANSFER = 4096;

/** `PRODUCE_CHUNK` (§14.1, hardened per Note 14-A). */
export const ProduceChunkPayload = z
  .object({
    transferId: z.string().min(1).max(128),
    index: z.number().int().nonnegative(),
    total: z.number().int().positive().max(MAX_CHUNKS_PER_TRANSFER),
    data: z.string(),
  })
  .passthrough()
  .refine((c) => c.index < c.total, { message: 'index must be below total', path: ['index'] });
export type ProduceChunkPayload = z.infer<typeof ProduceChunkPayload>;

/** `ACK` (§3.6): id under `msgId`, `msg_id` or `id`. */
export const AckPayload = z
  .object({
    msgId: z.string().max(256).optional().nullable(),
    msg_id: z.string().max(256).optional().nullable(),
    id: z.string().max(256).optional().nullable(),
  })
  .passthrough();
export type AckPayload = z.infer<typeof AckPayload>;

/** Longest `HELLO` `type` accepted (client kinds are short words). */
export const MAX_HELLO_TYPE_LENGTH = 64;

/**
 * `HELLO {name, type}` (§3): logged only, so its logged fields are capped (a 10 MiB `name` used
 * to be written to the log as is). No payload at all is accepted as an empty greeting; extra
 * fields are accepted and never logged.
 */
export const HelloPayload = z.union([
  z.null(),
  z.undefined(),
  z
    .object({
      name: optName,
      type: z.string().max(MAX_HELLO_TYPE_LENGTH).optional().nullable(),
    })
    .passthrough(),
]);
export type HelloPayload = z.infer<typeof HelloPayload>;

/** `PING` takes any object (§3.7); a non-object is echoed as `{}` plus pong fields. */
export const PingPayload = z.record(z.string(), z.unknown());
