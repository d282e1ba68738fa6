/**
 * `redisReplayEntry(d, t, realm, defaultTtl, now)`: the queue copy a Redis DLQ replay
 * (`spec/protocol-core.md` §10.5) writes back, rebuilt in TypeScript so the Lua script
 * (`swbReplayDlq`, redis-scripts.ts) never re-encodes JSON. `d` and `t` are the dead entry's
 * stored fields (redis-keys.ts); returns null when the entry belongs to another realm than the
 * one asked for. `defaultTtl` is in seconds (§9.3), `now` in ms since the epoch.
 */
import { expiresAt, newMessageId, replayedEnvelope, type StoredEntry } from './message-store';
import { decodeEntry, entryJson } from './redis-keys';

export interface RedisReplayEntry {
  /** The new copy, as `replayDlq` returns it (a new id, as in the other stores). */
  entry: StoredEntry;
  /** Its stored JSON (redis-keys.ts `entryJson`). */
  json: string;
  /** Its expiry, ms since the epoch, or null (no TTL). */
  expires: number | null;
}

/** Rebuilds the replayed copy (see the module comment). */
export function redisReplayEntry(
  d: string,
  t: string,
  realm: string | undefined,
  defaultTtl: number,
  now: number,
): RedisReplayEntry | null {
  const dead = decodeEntry(d, '0');
  if (realm !== undefined && dead.realm !== realm) return null;
  const expires = expiresAt(undefined, defaultTtl, now);
  const { message, ...rest } = dead;
  const entry: StoredEntry = {
    ...rest,
    id: newMessageId(),
    message: replayedEnvelope(message, t),
    created_at: new Date(now).toISOString(),
    expires_at: expires,
    attempts: 0,
  };
  const { attempts: _a, message: envelope, ...fields } = entry;
  return { entry, json: entryJson(fields, JSON.stringify(envelope)), expires };
}
