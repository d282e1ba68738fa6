/**
 * The per-identity sealed-sender records (`spec/protocol-extensions.md` §4.5, §4.9, §10) and
 * the node-local runtime state of the family (send windows, drains in flight, per-realm
 * serialization).
 *
 * - UAK records: `{mode, uak}` per (realm, identity), in memory only and node-local, as in the
 *   reference (Note 4-J: clients re-send `SEALED_UAK_SET` on every connect). `uak` is the base64
 *   of the 16 decoded bytes, or null when `unrestricted`.
 * - The sealed inbox: the queued `{id, blob, msg_id, expires_at}` entries of (realm, identity),
 *   oldest first, kept as the family's own `identity_state` rows (kind `sealed-inbox`), never in
 *   the durable-queue tables: `SUBSCRIBE` with a spoofed `consumer_id` cannot reach them
 *   (Note 4-B, Fix 1). Persisted with the SQLite store; purged and moved with the realm.
 */
import { z } from 'zod';
import { ExtensionLimit, SealedLimit, SealedMode } from '../../../shared/protocol-extensions';

/** §4.5: a recipient's access rule. */
export interface UakRecord {
  mode: (typeof SealedMode)[keyof typeof SealedMode];
  /** Base64 of the 16 decoded bytes; null when `unrestricted`. */
  uak: string | null;
}

export const UakRecordSchema: z.ZodType<UakRecord> = z.object({
  mode: z.enum([SealedMode.REQUIRE_UAK, SealedMode.UNRESTRICTED]),
  uak: z.string().max(SealedLimit.MAX_UAK_CHARS).nullable(),
});

/** §4.6: one queued blob. `expires_at`: epoch ms. */
export interface SealedEntry {
  id: string;
  blob: string;
  msg_id: string;
  expires_at: number;
}

export const SealedInboxSchema: z.ZodType<SealedEntry[]> = z.array(
  z.object({
    id: z.string().max(64),
    blob: z.string().min(1).max(ExtensionLimit.SEALED_MAX_BLOB_CHARS),
    msg_id: z.string().max(SealedLimit.MAX_MSG_ID_CHARS),
    expires_at: z.number(),
  }),
);

const inflightKey = (realm: string, identity: string) => `${realm.length}:${realm}${identity}`;

/** A fixed send window (§4.6 check 3). */
interface Window {
  opened: number;
  count: number;
}

/** Node-local runtime state of sealed sender (not persisted). */
export class SealedRuntime {
  /** Per-socket fixed 60 s windows (weakly held: they go with the socket). */
  private readonly windows = new WeakMap<object, Window>();
  /** (realm, identity) → the ids of entries emitted but not yet proven received (Note 4-C). */
  private readonly inflight = new Map<string, Set<string>>();
  /** Per destination realm: the tail of the cap-check-then-insert chain (Note 4-F). */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Fixed 60 s windows per client IP and per destination (Note 4-E), pruned as they lapse. */
  private readonly keyed = new Map<string, Window>();

  /** Counts one call of `socket`; false when it is over `limit` in the current window. */
  allowSend(socket: object, now: number, limit: number): boolean {
    let w = this.windows.get(socket);
    if (!w || now - w.opened >= SealedLimit.SEND_WINDOW_MS) {
      w = { opened: now, count: 0 };
      this.windows.set(socket, w);
    }
    w.count += 1;
    return w.count <= limit;
  }

  /**
   * Counts one call under `key` (`ip:<addr>`, `to:<realm>…`); false when it is over `limit`
   * in the current window. Lapsed windows are dropped once the map grows.
   */
  allowKeyed(key: string, now: number, limit: number): boolean {
    if (this.keyed.size > 10_000) {
      for (const [k, w] of this.keyed) {
        if (now - w.opened >= SealedLimit.SEND_WINDOW_MS) this.keyed.delete(k);
      }
    }
    let w = this.keyed.get(key);
    if (!w || now - w.opened >= SealedLimit.SEND_WINDOW_MS) {
      w = { opened: now, count: 0 };
      this.keyed.set(key, w);
    }
    w.count += 1;
    return w.count <= limit;
  }

  /** The in-flight set of (realm, identity), created on demand. */
  inFlight(realm: string, identity: string): Set<string> {
    const key = inflightKey(realm, identity);
    let set = this.inflight.get(key);
    if (!set) {
      set = new Set();
      this.inflight.set(key, set);
    }
    return set;
  }

  /** Drops `ids` from the in-flight set of (realm, identity) (and the set once empty). */
  land(realm: string, identity: string, ids: readonly string[]): void {
    const key = inflightKey(realm, identity);
    const set = this.inflight.get(key);
    if (!set) return;
    for (const id of ids) set.delete(id);
    if (set.size === 0) this.inflight.delete(key);
  }

  /** Runs `task` after every earlier task of `realm` settled (Note 4-F). */
  serialize<T>(realm: string, task: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(realm) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => undefined);
    this.chains.set(realm, tail);
    void tail.then(() => {
      if (this.chains.get(realm) === tail) this.chains.delete(realm);
    });
    return next;
  }
}
