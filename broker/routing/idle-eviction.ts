/**
 * Idle eviction of registrations (`spec/protocol-core.md` §15): entries with no socket,
 * offline for longer than `ttl_ms`, are removed. A consumer takes its subscriptions with it,
 * except durable ones, which keep the consumer registered (a departure from the reference,
 * which stopped storing for a durable consumer after five idle minutes);
 * a producer takes the subscriptions that name it — except those of consumers that are online
 * now (a departure from the reference, which silently unsubscribed live consumers whose
 * producer had been away for `ttl_ms`). Placeholder producers that never connected are kept.
 * Stored durable messages are not touched.
 *
 * Cost (issue 8 item 8): evicting an entry costs its own subscriptions and links, through the
 * registry's indexes — never a scan of every key or producer per stale consumer, which stalled
 * the event loop for 17–55 s with 40k offline consumers. The timer-driven sweep is also
 * incremental: it examines at most `sliceBudget` entries per event-loop turn and resumes where
 * it stopped, so a pass over a huge registry never holds the loop for long.
 */
import type { RealmDirectory } from './realm-directory';
import type { RealmRegistry } from './realm-registry';

/** Entries examined per event-loop turn by the timer-driven sweep. */
export const DEFAULT_SLICE_BUDGET = 2_000;

/** Work done, for tests and logs: entries looked at, records and links visited. */
export interface SweepWork {
  examined: number;
  visited: number;
}

interface Offline {
  socket: unknown;
  online: boolean;
  offlineAt: number | null;
}

export class IdleSweeper {
  /** Cumulative work since construction. */
  readonly work: SweepWork = { examined: 0, visited: 0 };
  private pass: Iterator<[RealmRegistry, 'consumer' | 'producer', string]> | null = null;
  private passNow = 0;
  private passEvicted = 0;

  constructor(
    private readonly realms: RealmDirectory,
    private readonly ttlMs: number,
    private readonly sliceBudget = DEFAULT_SLICE_BUDGET,
  ) {}

  /** Whether a sliced pass is in progress. */
  get running(): boolean {
    return this.pass !== null;
  }

  /** One whole pass, synchronously; returns the number of entries evicted. */
  sweepAll(now = Date.now()): number {
    let evicted = 0;
    for (const [realm, kind, name] of this.entries()) evicted += this.visit(realm, kind, name, now);
    for (const realm of [...this.realms.values()]) this.realms.dropIfEmpty(realm.name);
    return evicted;
  }

  /**
   * Advances the sliced pass (starting one if none runs) by at most `sliceBudget` entries.
   * Returns the entries evicted by the pass when it has just finished, else null.
   */
  step(now = Date.now()): number | null {
    if (!this.pass) {
      this.pass = this.entries();
      this.passNow = now;
      this.passEvicted = 0;
    }
    for (let i = 0; i < this.sliceBudget; i++) {
      const next = this.pass.next();
      if (next.done) {
        this.pass = null;
        for (const realm of [...this.realms.values()]) this.realms.dropIfEmpty(realm.name);
        return this.passEvicted;
      }
      const [realm, kind, name] = next.value;
      this.passEvicted += this.visit(realm, kind, name, this.passNow);
    }
    return null;
  }

  /** Every consumer then every producer name of every realm, read lazily (Map iterators). */
  private *entries(): Generator<[RealmRegistry, 'consumer' | 'producer', string]> {
    for (const realm of [...this.realms.values()]) {
      for (const name of realm.consumers.keys()) yield [realm, 'consumer', name];
      for (const name of realm.producers.keys()) yield [realm, 'producer', name];
    }
  }

  private stale(e: Offline, now: number): boolean {
    return (
      e.socket === null && !e.online && e.offlineAt !== null && now - e.offlineAt >= this.ttlMs
    );
  }

  /** Evicts one entry if stale; returns 1 when it did. */
  private visit(realm: RealmRegistry, kind: 'consumer' | 'producer', name: string, now: number) {
    this.work.examined++;
    if (kind === 'consumer') {
      const consumer = realm.consumers.get(name);
      if (!consumer || !this.stale(consumer, now)) return 0;
      let durable = false;
      for (const record of realm.subscriptionsOf(name)) {
        this.work.visited++;
        if (record.durable) durable = true;
        else realm.removeSubscription(record.key, name);
      }
      // A durable subscription outlives idleness: its copies keep being stored.
      if (durable) return 0;
      this.work.visited += realm.linkCount(name);
      realm.deleteConsumer(name);
      return 1;
    }
    const producer = realm.producers.get(name);
    if (!producer || !this.stale(producer, now)) return 0;
    for (const record of realm.subscriptionsNaming(name)) {
      this.work.visited++;
      if (record.durable) continue;
      if (realm.consumers.get(record.consumer)?.online) continue;
      realm.removeSubscription(record.key, record.consumer);
    }
    this.work.visited += producer.subscribers.size;
    realm.deleteProducer(name);
    return 1;
  }
}

/**
 * Runs a sliced pass every `intervalMs` (unref'd: the timer never keeps the process alive),
 * one slice per event-loop turn, and reports each finished pass. Returns a stop function.
 */
export function startIdleSweep(
  sweeper: IdleSweeper,
  intervalMs: number,
  onPass: (evicted: number) => void,
): () => void {
  let slice: NodeJS.Immediate | null = null;
  const run = (): void => {
    slice = null;
    const evicted = sweeper.step();
    if (evicted === null) slice = setImmediate(run);
    else onPass(evicted);
  };
  const timer = setInterval(() => {
    if (!sweeper.running) run();
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (slice) clearImmediate(slice);
  };
}
