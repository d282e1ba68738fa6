/**
 * Authorization requests in the SQLite auth store's `authorization_requests` table (migration
 * 3; `request-store.ts`). One row per request: its id, expiry (epoch ms) and the whole record
 * as JSON — the raw `client_token` included, like the `tokens` table (the file is mode 0600).
 * Rows that do not parse are skipped (and deleted); expired rows are deleted by `load` and at
 * most once a minute by `put`.
 */
import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { AuthorizationRequest } from '../authorization-request-types';
import type { RequestStore } from '../request-store';

/** How often (ms) at most expired rows are deleted on a write. */
const PRUNE_INTERVAL_MS = 60_000;

const StoredRequest = z
  .object({
    request_id: z.string().min(1),
    status: z.enum(['pending', 'approved', 'rejected', 'superseded']),
    realm: z.string(),
    role: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    client_token: z.string(),
    client_token_hash: z.string(),
    challenge_response: z.unknown(),
    created_at: z.string(),
    decided_at: z.string().nullable(),
    decision_reason: z.string().nullable(),
    socket_id: z.string(),
    node_id: z.string().nullable(),
    ip: z.string().optional(),
    expiresAt: z.number(),
  })
  .passthrough();

export class SqliteRequestStore implements RequestStore {
  private readonly putStmt: Database.Statement;
  private readonly removeStmt: Database.Statement;
  private readonly pruneStmt: Database.Statement;
  private readonly loadStmt: Database.Statement<[number], { request_id: string; record: string }>;
  private nextPruneAt = 0;

  constructor(db: Database.Database) {
    this.putStmt = db.prepare(
      `INSERT INTO authorization_requests (request_id, expires_at, record) VALUES (?, ?, ?)
       ON CONFLICT(request_id) DO UPDATE SET expires_at = excluded.expires_at,
         record = excluded.record`,
    );
    this.removeStmt = db.prepare('DELETE FROM authorization_requests WHERE request_id = ?');
    this.pruneStmt = db.prepare('DELETE FROM authorization_requests WHERE expires_at <= ?');
    this.loadStmt = db.prepare(
      `SELECT request_id, record FROM authorization_requests WHERE expires_at > ?
       ORDER BY rowid`,
    );
  }

  load(now: number): AuthorizationRequest[] {
    this.pruneStmt.run(now);
    const out: AuthorizationRequest[] = [];
    for (const row of this.loadStmt.all(now)) {
      let value: unknown = null;
      try {
        value = JSON.parse(row.record);
      } catch {
        // Unreadable: dropped below.
      }
      const parsed = StoredRequest.safeParse(value);
      if (!parsed.success || parsed.data.request_id !== row.request_id) {
        this.removeStmt.run(row.request_id);
        continue;
      }
      out.push({ ...parsed.data, challenge_response: parsed.data.challenge_response ?? null });
    }
    return out;
  }

  put(r: Readonly<AuthorizationRequest>): void {
    const now = Date.now();
    if (now >= this.nextPruneAt) {
      this.pruneStmt.run(now);
      this.nextPruneAt = now + PRUNE_INTERVAL_MS;
    }
    this.putStmt.run(r.request_id, Math.trunc(r.expiresAt), JSON.stringify(r));
  }

  remove(id: string): void {
    this.removeStmt.run(id);
  }
}
