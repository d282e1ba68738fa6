/**
 * Log lines for refused requests (issue 19): one `warn` line per offending value (an origin,
 * a host) per window, naming the setting that would allow it; further refusals of the same
 * value within the window are counted and reported once in a summary line. A page that
 * retries in a loop, or a scanner trying many origins, cannot flood the log: at most
 * `maxKeys` values are tracked, the rest fold into one key.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../logging/logger';
import { PerKeyThrottle } from '../logging/per-key-throttle';
import type { RejectReasonValue } from '../limits/limit-metrics';

/** Why a request was refused; `value` is what was refused (an origin, a host, a URL). */
export interface Refusal {
  reason: RejectReasonValue;
  message: string;
  value: string;
  /** The setting that would allow it, or null when nothing does (JSONP). */
  setting: string | null;
}

export class RefusalLog {
  private readonly throttle: PerKeyThrottle;

  /** `windowMs`: quiet time per value between full lines (default 10 s); 256 values tracked. */
  constructor(
    private readonly logger: Logger | undefined,
    private readonly windowMs = 10_000,
    maxKeys = 256,
    now: () => number = Date.now,
  ) {
    this.throttle = new PerKeyThrottle(windowMs, maxKeys, now);
  }

  /** Logs `refusal` of `req` unless the same value was logged within the window. */
  refused(refusal: Refusal, req: IncomingMessage): void {
    if (!this.logger) return;
    const repeated = this.throttle.take(`${refusal.reason}\u0000${refusal.value}`);
    if (repeated === null) return;
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
}

/** What an operator would set to allow the refused value. */
function hint(refusal: Refusal): string {
  if (refusal.setting === 'cors.origin') {
    return `add ${JSON.stringify(refusal.value)} to the cors.origin setting (a list of origins)`;
  }
  const name = /^\[?([^\]]*?)\]?(?::\d+)?$/.exec(refusal.value)?.[1] ?? refusal.value;
  return `add ${JSON.stringify(name)} to the allowed_hosts setting`;
}
