/**
 * The connection caps of `spec/protocol-admin.md` §11.3, counted across both protocols
 * (socket.io sockets and MQTT connections): `max_connections_per_ip`,
 * `connections_per_minute_per_ip` (a bucket of n per 60 s, burst n) and Switchboard's
 * `max_connections_per_realm`. Refusals wait `CONNECTIONS_RETRY_S` (the per-minute bucket: until
 * its next token).
 */
import type { LimitsConfig } from './limits-config';
import { CONNECTIONS_RETRY_S, type Refusal } from './refusal';
import { BucketTable } from './token-bucket';

const bump = (m: Map<string, number>, k: string, d: number) => {
  const n = (m.get(k) ?? 0) + d;
  if (n > 0) m.set(k, n);
  else m.delete(k);
};

export class ConnectionCounts {
  private readonly perIp = new Map<string, number>();
  private readonly perRealm = new Map<string, number>();
  private readonly ipBuckets = new BucketTable();

  constructor(
    private readonly config: LimitsConfig,
    private readonly now: () => number,
  ) {}

  /** Counts an admitted connection from `ip` in `realm`. */
  add(ip: string, realm: string): void {
    bump(this.perIp, ip, 1);
    bump(this.perRealm, realm, 1);
  }

  /** Ends the count of a connection `add` counted. */
  remove(ip: string, realm: string): void {
    bump(this.perIp, ip, -1);
    bump(this.perRealm, realm, -1);
  }

  /**
   * Moves a counted connection to realm `to` (authentication changed its realm); returns the
   * refusal when `to` is at its cap (the connection stays counted there until removed).
   */
  moveRealm(from: string, to: string): Refusal | null {
    bump(this.perRealm, from, -1);
    const refusal = this.config.enabled ? this.realmRefusal(to) : null;
    bump(this.perRealm, to, 1);
    return refusal;
  }

  /** Whether one more connection from `ip` into `realm` is refused (takes a per-minute token). */
  refusal(ip: string, realm: string): Refusal | null {
    if (!this.config.enabled) return null;
    const maxPerIp = this.config.value('max_connections_per_ip');
    if (maxPerIp !== undefined && (this.perIp.get(ip) ?? 0) >= maxPerIp) {
      return { reason: 'max_connections_per_ip', retryAfter: CONNECTIONS_RETRY_S };
    }
    const perMinute = this.config.value('connections_per_minute_per_ip');
    if (perMinute !== undefined) {
      const r = this.ipBuckets.take(ip, 1, perMinute / 60, perMinute, this.now());
      if (!r.ok) return { reason: 'connections_per_minute_per_ip', retryAfter: r.retryAfter };
    }
    return this.realmRefusal(realm);
  }

  private realmRefusal(realm: string): Refusal | null {
    const max = this.config.value('max_connections_per_realm', realm);
    if (max !== undefined && (this.perRealm.get(realm) ?? 0) >= max) {
      return { reason: 'max_connections_per_realm', retryAfter: CONNECTIONS_RETRY_S };
    }
    return null;
  }
}
