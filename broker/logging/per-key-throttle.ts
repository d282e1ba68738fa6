/**
 * "At most one log line per key per window": the first occurrence of a key in a window may be
 * logged, later ones are only counted, and the next line reports how many were not logged
 * (`suppressed`). For floods whose lines are identical but for their count — a full store
 * failing every durable write, a queue cap refusing every copy, a page retrying a refused
 * origin. At most `maxKeys` keys are tracked (client-chosen keys stay bounded); past that,
 * new keys share one overflow key.
 */
/** Where keys beyond `maxKeys` are counted. */
export const OVERFLOW_KEY = '*';

export class PerKeyThrottle {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  /** `windowMs`: minimum time between two lines of one key (ms); `maxKeys` default 1,000. */
  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Returns how many occurrences of `key` went unlogged since its last line when this one
   * should be logged, or null when it is only counted.
   */
  take(key: string): number | null {
    const now = this.now();
    if (!this.last.has(key) && this.last.size >= this.maxKeys) {
      for (const [k, v] of this.last) if (now - v.at >= this.windowMs) this.last.delete(k);
      if (this.last.size >= this.maxKeys) key = OVERFLOW_KEY;
    }
    const last = this.last.get(key);
    if (last && now - last.at < this.windowMs) {
      last.suppressed++;
      return null;
    }
    this.last.set(key, { at: now, suppressed: 0 });
    return last?.suppressed ?? 0;
  }
}
