/**
 * The `http_publish` settings block (`spec/protocol-extensions.md` §5.1, §9, Notes 5-C, 5-K):
 * HTTP publish and SSE subscribe, off by default.
 *
 * Shape: `{enabled?: boolean, sse_max_per_realm?: int (50), sse_max_per_ip?: int (10),
 * sse_keepalive_ms?: int ms (25,000), ticket_ttl_ms?: int ms (60,000),
 * history?: "always" | "subscribed" ("always")}`. Unknown keys are rejected (strict), like
 * every other block. `TYO_MQ_HTTP_PUBLISH_ENABLED=1|true` also turns the feature on (§5.1).
 */
import { z } from 'zod';

/** §1.7 constants; the defaults of the Switchboard extension keys (Note 5-K). */
export const HTTP_PUBLISH_MAX_BODY = 65_536;
export const SSE_MAX_PER_REALM = 50;
export const SSE_MAX_PER_IP = 10;
export const SSE_KEEPALIVE_MS = 25_000;
export const SSE_TICKET_TTL_MS = 60_000;
export const SSE_MAX_PENDING_BYTES = 1_048_576;
export const SSE_REPLAY_MAX_MESSAGES = 1_000;
export const SSE_REPLAY_MAX_BYTES = 4_194_304;
/** Outstanding tickets per token hash (Note 5-J). */
export const SSE_MAX_TICKETS_PER_TOKEN = 10;

const positiveInt = z.number().int().positive();

export const HttpPublishSchema = z
  .object({
    enabled: z.boolean().optional(),
    sse_max_per_realm: positiveInt.default(SSE_MAX_PER_REALM),
    sse_max_per_ip: positiveInt.default(SSE_MAX_PER_IP),
    sse_keepalive_ms: positiveInt.default(SSE_KEEPALIVE_MS),
    ticket_ttl_ms: positiveInt.default(SSE_TICKET_TTL_MS),
    history: z.enum(['always', 'subscribed']).default('always'),
  })
  .strict();

export type HttpPublishSettings = z.infer<typeof HttpPublishSchema>;

/** The block's values when the settings have none. */
export const HTTP_PUBLISH_DEFAULTS: HttpPublishSettings = HttpPublishSchema.parse({});

/**
 * Whether the feature is on (§5.1), evaluated per request so it hot-reloads: the block's
 * `enabled` when true, else the env var `TYO_MQ_HTTP_PUBLISH_ENABLED` being `"1"` or `"true"`.
 */
export function httpPublishEnabled(
  block: HttpPublishSettings | undefined,
  env: NodeJS.ProcessEnv,
): boolean {
  if (block?.enabled) return true;
  const flag = env.TYO_MQ_HTTP_PUBLISH_ENABLED;
  return flag === '1' || flag === 'true';
}
