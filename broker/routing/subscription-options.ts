/**
 * Normalises a `SUBSCRIBE` payload into a subscription record.
 *
 * Source: `spec/protocol-core.md` §3.3 (fields; options may also sit in a nested `options`
 * object, the top level wins), §6.2 (aliases and defaults, Note 6.2-A: `consumer_id` falls
 * back to the registered consumer id, then the name), §2.2 / Note 2.3-A (`scope:"all"` or
 * `event:"TM-ALL"` keys the subscription as `lc(P)-TM-ALL`) and §10.3 (retry policy).
 */
import { parseDurationMs } from '../../shared/duration';
import { Protocol, allEventsKey, subscriptionKey } from '../../shared/protocol-events';
import type { SubscribePayload } from '../../shared/protocol-payloads';
import type { RetryPolicy, SubscriptionRecord } from './registry-types';

/** Default ACK timeout (§6.2, §18): 30 s. */
export const DEFAULT_ACK_TIMEOUT_MS = 30_000;
/** Default retry delay (§10.3): 5 s. */
export const DEFAULT_RETRY_DELAY_MS = 5_000;
/** Default number of delivery attempts (§10.3). */
export const DEFAULT_MAX_ATTEMPTS = 3;

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
 * Builds the record of one `SUBSCRIBE`. `registeredId` is the consumer's id from `CONSUMER`
 * (if any); `defaultAckTimeout` is the broker option `ack_timeout`.
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
  const fallbackTimeout = parseDurationMs(defaultAckTimeout, DEFAULT_ACK_TIMEOUT_MS);
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
