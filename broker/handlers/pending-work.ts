/**
 * The asynchronous work handlers have started and not finished — durable writes awaiting
 * their commit, publisher confirms and `ACK_OK`s awaiting the store (issue 19). A shutdown
 * waits for it (bounded) before closing transports, so a producer whose message was stored
 * gets its confirm instead of re-sending it to the restarted broker.
 */
export class PendingWork {
  private readonly work = new Set<Promise<unknown>>();
  private settledCount = 0;

  /** Work in progress now. */
  get size(): number {
    return this.work.size;
  }

  /** Pieces of work settled (either way) since the broker started; a drain reports the delta. */
  get finished(): number {
    return this.settledCount;
  }

  /** Tracks `promise` until it settles (either way). */
  track(promise: Promise<unknown>): void {
    const done = (): void => {
      this.work.delete(tracked);
      this.settledCount += 1;
    };
    const tracked: Promise<void> = promise.then(done, done);
    this.work.add(tracked);
  }

  /**
   * Resolves once every piece of work tracked now (and any started meanwhile) has settled, or
   * after `timeoutMs`; resolves with how many were still pending then. Never rejects.
   */
  async settled(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.work.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.work]),
        new Promise((resolve) => (timer = setTimeout(resolve, left))),
      ]);
      clearTimeout(timer);
    }
    return this.work.size;
  }
}
