/**
 * Log lines for refused requests (issue 19): one `warn` line per offending value (an origin,
 * a host) per window, naming the setting that would allow it; further refusals of the same
 * value within the window are counted and reported once in a summary line. A page that
 * retries in a loop, or a scanner trying many origins, cannot flood the log: at most
 * `maxKeys` values are tracked, the rest fold into one key.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../logging/logger';
import type { Refusal } from './request-policy';

interface Seen {
  at: number;
  suppressed: number;
  refusal: Refusal;
}

const OVERFLOW_KEY = '*';

export class RefusalLog {
  private readonly seen = new Map<string, Seen>();

  /** `windowMs`: quiet time per value between full lines (default 10 s). */
  constructor(
    private readonly logger: Logger | undefined,
    private readonly windowMs = 10_000,
    private readonly maxKeys = 256,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs `refusal` of `req` unless the same value was logged within the window. */
  refused(refusal: Refusal, req: IncomingMessage): void {
    if (!this.logger) return;
    const t = this.now();
    let key = `${refusal.reason}\u0000${refusal.value}`;
    if (!this.seen.has(key) && this.seen.size >= this.maxKeys) {
      this.sweep(t);
      if (this.seen.size >= this.maxKeys) key = OVERFLOW_KEY;
    }
    const entry = this.seen.get(key);
    if (entry && t - entry.at < this.windowMs) {
      entry.suppressed += 1;
      return;
    }
    const repeated = entry?.suppressed ?? 0;
    this.seen.set(key, { at: t, suppressed: 0, refusal });
    this.logger.warn(
      {
        reason: refusal.reason,
        ...(refusal.setting === 'cors.origin' && { origin: refusal.value }),
        ...(refusal.setting === 'allowed_hosts' && { host: refusal.value }),
        url: (req.url ?? '').slice(0, 200),
        remote: req.socket.remoteAddress,
        ...(refusal.setting && { allow_with: hint(refusal) }),
        ...(repeated > 0 && { repeated, window_ms: this.windowMs }),
      },
      `request refused: ${refusal.message}`,
    );
  }

  private sweep(t: number): void {
    for (const [k, v] of this.seen) if (t - v.at >= this.windowMs) this.seen.delete(k);
  }
}

/** What an operator would set to allow the refused value. */
function hint(refusal: Refusal): string {
  if (refusal.setting === 'cors.origin') {
    return `add ${JSON.stringify(refusal.value)} to the cors.origin setting (a list of origins)`;
  }
  const name = /^\[?([^\]]*?)\]?(?::\d+)?$/.exec(refusal.value)?.[1] ?? refusal.value;
  return `add ${JSON.stringify(name)} to the allowed_hosts setting`;
}
