/**
 * Note 3-B's Fix (`spec/protocol-extensions.md` §3.5): a bound on how many one-time prekeys a
 * requester can take, so no realm member can drain a victim's pool. Two fixed windows:
 *
 * - per socket: `e2ee.prekey_takes_per_minute` takes (default 60) per 60 s window;
 * - per target (Switchboard decision on the Note's recommendation): one requester may take at
 *   most `PrekeyLimit.TAKES_PER_TARGET_PER_HOUR` (5) one-time keys of one (realm, identity)
 *   per hour. The requester is the socket's principal when it has one (so reconnecting does
 *   not reset the budget), else the socket.
 *
 * Past either limit the take still answers the bundle, without a one-time key, so X3DH
 * proceeds (the reply shape is unchanged). Takes that found no bundle are not counted.
 */
import { PrekeyLimit } from '../../shared/protocol-extensions';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Entries kept before expired windows are swept (bounds memory under many requesters). */
const SWEEP_AT = 10_000;

interface Window {
  start: number;
  count: number;
}

class FixedWindows {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly lengthMs: number) {}

  /** Counts one use of `key` if fewer than `max` were counted in its window; returns whether. */
  take(key: string, max: number, now: number): boolean {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.lengthMs) {
      if (this.windows.size >= SWEEP_AT) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= max) return false;
    w.count += 1;
    return true;
  }

  /** Whether `key` still has room in its window (nothing counted). */
  has(key: string, max: number, now: number): boolean {
    const w = this.windows.get(key);
    return !w || now - w.start >= this.lengthMs || w.count < max;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= this.lengthMs) this.windows.delete(k);
  }
}

/** Who is taking: the principal when the socket has one, else the socket id. */
export interface PrekeyRequester {
  socketId: string;
  principal: string | null;
}

export class PrekeyTakeLimiter {
  private readonly perSocket = new FixedWindows(MINUTE_MS);
  private readonly perTarget = new FixedWindows(HOUR_MS);

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Whether `requester` may be handed one one-time prekey of (realm, identity) now; counts it
   * in both windows when so. `perMinute`: the live `e2ee.prekey_takes_per_minute`.
   */
  allow(requester: PrekeyRequester, realm: string, identity: string, perMinute: number): boolean {
    const now = this.now();
    const who = requester.principal ? `p:${requester.principal}` : `s:${requester.socketId}`;
    const target = `${who}\u0000${realm}\u0000${identity}`;
    if (!this.perTarget.has(target, PrekeyLimit.TAKES_PER_TARGET_PER_HOUR, now)) return false;
    if (!this.perSocket.take(requester.socketId, perMinute, now)) return false;
    return this.perTarget.take(target, PrekeyLimit.TAKES_PER_TARGET_PER_HOUR, now);
  }
}
