/**
 * Normalises a `SUBSCRIBE` payload into a subscription record.
 *
 * Source: `spec/protocol-core.md` §3.3 (fields; options may also sit in a nested `options`
 * object, the top level wins), §6.2 (aliases and defaults, Note 6.2-A: `consumer_id` falls
 * back to the registered consumer id, then the name), §2.2 / Note 2.3-A (`scope:"all"` or
 * `event:"TM-ALL"` keys the subscription as `lc(P)-TM-ALL`) and §10.3 (retry policy).
 */
import { z } from 'zod';
import { MAX_TIMER_DELAY_MS, parseDurationMs } from '../../shared/duration';
import { Protocol, allEventsKey, subscriptionKey } from '../../shared/protocol-events';
import type { SubscribePayload } from '../../shared/protocol-payloads';
import type { RetryPolicy, SubscriptionRecord } from './registry-types';

/** Default ACK timeout (§6.2, §18): 30 s. */
export const DEFAULT_ACK_TIMEOUT_MS = 30_000;
/** Default retry delay (§10.3): 5 s. */
export const DEFAULT_RETRY_DELAY_MS = 5_000;
/** Default number of delivery attempts (§10.3). */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Most delivery attempts a subscription may ask for (larger values are refused). */
export const MAX_ATTEMPTS_LIMIT = 1_000_000;

/**
 * The one schema of a subscription record: checked on every `SUBSCRIBE` (a failure is refused
 * with `ERROR` code -1) and on every persisted record loaded at start-up, so whatever a
 * `SUBSCRIBE` accepted is restored after a restart. Durations reach timers, so they are
 * bounded by `MAX_TIMER_DELAY_MS` (issue 8 item 5).
 */
export const SubscriptionRecordSchema = z.object({
  key: z.string(),
  consumer: z.string(),
  producer: z.string(),
  pattern: z.string().nullable(),
  consumerId: z.string(),
  durable: z.boolean(),
  ackRequired: z.boolean(),
  ackTimeoutMs: z.number().positive().max(MAX_TIMER_DELAY_MS),
  retry: z.object({
    maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT),
    delayMs: z.number().positive().max(MAX_TIMER_DELAY_MS),
    backoff: z.enum(['fixed', 'exponential']),
  }),
  group: z.string().nullable(),
  mode: z.literal('topic').nullable(),
});

/** Client-facing names of the record's bounded fields, for refusal messages. */
const FIELD_NAMES: Record<string, string> = {
  ackTimeoutMs: 'ack_timeout',
  'retry.maxAttempts': 'retry.max_attempts',
  'retry.delayMs': 'retry.delay',
};

/**
 * Checks a record built from a `SUBSCRIBE`; returns null, or why it is refused (naming the
 * client's field and the accepted range).
 */
export function subscriptionProblem(record: SubscriptionRecord): string | null {
  const parsed = SubscriptionRecordSchema.safeParse(record);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.join('.');
  const field = FIELD_NAMES[path] ?? path;
  const range =
    path === 'retry.maxAttempts'
      ? `an integer from 1 to ${MAX_ATTEMPTS_LIMIT}`
      : `a duration above 0 and at most ${MAX_TIMER_DELAY_MS} ms`;
  return `Invalid SUBSCRIBE: ${field} must be ${range}`;
}

type Options = Record<string, unknown>;

/** `retry {max_attempts|maxAttempts, delay, backoff}` → policy; falsy values mean defaults. */
export function normalizeRetry(retry: unknown): RetryPolicy {
  const r = (typeof retry === 'object' && retry !== null ? retry : {}) as Options;
  const attempts = Number(r.max_attempts || r.maxAttempts || DEFAULT_MAX_ATTEMPTS);
  const delay = r.delay ? parseDurationMs(r.delay, DEFAULT_RETRY_DELAY_MS) : DEFAULT_RETRY_DELAY_MS;
  return {
    maxAttempts: Math.max(1, Number.isFinite(attempts) ? Math.floor(attempts) : 3),
    delayMs: delay > 0 ? delay : DEFAULT_RETRY_DELAY_MS,
    backoff: r.backoff === 'exponential' ? 'exponential' : 'fixed',
  };
}

/** Merged view of the top-level fields and the nested `options` object (top level wins). */
function merged(payload: SubscribePayload): Options {
  const nested = (payload.options ?? {}) as Options;
  const out: Options = { ...nested };
  for (const [k, v] of Object.entries(payload)) if (v !== undefined && k !== 'options') out[k] = v;
  return out;
}

/**
 * Builds the record of one `SUBSCRIBE`. `registeredId` is the id the consumer registered
 * with (`CONSUMER`/`SUBSCRIBE` `id`), never a socket id: without one the durable identity
 * falls back to the consumer name (Note 6.2-A). `defaultAckTimeout` is the broker option
 * `ack_timeout`. Check the result with `subscriptionProblem`.
 */
export function buildSubscription(
  payload: SubscribePayload,
  event: string,
  registeredId: string | undefined,
  defaultAckTimeout: unknown,
): SubscriptionRecord {
  const o = merged(payload);
  const producer = (o.producer as string | null | undefined) ?? Protocol.ANONYMOUS;
  const consumer = (o.consumer as string | null | undefined) ?? Protocol.ANONYMOUS;
  const allEvents = o.scope === Protocol.SCOPE_ALL || event.toUpperCase() === Protocol.EVENT_ALL;
  const mode = o.mode === 'topic' && !allEvents ? 'topic' : null;
  const key = allEvents ? allEventsKey(producer) : subscriptionKey(producer, event);
  // The broker's own default is clamped rather than refused: it is not the client's input.
  const fallbackTimeout = Math.min(
    parseDurationMs(defaultAckTimeout, DEFAULT_ACK_TIMEOUT_MS),
    MAX_TIMER_DELAY_MS,
  );
  const ackTimeout = o.ack_timeout ?? o.ackTimeout;
  return {
    key,
    consumer,
    producer,
    pattern: mode === 'topic' ? event.toLowerCase() : null,
    consumerId:
      (o.consumer_id as string | null | undefined) ??
      (o.consumerId as string | null | undefined) ??
      registeredId ??
      consumer,
    durable: Boolean(o.durable),
    ackRequired: Boolean(o.ack || o.require_ack || o.requireAck || o.manual_ack || o.manualAck),
    ackTimeoutMs:
      ackTimeout === undefined || ackTimeout === null
        ? fallbackTimeout
        : parseDurationMs(ackTimeout, DEFAULT_ACK_TIMEOUT_MS),
    retry: normalizeRetry(o.retry),
    group: typeof o.group === 'string' && o.group.length > 0 ? o.group : null,
    mode,
    announced: false,
  };
}
