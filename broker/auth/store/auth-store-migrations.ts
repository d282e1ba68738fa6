/**
 * Numbered schema migrations of the SQLite auth store (`spec/protocol-admin.md` §14), applied
 * by the shared `migrate()` (one transaction each, `PRAGMA user_version`). A migration is never
 * edited once released: add a new one. Each has a test in
 * `test/broker/auth/auth-store-migrations.test.ts`.
 */
import type { Migration } from '../../storage/migrations/index';

export const AUTH_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'realms, tokens and management_tokens keyed by name / raw token (tyo-mq §14)',
    sql: `
      CREATE TABLE IF NOT EXISTS realms (name TEXT PRIMARY KEY, config TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, entry TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS management_tokens (token TEXT PRIMARY KEY, entry TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    description:
      'claimed manager-proof nonces with expiry (epoch ms), so replays fail after a restart',
    sql: `
      CREATE TABLE IF NOT EXISTS nonces (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS idx_nonces_expires ON nonces (expires_at);
    `,
  },
  {
    version: 3,
    description:
      'authorization requests (pending and recently decided) with expiry (epoch ms), so a ' +
      'restart keeps them and a returning requester learns the decision',
    sql: `
      CREATE TABLE IF NOT EXISTS authorization_requests (
        request_id TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL,
        record TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS idx_authreqs_expires ON authorization_requests (expires_at);
    `,
  },
];

export const AUTH_STORE_SCHEMA_VERSION = AUTH_STORE_MIGRATIONS.length;
