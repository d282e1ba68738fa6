/**
 * Where a Redis connection goes — one URL, or a Redis Sentinel set that names the current
 * master — and the ioredis constructor options for it. Used by the cluster links
 * (`broker/cluster/redis-links.ts`) and the Redis message store (`redis-store.ts`), so both
 * follow a Sentinel failover the same way. See docs/cluster.md "Redis high availability
 * (Sentinel)".
 *
 * The `sentinel` settings block (of `cluster` and of `storage_options`), validated by
 * {@link SentinelSettingsSchema}:
 *
 * `{sentinels: [{host, port (26379)} | "host:port" | "host"] (1–32 entries, required),
 *   name (the master group name of `sentinel monitor <name> …`, required),
 *   username?, password? (the master's and replicas' ACL user / password; default: those of
 *   the block's Redis URL), sentinel_username?, sentinel_password? (the sentinels' own, when
 *   they have `requirepass`; default none), tls (false; default true when the URL is
 *   `rediss://`: TLS to the master), sentinel_tls (default: `tls`; TLS to the sentinels)}`.
 * camelCase aliases (`sentinelPassword`, `sentinelUsername`, `sentinelTls`, `masterName`) are
 * folded. With a sentinel block the URL's host and port are ignored; its user, password, db
 * number and `rediss:` still apply.
 *
 * Failover behaviour given to ioredis: the master's address is asked of the sentinels on
 * every (re)connect, a connection that finds a replica (after a failover the old master comes
 * back demoted) is dropped and retried, `failoverDetector` drops the connection as soon as a
 * sentinel announces `+switch-master`, and a `READONLY` reply (a write reaching a demoted
 * master) drops it too ({@link reconnectOnReadonly}, also for URLs: a DNS name that moves to
 * the new primary behaves the same). Passwords never leave this module except into ioredis:
 * {@link describeRedisTarget} is what logs and status show.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { z } from 'zod';
import { safeRedisUrl } from './redis-keys';

/** Sentinel's default port. */
export const DEFAULT_SENTINEL_PORT = 26379;

const Host = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\s/@,]+$/, { message: 'must be a host name or address (no spaces, /, @ or ,)' });
const Port = z.number().int().min(1).max(65_535);

/** `"host:port"`, `"host"`, `"[v6]:port"` → `{host, port}`; undefined when unparsable. */
export function parseSentinelAddress(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text.trim());
  if (!match) return undefined;
  const host = (match[1] ?? match[2] ?? '').trim();
  const port = match[3] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[3]);
  if (!host || !Host.safeParse(host).success || !Port.safeParse(port).success) return undefined;
  return { host, port };
}

const ADDRESS_MESSAGE = 'must be "host:port", "host" or {host, port} (port 1–65535)';

const SentinelAddressSchema = z.union(
  [
    z.object({ host: Host, port: Port.default(DEFAULT_SENTINEL_PORT) }).strict(),
    z
      .string()
      .max(300)
      .transform((text, ctx) => {
        const parsed = parseSentinelAddress(text);
        if (!parsed) {
          ctx.addIssue({ code: 'custom', message: ADDRESS_MESSAGE });
          return z.NEVER;
        }
        return parsed;
      }),
  ],
  { error: ADDRESS_MESSAGE },
);

const SENTINEL_ALIASES: Record<string, string> = {
  sentinelPassword: 'sentinel_password',
  sentinelUsername: 'sentinel_username',
  sentinelTls: 'sentinel_tls',
  sentinelTLS: 'sentinel_tls',
  masterName: 'name',
  master_name: 'name',
};

function foldAliases(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    const canonical = SENTINEL_ALIASES[k];
    if (canonical === undefined) out[k] = v;
    else if (!(canonical in input)) out[canonical] = v;
  }
  return out;
}

const Secret = z.string().min(1).max(1024);

export const SentinelSettingsSchema = z.preprocess(
  foldAliases,
  z
    .object({
      sentinels: z
        .array(SentinelAddressSchema)
        .min(1, { message: 'needs at least one sentinel' })
        .max(32),
      /** The master group name (`sentinel monitor <name> …`). */
      name: z
        .string()
        .min(1)
        .max(200)
        .regex(/^[^\s]+$/, { message: 'must not contain spaces' }),
      username: z.string().min(1).max(256).optional(),
      password: Secret.optional(),
      sentinel_username: z.string().min(1).max(256).optional(),
      sentinel_password: Secret.optional(),
      tls: z.boolean().optional(),
      sentinel_tls: z.boolean().optional(),
    })
    .strict(),
);

export type SentinelSettings = z.infer<typeof SentinelSettingsSchema>;

/** A URL, or a Sentinel set (with the optional URL whose credentials, db and scheme apply). */
export type RedisTarget =
  { kind: 'url'; url: string } | { kind: 'sentinel'; sentinel: SentinelSettings; url?: string };

/** The target of a settings block: its sentinel set if any, else its URL (else `fallbackUrl`). */
export function redisTarget(
  url: string | undefined,
  sentinel: SentinelSettings | undefined,
  fallbackUrl: string,
): RedisTarget {
  if (sentinel)
    return url === undefined ? { kind: 'sentinel', sentinel } : { kind: 'sentinel', sentinel, url };
  return { kind: 'url', url: url ?? fallbackUrl };
}

/** For logs and status: the URL with `***` for secrets, or `sentinel://h:p,h:p/name`. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === 'url') return safeRedisUrl(target.url);
  const hosts = target.sentinel.sentinels
    .map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`)
    .join(',');
  return `sentinel://${hosts}/${target.sentinel.name}`;
}

/**
 * `reconnectOnError` of every link: a `READONLY` reply means the server is (now) a replica,
 * so the link reconnects — re-resolving the master through the sentinels — and the failed
 * command is rejected (not resent: the callers fail fast and retry on their own).
 */
export function reconnectOnReadonly(err: Error): boolean {
  return err.message.startsWith('READONLY');
}

/**
 * What ioredis reads from a Redis URL (the same as `new Redis(url)`): host, port, user,
 * password, db, `rediss:` → `tls`, and query items (`?password=…`, `?family=6`, …).
 * @throws TypeError when `url` does not parse.
 */
export function redisUrlOptions(url: string): RedisOptions {
  const parsed = new URL(url);
  const out: Record<string, unknown> = {};
  parsed.searchParams.forEach((value, key) => {
    const n = Number.parseInt(value, 10);
    out[key] = key === 'family' && !Number.isNaN(n) ? n : value;
  });
  if (parsed.username || parsed.password) {
    out.username = decodeURIComponent(parsed.username);
    out.password = decodeURIComponent(parsed.password);
  }
  if (parsed.pathname.length > 1) out.db = Number.parseInt(parsed.pathname.slice(1), 10);
  if (parsed.hostname) out.host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (parsed.port) out.port = Number.parseInt(parsed.port, 10);
  if (typeof out.db === 'string') out.db = Number.parseInt(out.db, 10);
  if (parsed.protocol === 'rediss:' && out.tls === undefined) out.tls = {};
  return out as RedisOptions;
}

/**
 * The ioredis options of `target`, with `extra` (timeouts, queue policy, connection name…)
 * laid over them: `new Redis(redisConnectionOptions(target, {...}))`. `isClosed` tells the
 * sentinel retry strategies to give up once the owner closed the connection.
 */
export function redisConnectionOptions(
  target: RedisTarget,
  extra: RedisOptions,
  isClosed: () => boolean = () => false,
): RedisOptions {
  const common: RedisOptions = { reconnectOnError: reconnectOnReadonly };
  if (target.kind === 'url') return { ...redisUrlOptions(target.url), ...common, ...extra };
  const { sentinel } = target;
  const fromUrl = target.url === undefined ? {} : redisUrlOptions(target.url);
  const tls = sentinel.tls ?? fromUrl.tls !== undefined;
  const sentinelTls = sentinel.sentinel_tls ?? tls;
  const username = sentinel.username ?? fromUrl.username;
  const password = sentinel.password ?? fromUrl.password;
  return {
    ...(fromUrl.db === undefined ? {} : { db: fromUrl.db }),
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    sentinels: sentinel.sentinels.map(({ host, port }) => ({ host, port })),
    name: sentinel.name,
    role: 'master',
    ...(sentinel.sentinel_username ? { sentinelUsername: sentinel.sentinel_username } : {}),
    ...(sentinel.sentinel_password ? { sentinelPassword: sentinel.sentinel_password } : {}),
    ...(tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    ...(sentinelTls ? { sentinelTLS: {} } : {}),
    // Drop the connection as soon as a sentinel announces a new master (+switch-master),
    // rather than waiting for the old master's socket to die.
    failoverDetector: true,
    // Every sentinel unreachable: ask them all again after a short pause (ioredis: 10 ms per
    // attempt up to 1 s), until the link is closed.
    sentinelRetryStrategy: (times: number) => (isClosed() ? null : Math.min(100 * times, 1_000)),
    // The failover detector's own sentinel connections: retry every 2 s (ioredis: 60 s).
    sentinelReconnectStrategy: () => (isClosed() ? null : 2_000),
    ...common,
    ...extra,
  };
}

/**
 * Restarts `link` (after `delayMs`, default 500) when ioredis ended it for good although its
 * owner did not close it. ioredis does that when the connector's connect attempt rejects
 * instead of failing a socket — with a Sentinel set, when a sentinel announces the failover
 * (`+switch-master`) while the link is asking for the master — and would then never
 * reconnect.
 */
export function keepConnecting(link: Redis, isClosed: () => boolean, delayMs = 500): void {
  link.on('end', () => {
    if (isClosed()) return;
    setTimeout(() => {
      if (!isClosed() && link.status === 'end') link.connect().catch(() => undefined);
    }, delayMs).unref();
  });
}
