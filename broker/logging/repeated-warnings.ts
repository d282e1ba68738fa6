/**
 * Aggregation of repetitive per-message warnings (`dead-lettered` and the like), so a busy realm
 * — a demo's consumer that never ACKs dead-letters two messages a second — cannot flood the log
 * and the console's log tail. Counting is unaffected: metrics are updated by the callers, this
 * only decides which lines are written.
 *
 * Per key (message + realm + event + reason): the first occurrence is logged at warn with all
 * its fields, as before. Further occurrences within the window are counted, and once per window
 * (`intervalMs`, default 10 s) one summary line per key is written at warn with the same message
 * and key fields plus `repeated` (how many were not logged) and `window_ms`. A key quiet for a
 * whole window is forgotten, so its next occurrence is logged in full again. At most `maxKeys`
 * keys (default 1000) are tracked; occurrences of further keys are folded into one key per
 * message with realm/event/reason `*`, so memory stays bounded whatever the input.
 */
import type { Logger } from './logger';

/** What makes two warnings "the same": realm, event (or subscription key) and reason. */
export interface RepeatKey {
  realm: string;
  event: string;
  reason: string;
}

export interface RepeatedWarningsOptions {
  /** Summary period and quiet time before a key is forgotten, in ms. Default 10 000. */
  intervalMs?: number;
  /** Keys tracked at once. Default 1000. */
  maxKeys?: number;
}

interface KeyState {
  key: RepeatKey;
  msg: string;
  /** Occurrences since the last line written for this key. */
  suppressed: number;
  /** Whether anything happened in the current window. */
  seen: boolean;
}

/** Where occurrences of keys beyond `maxKeys` are counted (one per message: bounded). */
const OVERFLOW: RepeatKey = { realm: '*', event: '*', reason: '*' };

export class RepeatedWarnings {
  private readonly intervalMs: number;
  private readonly maxKeys: number;
  private readonly keys = new Map<string, KeyState>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: Logger,
    options: RepeatedWarningsOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 10_000;
    this.maxKeys = options.maxKeys ?? 1_000;
  }

  /**
   * Logs `msg` at warn with `fields` (and the key's fields) if it is the first of its key in
   * this window; otherwise counts it for the next summary line.
   */
  warn(key: RepeatKey, fields: Record<string, unknown>, msg: string): void {
    const id = keyId(msg, key);
    let state = this.keys.get(id);
    if (!state && this.keys.size >= this.maxKeys) {
      // Too many keys: counted, summarised, never logged one by one.
      const overflowId = keyId(msg, OVERFLOW);
      state = this.keys.get(overflowId);
      if (!state) {
        state = { key: OVERFLOW, msg, suppressed: 0, seen: true };
        this.keys.set(overflowId, state);
      }
      state.suppressed += 1;
      state.seen = true;
      return;
    }
    if (!state) {
      this.keys.set(id, { key, msg, suppressed: 0, seen: true });
      this.ensureTimer();
      this.logger.warn({ ...fields, ...key }, msg);
      return;
    }
    state.suppressed += 1;
    state.seen = true;
  }

  /** Writes the summary lines now and starts a new window (the timer calls it every interval). */
  flush(): void {
    for (const [id, state] of this.keys) {
      if (state.suppressed > 0) {
        this.logger.warn(
          { ...state.key, repeated: state.suppressed, window_ms: this.intervalMs },
          `${state.msg} (${state.suppressed} more in the last ${formatWindow(this.intervalMs)})`,
        );
        state.suppressed = 0;
      }
      if (!state.seen) this.keys.delete(id);
      else state.seen = false;
    }
    if (this.keys.size === 0) this.stopTimer();
  }

  /** Writes what is pending and stops the timer (the broker is closing). */
  close(): void {
    this.flush();
    this.keys.clear();
    this.stopTimer();
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

function keyId(msg: string, key: RepeatKey): string {
  return JSON.stringify([msg, key.realm, key.event, key.reason]);
}

function formatWindow(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${ms} ms`;
}
