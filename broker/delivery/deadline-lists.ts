/**
 * Many timeouts of a few lengths, one Node timer per length: the ACK deadlines of reliable
 * deliveries (`ack-tracker.ts`). At full rate every delivered copy starts a deadline and
 * nearly every one is cancelled by its ACK; a `setTimeout` each (a Timeout object, a closure,
 * a timer-list insert and removal) is a measurable share of the broker's event loop there.
 *
 * Entries with the same length are scheduled in deadline order (each deadline is now + the
 * length), so each length keeps a doubly linked FIFO threaded through the entries themselves
 * (no allocation per schedule) and one unref'd Node timer armed for its head. Cancelling is
 * O(1). An entry expires when its deadline has passed (within 1 ms, Node's timer resolution),
 * as its own `setTimeout` would have. Times are `performance.now()` milliseconds.
 */

/**
 * Fields an entry carries for its list (set and read only by `DeadlineLists`); an entry not
 * scheduled has `deadlineList`, `deadlinePrev` and `deadlineNext` null.
 */
export interface DeadlineEntry {
  deadlineAt: number;
  deadlinePrev: DeadlineEntry | null;
  deadlineNext: DeadlineEntry | null;
  deadlineList: DeadlineList | null;
}

interface DeadlineList {
  readonly delayMs: number;
  head: DeadlineEntry | null;
  tail: DeadlineEntry | null;
  timer: NodeJS.Timeout | null;
}

export class DeadlineLists<E extends DeadlineEntry> {
  private readonly lists = new Map<number, DeadlineList>();

  /** `onExpire(entry)` runs once per expired entry, after the entry left its list. */
  constructor(private readonly onExpire: (entry: E) => void) {}

  /**
   * Expires `entry` in `delayMs` ms (a whole number ≥ 1, at most the longest Node timer),
   * unless cancelled first. An entry already scheduled is moved.
   */
  schedule(entry: E, delayMs: number): void {
    this.cancel(entry);
    let list = this.lists.get(delayMs);
    if (!list) {
      list = { delayMs, head: null, tail: null, timer: null };
      this.lists.set(delayMs, list);
    }
    entry.deadlineAt = performance.now() + delayMs;
    entry.deadlineList = list;
    entry.deadlinePrev = list.tail;
    entry.deadlineNext = null;
    if (list.tail) list.tail.deadlineNext = entry;
    else list.head = entry;
    list.tail = entry;
    if (list.timer === null) this.arm(list, delayMs);
  }

  /** Whether `entry` is waiting for its deadline. */
  isScheduled(entry: E): boolean {
    return entry.deadlineList !== null;
  }

  /** Takes `entry` out of its list; returns whether it was scheduled. */
  cancel(entry: E): boolean {
    const list = entry.deadlineList;
    if (list === null) return false;
    const { deadlinePrev: prev, deadlineNext: next } = entry;
    if (prev) prev.deadlineNext = next;
    else list.head = next;
    if (next) next.deadlinePrev = prev;
    else list.tail = prev;
    entry.deadlinePrev = null;
    entry.deadlineNext = null;
    entry.deadlineList = null;
    // The list's timer stays armed: when it fires for an entry no longer there, it re-arms for
    // the head, or stops when the list is empty.
    return true;
  }

  /** Cancels every entry and stops every timer (shutdown). */
  clear(): void {
    for (const list of this.lists.values()) {
      if (list.timer) clearTimeout(list.timer);
      for (let e = list.head; e !== null;) {
        const next = e.deadlineNext;
        e.deadlinePrev = null;
        e.deadlineNext = null;
        e.deadlineList = null;
        e = next;
      }
    }
    this.lists.clear();
  }

  private arm(list: DeadlineList, delayMs: number): void {
    list.timer = setTimeout(() => this.fire(list), Math.max(1, Math.ceil(delayMs)));
    list.timer.unref();
  }

  private fire(list: DeadlineList): void {
    list.timer = null;
    // Node's timers count whole milliseconds of the loop's clock: allow that much early.
    const now = performance.now() + 1;
    while (list.head !== null && list.head.deadlineAt <= now) {
      const entry = list.head as E;
      this.cancel(entry);
      this.onExpire(entry);
    }
    // `onExpire` may have scheduled into this list again, arming it.
    if (list.timer !== null) return;
    if (list.head !== null) this.arm(list, list.head.deadlineAt - performance.now());
    else this.lists.delete(list.delayMs);
  }
}
