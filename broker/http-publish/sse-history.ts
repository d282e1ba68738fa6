/**
 * SSE history (`spec/protocol-extensions.md` §5.7): the guaranteed messages a stream can
 * catch up on with `Last-Event-ID` or `?since`.
 *
 * Switchboard departs from the reference on purpose (Notes 5-B, 5-C, 5-E): the history is NOT
 * kept as durable-queue rows under consumer `__http_sse__`, where a `SUBSCRIBE` with that
 * spoofed `consumer_id` could drain it, a client-chosen id could collide with a store key, and
 * the rows would eat the realm's `max_queued_per_realm`. It lives in its own namespace: a ring
 * of at most `SSE_REPLAY_MAX_MESSAGES` rows per (realm, event), rows keyed by insertion order
 * with the delivery id only as a column that resume matches, each expiring with the message's
 * TTL. It is node-local memory (it does not survive a restart; a shared store-backed history
 * is follow-up work).
 */
import { SSE_REPLAY_MAX_MESSAGES } from './http-publish-schema';

/** One history row: the delivery id, the serialized frame object (the `data:` JSON). */
export interface HistoryRow {
  id: string;
  frame: string;
  /** Epoch ms after which the row is gone; `Infinity` for a message that never expires. */
  expiresAt: number;
}

/** (realm, event) keys kept at most; the least recently written key goes beyond. */
export const MAX_HISTORY_KEYS = 10_000;

/** A key's rows, and whether older rows were pushed out (a catch-up from before is capped). */
interface Ring {
  rows: HistoryRow[];
  overflowed: boolean;
}

const keyOf = (realm: string, event: string) => `${realm}\u0000${event}`;

export class SseHistory {
  /** Least recently written key first. */
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Appends a row, dropping the oldest beyond the ring size. */
  record(realm: string, event: string, row: HistoryRow): void {
    const key = keyOf(realm, event);
    let ring = this.rings.get(key);
    if (ring) this.rings.delete(key);
    else {
      ring = { rows: [], overflowed: false };
      if (this.rings.size >= MAX_HISTORY_KEYS) {
        this.rings.delete(this.rings.keys().next().value as string);
      }
    }
    this.rings.set(key, ring);
    ring.rows.push(row);
    if (ring.rows.length > SSE_REPLAY_MAX_MESSAGES) {
      ring.rows.splice(0, ring.rows.length - SSE_REPLAY_MAX_MESSAGES);
      ring.overflowed = true;
    }
  }

  /**
   * Every unexpired row of (realm, event), oldest first; non-destructive (§5.7 step 2).
   * `overflowed`: rows older than these were pushed out of the ring, so a replay of the whole
   * window is capped (§5.7 step 6 signals it).
   */
  read(realm: string, event: string): { rows: HistoryRow[]; overflowed: boolean } {
    const ring = this.rings.get(keyOf(realm, event));
    if (!ring) return { rows: [], overflowed: false };
    const now = this.now();
    const live = ring.rows.filter((r) => r.expiresAt > now);
    if (live.length !== ring.rows.length) ring.rows = live;
    return { rows: live.slice(), overflowed: ring.overflowed };
  }

  /** Drops a realm's history (`remove_realm`, §10). */
  dropRealm(realm: string): void {
    const prefix = `${realm}\u0000`;
    for (const key of [...this.rings.keys()]) if (key.startsWith(prefix)) this.rings.delete(key);
  }

  clear(): void {
    this.rings.clear();
  }
}
