/**
 * Rates per second from successive readings of cumulative counters, computed in the console
 * host, never in the broker (issue 27): the Queues view's publish / deliver / ACK per queue
 * (queue-rates.ts, from `list_queues`) and the Clients list's messages in / out per connection
 * (client-rates.ts, from `GET /api/clients`). Each rate is measured over at least
 * `MIN_WINDOW_MS` between readings of the same item. A counter that went down (broker
 * restarted, item forgotten) counts as a new start: no rate until the next reading. Bounded: at
 * most `maxTracked` items are remembered, the least recently read going first.
 */

/**
 * The shortest time a rate is measured over, ms, when an older reading allows: readings of the
 * same connection come from every caller (a view's poll, its refetch after an action, a second
 * window), so reading-to-reading deltas would let one caller's reading a few ms after a burst
 * swallow it and show the others 0.
 */
export const MIN_WINDOW_MS = 1_000;

/** Readings kept per item (those inside the last window plus the one before it), at most. */
const MAX_READINGS = 16;

interface Reading<K extends string> {
  at: number;
  totals: Readonly<Record<K, number>>;
}

/** Rates of one connection's items (queues, clients…) over counters named `K`. */
export class WindowedRates<K extends string> {
  /** Per item, oldest first: the newest reading at least `MIN_WINDOW_MS` old, then later ones. */
  private readonly last = new Map<string, Reading<K>[]>();

  /** `maxTracked`: items remembered at most (one reading list each). */
  constructor(private readonly maxTracked: number) {}

  /**
   * Records the reading of item `id` at `at` (epoch ms) and returns its rates per second over
   * the time since the newest earlier reading at least {@link MIN_WINDOW_MS} older (else the
   * oldest kept), or null: a first reading, one no later than the previous, or a counter that
   * went down (a new start).
   */
  rates(id: string, totals: Readonly<Record<K, number>>, at: number): Record<K, number> | null {
    const kept = this.last.get(id);
    if (kept) this.last.delete(id);
    else if (this.last.size >= this.maxTracked) {
      // The least recently read item goes (Map order is insertion order).
      for (const oldest of this.last.keys()) {
        this.last.delete(oldest);
        break;
      }
    }
    const reading: Reading<K> = { at, totals: { ...totals } };
    const latest = kept?.at(-1);
    if (!kept || !latest) {
      this.last.set(id, [reading]);
      return null;
    }
    if (at <= latest.at) {
      this.last.set(id, kept);
      return null;
    }
    const names = Object.keys(totals) as K[];
    if (names.some((k) => !(totals[k] >= latest.totals[k]))) {
      this.last.set(id, [reading]);
      return null;
    }
    const base = baseOf(kept, at);
    const seconds = (at - base.at) / 1000;
    const rates = {} as Record<K, number>;
    for (const k of names) rates[k] = (totals[k] - base.totals[k]) / seconds;
    // A later reading's base is never older than this one's: keep it and what came after.
    const next = [...kept.slice(kept.indexOf(base)), reading];
    this.last.set(id, next.slice(-MAX_READINGS));
    return rates;
  }

  /** Items remembered now (tests). */
  get size(): number {
    return this.last.size;
  }
}

/** The newest of `readings` at least `MIN_WINDOW_MS` before `at`, else the oldest. */
function baseOf<K extends string>(readings: readonly Reading<K>[], at: number): Reading<K> {
  for (let i = readings.length - 1; i >= 0; i--) {
    if (at - readings[i]!.at >= MIN_WINDOW_MS) return readings[i]!;
  }
  return readings[0]!;
}
