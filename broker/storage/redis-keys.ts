/**
 * Key layout, ordering scores and entry encoding of the Redis message store
 * (`spec/protocol-core.md` §16.3 "Redis", Note 16-A). `b64u` = base64url of the UTF-8 text, so
 * no key part ever contains the `:` separator. With prefix `P` (default `tyo-mq:queue`):
 *
 * - `P:message:<id>` — a hash: `d` the entry JSON (without `attempts`), `a` attempts, `q` the
 *   queue (`<b64u realm>:<b64u event>:<b64u consumer>`), `r` the b64u realm, `x` `expires_at`
 *   (epoch ms, `""` = never). `PEXPIREAT` at `expires_at` + {@link EXPIRY_GRACE_MS}: reads skip
 *   expired copies themselves; the key's own expiry only reclaims memory when no broker purges.
 * - `P:index:<queue>` — sorted set of ids, scored by {@link ScoreClock} (enqueue order).
 * - `P:expiry:<b64u realm>` — sorted set of `<queue>:<id>` scored by `expires_at`: what
 *   `purgeExpired` and `countQueued` read, and what names a copy's queue after its hash is gone.
 * - `P:queues:<b64u realm>` (set of queues), `P:realms` (set of b64u realms holding queues).
 * - `P:dlq:message:<id>` (the same hash plus `l` reason and `t` dead_lettered_at),
 *   `P:dlq:<b64u realm>` (sorted set), `P:dlq-all` (the global DLQ index: `listDlq(null)` lists
 *   every realm, Note 16-A), `P:dlq-realms` (set of b64u realms with DLQ entries).
 * - `P:subscriptions` (hash `<queue>` → record JSON) and `P:subscriptions:order` (sorted set,
 *   first-saved order).
 *
 * Redis's own data types are used instead of the reference's one JSON string per copy because
 * `setAttempts` must change one field atomically without re-encoding the envelope (Lua's cjson
 * would round numbers to 14 digits).
 */
import type { DlqEntry, StoredEntry } from './message-store';

/** Default key prefix (§16.3). */
export const DEFAULT_REDIS_PREFIX = 'tyo-mq:queue';
/** Default Redis URL. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** How long (ms) past `expires_at` Redis keeps an expired copy's hash for the purge to find. */
export const EXPIRY_GRACE_MS = 10 * 60_000;

/** base64url of the UTF-8 text. */
export const b64u = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
/** The UTF-8 text of a `b64u` part. */
export const unb64u = (part: string): string => Buffer.from(part, 'base64url').toString('utf8');

/** The queue part of keys: `<b64u realm>:<b64u event>:<b64u consumer>`. */
export const queuePart = (realm: string, event: string, consumer: string): string =>
  `${b64u(realm)}:${b64u(event)}:${b64u(consumer)}`;

/** `(realm, event, consumer)` of a queue part. */
export function parseQueuePart(q: string): { realm: string; event: string; consumer: string } {
  const [realm = '', event = '', consumer = ''] = q.split(':');
  return { realm: unb64u(realm), event: unb64u(event), consumer: unb64u(consumer) };
}

/**
 * Enqueue and dead-letter scores: `ms × 1024 + n`, strictly increasing in this process, so
 * copies made in the same millisecond keep their order (Note 16-A) and stay below 2^53 until
 * the year 2248. A burst of more than 1,024 per ms runs ahead of the clock, never backwards.
 */
export class ScoreClock {
  private last = 0;
  next(ms: number): number {
    this.last = Math.max(ms * 1024, this.last + 1);
    return this.last;
  }
}

/** What the scripts return for one copy: `[id, d, a, l?, t?]` (hash fields). */
export type RawEntry = [string, string, string, ...string[]];

/** The entry JSON (`d`), envelope serialised once (`payloadJson` when the caller has it). */
export function entryJson(
  entry: Omit<StoredEntry, 'message' | 'attempts'>,
  payloadJson: string,
): string {
  return `{"message":${payloadJson},${JSON.stringify(entry).slice(1)}`;
}

/** A stored copy from its hash fields. */
export function decodeEntry(d: string, attempts: string): StoredEntry {
  const parsed = JSON.parse(d) as Omit<StoredEntry, 'attempts'>;
  return { ...parsed, attempts: Number(attempts) || 0 };
}

/** A DLQ entry from its hash fields (`l` reason, `t` dead_lettered_at). */
export function decodeDlq(raw: RawEntry): DlqEntry {
  const [, d, a, reason = '', at = ''] = raw;
  return { ...decodeEntry(d, a), reason, dead_lettered_at: at };
}

/**
 * A Redis URL safe for logs, errors and status: the password (of the userinfo, and query values
 * whose name suggests a secret, e.g. `?password=`, which ioredis reads) replaced by `***`.
 */
export function safeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|secret|token|auth|key/i.test(key)) parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    return '<unparsable redis url>';
  }
}
