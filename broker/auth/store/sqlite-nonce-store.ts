/**
 * Claimed manager-proof nonces in the auth store's `nonces` table (`spec/protocol-admin.md`
 * §6.4 note b): a proof captured before a restart cannot be replayed after it. Expired nonces
 * are pruned at most once a minute.
 */
import type Database from 'better-sqlite3';
import type { NonceStore } from '../nonce-store';

/** How often (ms) expired nonces are deleted at most. */
const PRUNE_INTERVAL_MS = 60_000;

export class SqliteNonceStore implements NonceStore {
  private readonly claimStmt: Database.Statement;
  private readonly pruneStmt: Database.Statement;
  private readonly liveStmt: Database.Statement<[number], { nonce: string; expires_at: number }>;
  private nextPruneAt = 0;

  constructor(db: Database.Database) {
    // One statement claims atomically: insert, or take over a row whose claim has expired.
    this.claimStmt = db.prepare(
      `INSERT INTO nonces (nonce, expires_at) VALUES (?, ?)
       ON CONFLICT(nonce) DO UPDATE SET expires_at = excluded.expires_at
       WHERE nonces.expires_at <= ?`,
    );
    this.pruneStmt = db.prepare('DELETE FROM nonces WHERE expires_at <= ?');
    this.liveStmt = db.prepare('SELECT nonce, expires_at FROM nonces WHERE expires_at > ?');
  }

  /** @see NonceStore.claim — `expiresAt` and `now` are epoch ms. */
  claim(nonce: string, expiresAt: number, now: number = Date.now()): boolean {
    if (now >= this.nextPruneAt) {
      this.pruneStmt.run(now);
      this.nextPruneAt = now + PRUNE_INTERVAL_MS;
    }
    return this.claimStmt.run(nonce, Math.trunc(expiresAt), now).changes === 1;
  }

  /** @see NonceStore.live */
  live(now: number = Date.now()): Array<[string, number]> {
    return this.liveStmt.all(now).map((r) => [r.nonce, r.expires_at]);
  }
}
