/**
 * The message and byte buckets of a *client*, shared by every connection of that client (issue
 * 20 item 7). The spec keys them per socket (§11.3), so a reconnect refilled them and N sockets
 * of one token got N buckets. Here a bucket is keyed by the credential that admitted the
 * connection (see `LimitsService.credentialAdmitted`), and a connection holds a reference to its
 * client's entry: the per-message path touches no map and allocates nothing.
 *
 * Bounded: an entry no connection refers to is kept while it may still be below full (idle
 * `BUCKET_IDLE_MS`, pruned at most once per `PRUNE_INTERVAL_MS`), and at most `maxIdle` such
 * entries are kept (least recently released dropped first). Dropping one early only means that
 * client starts again from a full bucket.
 */
import { BUCKET_IDLE_MS, PRUNE_INTERVAL_MS, type TokenBucket } from './token-bucket';

/** Unreferenced client entries kept at most (LRU beyond that). */
export const MAX_IDLE_CLIENT_BUCKETS = 50_000;

/** One client's buckets, created full on first use by the limits that apply to them. */
export interface ClientBuckets {
  readonly key: string;
  messages: TokenBucket | null;
  bytes: TokenBucket | null;
  /** Connections holding this entry. */
  refs: number;
  /** Epoch ms at which `refs` dropped to 0. */
  idleSince: number;
}

export class SharedBuckets {
  private readonly entries = new Map<string, ClientBuckets>();
  /** Entries with `refs === 0`, in release order (oldest first). */
  private readonly idle = new Map<string, ClientBuckets>();
  private lastPrune: number;

  constructor(
    now: number,
    private readonly maxIdle: number = MAX_IDLE_CLIENT_BUCKETS,
  ) {
    this.lastPrune = now;
  }

  /** Entries held (referenced or idle). */
  get size(): number {
    return this.entries.size;
  }

  /** The entry of `key`, referenced once more until `release`. */
  acquire(key: string, now: number): ClientBuckets {
    this.prune(now);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { key, messages: null, bytes: null, refs: 0, idleSince: now };
      this.entries.set(key, entry);
    } else if (entry.refs === 0) {
      this.idle.delete(key);
    }
    entry.refs++;
    return entry;
  }

  /** Gives back a reference taken by `acquire`. */
  release(entry: ClientBuckets, now: number): void {
    if (entry.refs <= 0 || this.entries.get(entry.key) !== entry) return;
    if (--entry.refs > 0) return;
    entry.idleSince = now;
    this.idle.set(entry.key, entry);
    while (this.idle.size > this.maxIdle) {
      const oldest = this.idle.keys().next().value as string;
      this.idle.delete(oldest);
      this.entries.delete(oldest);
    }
  }

  /** Drops entries idle for more than `BUCKET_IDLE_MS` (at most once per `PRUNE_INTERVAL_MS`). */
  prune(now: number): number {
    if (now - this.lastPrune < PRUNE_INTERVAL_MS) return 0;
    this.lastPrune = now;
    let dropped = 0;
    for (const [key, entry] of this.idle) {
      if (now - entry.idleSince <= BUCKET_IDLE_MS) break;
      this.idle.delete(key);
      this.entries.delete(key);
      dropped++;
    }
    return dropped;
  }
}
