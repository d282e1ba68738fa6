/**
 * A fixed-capacity FIFO that overwrites its oldest entry once full.
 *
 * Used for the supervisor's broker log tail and the poller's metric samples, so memory stays
 * bounded however long the console runs (ARCHITECTURE §3: "use ring buffers").
 */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;

  /** @param capacity maximum number of entries kept (integer ≥ 1). */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`RingBuffer capacity must be an integer ≥ 1, got ${capacity}`);
    }
    this.items = new Array<T | undefined>(capacity);
  }

  /** Number of entries currently held (≤ capacity). */
  get size(): number {
    return this.count;
  }

  /** Appends an entry, dropping the oldest one when full. */
  push(item: T): void {
    const end = (this.start + this.count) % this.capacity;
    this.items[end] = item;
    if (this.count < this.capacity) {
      this.count += 1;
    } else {
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** The newest entry, or undefined when empty. */
  last(): T | undefined {
    if (this.count === 0) return undefined;
    return this.items[(this.start + this.count - 1) % this.capacity];
  }

  /** Entries from oldest to newest (a copy). */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i += 1) {
      out.push(this.items[(this.start + i) % this.capacity] as T);
    }
    return out;
  }

  /** Removes every entry. */
  clear(): void {
    this.items.fill(undefined);
    this.start = 0;
    this.count = 0;
  }
}
