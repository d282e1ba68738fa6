/**
 * Temporary blocks of MQTT client ids (Switchboard extension, issue 27; docs/management.md
 * "Client detail and control"): `close_client` with `block_seconds` ends the connection and
 * refuses CONNECTs of the same (realm, client id) until the block ends — a misbehaving device
 * that reconnects at once is kept out without revoking a token it may share with others, or on
 * a realm where devices have none. Node-local and in memory: a restart lifts every block.
 */

/** Longest block, seconds (a day); beyond it, revoke the credential instead. */
export const MAX_BLOCK_SECONDS = 86_400;
/** Blocks held at most; the oldest-ending ones go first past it. */
const MAX_BLOCKS = 10_000;

export class ClientBans {
  /** `<realm>\n<client id>` → when the block ends (epoch ms). */
  private readonly until = new Map<string, number>();

  private static key(realm: string, clientId: string): string {
    return `${realm}\n${clientId}`;
  }

  /** Blocks (realm, clientId) for `seconds` from `now`; a longer block already held stays. */
  block(realm: string, clientId: string, seconds: number, now = Date.now()): number {
    const key = ClientBans.key(realm, clientId);
    const ends = Math.max(this.until.get(key) ?? 0, now + seconds * 1000);
    this.until.set(key, ends);
    if (this.until.size > MAX_BLOCKS) this.prune(now);
    return ends;
  }

  /** When the block of (realm, clientId) ends (epoch ms), or null when it is not blocked. */
  blockedUntil(realm: string, clientId: string, now = Date.now()): number | null {
    const key = ClientBans.key(realm, clientId);
    const ends = this.until.get(key);
    if (ends === undefined) return null;
    if (ends <= now) {
      this.until.delete(key);
      return null;
    }
    return ends;
  }

  /** Ends the block of (realm, clientId) early; returns whether one was held. */
  lift(realm: string, clientId: string): boolean {
    return this.until.delete(ClientBans.key(realm, clientId));
  }

  private prune(now: number): void {
    for (const [key, ends] of this.until) if (ends <= now) this.until.delete(key);
    // Still full: the blocks ending soonest give way (Map order is insertion, not end time).
    const excess = this.until.size - MAX_BLOCKS;
    if (excess <= 0) return;
    const soonest = [...this.until].sort((a, b) => a[1] - b[1]).slice(0, excess);
    for (const [key] of soonest) this.until.delete(key);
  }
}
