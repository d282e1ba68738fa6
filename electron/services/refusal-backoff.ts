/**
 * Exponential backoff after a broker refused the connection's credential (issue 22, item 16).
 *
 * A saved profile with a wrong admin token or manager key used to be polled at the normal period
 * for ever, and the remote broker logged a refusal for every poll. A refused attempt now waits
 * `baseMs`, then twice that after each further refusal, up to `maxMs`; any answer that is not a
 * refusal (success, or the broker being down, which has its own handling) resets it. Editing the
 * profile replaces its poller and so starts afresh.
 */

/** Where a connection's polling stands after refusals; times are epoch ms. */
export interface BackoffState {
  /** Refusals in a row. */
  refusals: number;
  /** Wait before the next attempt, ms. */
  delayMs: number;
  /** When the next attempt is due. */
  retryAt: number;
}

export interface RefusalBackoffOptions {
  /** First wait after a refusal, ms. Default 2,000. */
  baseMs?: number;
  /** Longest wait, ms. Default 60,000. */
  maxMs?: number;
  now?: () => number;
}

/** Default first wait and cap of the backoff, ms. */
export const REFUSAL_BACKOFF_BASE_MS = 2_000;
export const REFUSAL_BACKOFF_MAX_MS = 60_000;

export class RefusalBackoff {
  private current: BackoffState | null = null;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;

  constructor(options: RefusalBackoffOptions = {}) {
    this.baseMs = Math.max(1, options.baseMs ?? REFUSAL_BACKOFF_BASE_MS);
    this.maxMs = Math.max(this.baseMs, options.maxMs ?? REFUSAL_BACKOFF_MAX_MS);
    this.now = options.now ?? Date.now;
  }

  /** Records a refusal; returns the new state (`delayMs` doubled, capped at `maxMs`). */
  refused(): BackoffState {
    const refusals = (this.current?.refusals ?? 0) + 1;
    // 2^(n-1) without overflow: past the cap the exponent no longer matters.
    const factor = 2 ** Math.min(refusals - 1, 30);
    const delayMs = Math.min(this.maxMs, this.baseMs * factor);
    this.current = { refusals, delayMs, retryAt: this.now() + delayMs };
    return { ...this.current };
  }

  /** An attempt that was not refused: back to the normal period. */
  reset(): void {
    this.current = null;
  }

  /** The state after the last refusal, or null when not backing off. */
  state(): BackoffState | null {
    return this.current ? { ...this.current } : null;
  }

  /** Whether an attempt may be made now (never backing off, or the wait is over). */
  ready(): boolean {
    return !this.current || this.now() >= this.current.retryAt;
  }
}
