/**
 * Replay protection for manager proofs: each verified nonce is claimed until it can no longer
 * verify (twice the ±5 min skew window), and a second claim of the same nonce fails.
 *
 * Source: `spec/protocol-admin.md` §6.3 step 4, §6.4 and its note (prune; persist across
 * restarts — the SQLite auth store implements this interface on its `nonces` table).
 */
import { PROOF_WINDOW_MS } from '../../shared/admin-signature';

/** How long a claimed nonce is kept: 2 × the skew window (10 min), as the reference's Redis PX. */
export const NONCE_TTL_MS = 2 * PROOF_WINDOW_MS;

export interface NonceStore {
  /**
   * Claims `nonce` until `expiresAt` (epoch ms). Returns false when it is already claimed and
   * not yet expired. Implementations prune expired nonces themselves.
   */
  claim(nonce: string, expiresAt: number): boolean;
  /**
   * The nonces claimed and not yet expired at `now`, with their expiry (epoch ms). A clustered
   * node gives them back to Redis when Redis comes back (it may have restarted empty or failed
   * over to a replica that missed them: `SharedNonces`). Optional for embedders' own stores.
   */
  live?(now?: number): Array<[nonce: string, expiresAt: number]>;
}

/** In-memory nonces, pruned as they expire (lost on restart: see the SQLite auth store). */
export class MemoryNonceStore implements NonceStore {
  private readonly used = new Map<string, number>();
  private nextPruneAt = 0;

  claim(nonce: string, expiresAt: number, now: number = Date.now()): boolean {
    if (now >= this.nextPruneAt) {
      for (const [n, exp] of this.used) if (exp <= now) this.used.delete(n);
      this.nextPruneAt = now + 60_000;
    }
    const existing = this.used.get(nonce);
    if (existing !== undefined && existing > now) return false;
    this.used.set(nonce, expiresAt);
    return true;
  }

  live(now: number = Date.now()): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (const [n, exp] of this.used) if (exp > now) out.push([n, exp]);
    return out;
  }

  get size(): number {
    return this.used.size;
  }
}
