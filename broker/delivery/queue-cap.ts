/**
 * The durable queue cap per realm (`limits.max_queued_per_realm`, `spec/protocol-core.md`
 * §9.1, `spec/protocol-admin.md` §11): an enqueue over the cap is refused. The depth is read
 * from the store at most once a second and counted locally in between, so the cap costs no
 * query per message (it may overshoot by what was acknowledged within that second).
 */
import type { MessageStore } from '../storage/message-store';

const REFRESH_MS = 1_000;

export class QueueCap {
  private readonly depth = new Map<string, { n: number; at: number }>();

  constructor(
    private readonly store: MessageStore,
    private readonly cap: (realm: string) => number | undefined,
  ) {}

  /**
   * Whether one more copy may be queued in `realm`; counts it when admitted. Synchronous (no
   * promise) when no cap applies, which is the common case on the hot path.
   */
  admit(realm: string): boolean | Promise<boolean> {
    const cap = this.cap(realm);
    if (cap === undefined) return true;
    return this.admitCapped(realm, cap);
  }

  private async admitCapped(realm: string, cap: number): Promise<boolean> {
    const now = Date.now();
    let d = this.depth.get(realm);
    if (!d || now - d.at > REFRESH_MS) {
      d = { n: await this.store.countQueued(realm), at: now };
      this.depth.set(realm, d);
    }
    if (d.n >= cap) return false;
    d.n++;
    return true;
  }
}
