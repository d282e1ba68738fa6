/**
 * Settings blocks of the limits area:
 * - `limits` (`spec/protocol-admin.md` §11.1, §11.3): present and not `enabled: false` ⇒
 *   enabled. Numeric values that are absent, 0, negative or non-numeric mean "unlimited", so the
 *   schema accepts any value for them and `LimitsService` interprets it (a typo never stops the
 *   broker). Unknown keys pass through (tyo-mq settings files, later keys).
 *   Switchboard extensions: `pre_auth_events` / `pre_auth_bytes` (budget of an unauthenticated
 *   socket; defaults below apply even without a `limits` block) and `max_queued_per_consumer`
 *   (durable depth per consumer, read by the delivery area).
 * - `back_pressure` (Switchboard extension, on by default): bytes queued to one socket and how
 *   long a socket may stay over that cap before it is disconnected.
 */
import { z } from 'zod';
import { proxyEntries, proxyEntryError } from './client-address';

/** A §11 numeric limit: anything goes; absent/0/negative/non-numeric ⇒ unlimited. */
const LimitValue = z.unknown().optional();

/**
 * `trust_proxy`: which TCP peers may report the client address in `X-Forwarded-For`
 * (`client-address.ts`). `true` ⇒ loopback proxies only; a list (or a comma-separated string) of
 * addresses, CIDRs and `loopback`/`linklocal`/`uniquelocal`. Validated strictly: a typo would
 * otherwise trust nobody (or, worse, be read as `true`).
 */
const TrustProxy = z
  .union([z.boolean(), z.string(), z.array(z.string())])
  .superRefine((value, ctx) => {
    for (const entry of proxyEntries(value)) {
      const error = proxyEntryError(entry);
      if (error) ctx.addIssue({ code: z.ZodIssueCode.custom, message: error });
    }
  })
  .optional();

export const LimitsSchema = z
  .object({
    enabled: z.boolean().optional(),
    /** Proxies trusted to report the client IP in `X-Forwarded-For` (see `TrustProxy`). */
    trust_proxy: TrustProxy,
    trustProxy: TrustProxy,
    max_connections_per_ip: LimitValue,
    connections_per_minute_per_ip: LimitValue,
    /** Switchboard extension: concurrent `/` sockets per realm (checked on authentication). */
    max_connections_per_realm: LimitValue,
    messages_per_second: LimitValue,
    /** Default 3 × `messages_per_second`. */
    message_burst: LimitValue,
    bytes_per_second: LimitValue,
    /** Default 2 × `bytes_per_second`. */
    bytes_burst: LimitValue,
    max_registrations_per_socket: LimitValue,
    max_registrations_per_realm: LimitValue,
    max_subscriptions_per_socket: LimitValue,
    max_subscriptions_per_realm: LimitValue,
    max_queued_per_realm: LimitValue,
    max_queued_per_consumer: LimitValue,
    /**
     * ms; a durable subscription whose consumer has been offline this long is removed. A
     * Switchboard key, so no tyo-mq file carries it: validated strictly (a typo is refused with
     * its path instead of silently meaning "never").
     */
    expire_durable_after_ms: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    realms_per_hour_per_ip: LimitValue,
    /** Default bounds (`DEFAULT_BOUNDS` in limits-config.ts) apply without a block. */
    max_pending_authorization_requests: LimitValue,
    /** Switchboard: pending authorization requests per realm (default 500). */
    max_pending_authorization_requests_per_realm: LimitValue,
    /** Switchboard: pending authorization requests per client IP (default 100). */
    max_pending_authorization_requests_per_ip: LimitValue,
    /** Events an unauthenticated socket may send (default 64; 0/negative ⇒ unlimited). */
    pre_auth_events: LimitValue,
    /** Payload bytes an unauthenticated socket may send (default 1 MiB; 0/negative ⇒ unlimited). */
    pre_auth_bytes: LimitValue,
    /** `{<realm>: {<key>: value}}`: per-realm overrides, own properties only. */
    realms: z.unknown().optional(),
  })
  .passthrough();

export type LimitsBlock = z.infer<typeof LimitsSchema>;

/** Default per-socket cap of bytes queued for writing (8 MiB). */
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Default time without any drain after which a socket over the cap is slow (ms). */
export const DEFAULT_STALL_AFTER_MS = 1_000;
/** Default time a socket may stay over the cap before it is disconnected (ms). */
export const DEFAULT_OVER_CAP_DISCONNECT_MS = 30_000;

export const BackPressureSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Bytes queued to one socket (engine.io write buffer + WebSocket buffer) before plain
     * copies to it are dropped. */
    max_buffered_bytes: z.number().int().positive().default(DEFAULT_MAX_BUFFERED_BYTES),
    /** A socket over the cap that drained nothing for this long (ms) is slow: plain copies to it
     * are dropped. One that drains may go `max_http_buffer_size` past the cap. */
    stall_after_ms: z.number().int().positive().default(DEFAULT_STALL_AFTER_MS),
    /** A socket over the cap for longer than this (ms) is disconnected. */
    disconnect_after_ms: z.number().int().positive().default(DEFAULT_OVER_CAP_DISCONNECT_MS),
  })
  .strict();

export type BackPressureSettings = z.infer<typeof BackPressureSchema>;
