/**
 * The SQLite auth store (`spec/protocol-admin.md` §14), on better-sqlite3: realms, static
 * tokens and management tokens row by row, so a restart keeps what management commands and
 * approvals changed, and a removed realm stays removed.
 *
 * - File mode 0600 (tokens and keys are stored in clear), `journal_mode = WAL`, numbered
 *   migrations (`auth-store-migrations.ts`).
 * - Values are stable JSON (§6.2 rules) of the realm config / full token entry.
 * - Rows that do not parse or validate are skipped and logged (never with the raw token).
 * - `sync(config)` diffs against the last-synced snapshot and applies only changed rows
 *   (UPSERT / DELETE) in one `BEGIN IMMEDIATE` transaction; on error it rolls back, and the
 *   snapshot is unchanged so the next sync retries.
 * - `backup(dest)` runs `VACUUM INTO` (an online, consistent copy; `sqlite-backup.ts`).
 * - `nonces` persists claimed manager-proof nonces (§6.4 note b); `authorization_requests`
 *   the pending and recently decided authorization requests (issue 22 item 1).
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { stableJson } from '../../../shared/admin-signature';
import { SwitchboardError } from '../../../shared/error-catalogue';
import type { Logger } from '../../logging/logger';
import { migrate } from '../../storage/migrate';
import { backupError, vacuumInto } from '../../storage/sqlite-backup';
import {
  ManagementTokenSchema,
  RealmConfigSchema,
  RealmName,
  TokenEntrySchema,
  type AuthConfig,
  type ManagementToken,
  type RealmConfig,
  type TokenEntry,
} from '../auth-schema';
import { tokenHash } from '../auth-state';
import { AUTH_STORE_MIGRATIONS, AUTH_STORE_SCHEMA_VERSION } from './auth-store-migrations';
import { SqliteNonceStore } from './sqlite-nonce-store';
import { SqliteRequestStore } from './sqlite-request-store';
import { PRIVATE_DIR_MODE, preparePrivateDbFile } from '../../files/private-files';

/** What the store holds: the three row-backed parts of the `auth` block. */
export interface StoredAuth {
  realms: Record<string, RealmConfig>;
  tokens: TokenEntry[];
  management_tokens: ManagementToken[];
}

/** A stored realm's name: a valid realm name or `*`. */
const REALM_KEY = RealmName.or(z.literal('*'));

type Table = 'realms' | 'tokens' | 'management_tokens';
/** Key → stable JSON of the value, per table: what the database holds after the last sync. */
type Snapshot = Record<Table, Map<string, string>>;

const TABLES: Record<Table, { key: string; value: string }> = {
  realms: { key: 'name', value: 'config' },
  tokens: { key: 'token', value: 'entry' },
  management_tokens: { key: 'token', value: 'entry' },
};

/** Per-table rows of `config`, keyed like the store (realm name / raw token; first wins). */
function rowsOf(config: Readonly<StoredAuth>): Snapshot {
  const realms = new Map<string, string>();
  for (const [name, realm] of Object.entries(config.realms)) realms.set(name, stableJson(realm));
  const byToken = (list: readonly { token: string }[]) => {
    const map = new Map<string, string>();
    for (const e of list) if (!map.has(e.token)) map.set(e.token, stableJson(e));
    return map;
  };
  return {
    realms,
    tokens: byToken(config.tokens),
    management_tokens: byToken(config.management_tokens),
  };
}

export class SqliteAuthStore {
  readonly nonces: SqliteNonceStore;
  /** Authorization requests kept across restarts (`sqlite-request-store.ts`). */
  readonly requests: SqliteRequestStore;
  private readonly db: Database.Database;
  private snapshot: Snapshot = {
    realms: new Map(),
    tokens: new Map(),
    management_tokens: new Map(),
  };
  private closed = false;

  /**
   * Opens (creating with mode 0600) and migrates the store at `filename`.
   * @throws SwitchboardError `SWB_ERR_STORAGE` naming the file when it cannot be opened,
   *   is corrupt, or comes from a newer build.
   */
  constructor(
    readonly filename: string,
    private readonly logger?: Logger,
  ) {
    let db: Database.Database | null = null;
    try {
      mkdirSync(dirname(filename), { recursive: true, mode: PRIVATE_DIR_MODE });
      // SQLite gives the -wal and -shm files the database file's mode, so 0600 covers them;
      // an older version's companions are restricted too.
      for (const { path, was } of preparePrivateDbFile(filename)) {
        logger?.warn(
          { file: path, was, now: '600' },
          'auth store file was readable by other users; restricted to 0600',
        );
      }
      db = new Database(filename);
      db.pragma('busy_timeout = 1000');
      db.pragma('journal_mode = WAL');
      migrate(db, AUTH_STORE_SCHEMA_VERSION, AUTH_STORE_MIGRATIONS);
    } catch (err) {
      db?.close();
      throw new SwitchboardError(
        'SWB_ERR_STORAGE',
        `Cannot open auth store ${filename}: ${(err as Error).message}`,
      );
    }
    this.db = db;
    this.nonces = new SqliteNonceStore(db);
    this.requests = new SqliteRequestStore(db);
    this.snapshot = rowsOf(this.load());
  }

  /** Everything readable in the store; unreadable rows are skipped and logged. */
  load(): StoredAuth {
    const realms = Object.create(null) as Record<string, RealmConfig>;
    for (const row of this.rows('realms')) {
      const name = REALM_KEY.safeParse(row.key);
      const config = this.parse(row.value, RealmConfigSchema);
      if (!name.success || config === undefined) this.skip('realms', row.key);
      else realms[row.key] = config;
    }
    const list = <T extends { token: string }>(
      table: Table,
      schema: { safeParse(v: unknown): { success: boolean; data?: T } },
    ) => {
      const out: T[] = [];
      for (const row of this.rows(table)) {
        const entry = this.parse(row.value, schema);
        if (entry === undefined || entry.token !== row.key) this.skip(table, row.key, true);
        else out.push(entry);
      }
      return out;
    };
    return {
      realms,
      tokens: list<TokenEntry>('tokens', TokenEntrySchema),
      management_tokens: list<ManagementToken>('management_tokens', ManagementTokenSchema),
    };
  }

  /**
   * The import of §14: realms = `config`'s realms overlaid by stored realms (store wins per
   * name); tokens and management tokens = union keyed by raw token (stored entry wins).
   * Returns the merged `auth` block (to be committed by the caller, then `sync`ed).
   */
  importInto(config: Readonly<AuthConfig>): AuthConfig {
    return mergeStoreWins(config, this.load());
  }

  /**
   * Writes the rows of `config` that differ from the last sync, in one `BEGIN IMMEDIATE`
   * transaction. Errors are logged and rethrown; nothing is half-written.
   * @returns the number of rows written or deleted.
   */
  sync(config: Readonly<StoredAuth>): number {
    const next = rowsOf(config);
    let changed = 0;
    const apply = this.db.transaction(() => {
      for (const table of Object.keys(TABLES) as Table[]) {
        const { upsert, remove } = this.statements(table);
        const before = this.snapshot[table];
        for (const [k, v] of next[table]) {
          if (before.get(k) !== v) {
            upsert.run(k, v);
            changed++;
          }
        }
        for (const k of before.keys()) {
          if (!next[table].has(k)) {
            remove.run(k);
            changed++;
          }
        }
      }
    });
    try {
      apply.immediate();
    } catch (err) {
      this.logger?.error(
        { err: (err as Error).message, file: this.filename },
        'auth store write failed (rolled back)',
      );
      throw err;
    }
    this.snapshot = next;
    return changed;
  }

  /**
   * Online backup to the new file `dest` (`VACUUM INTO`: a consistent snapshot, mode 0600 from
   * the start, fsynced; `sqlite-backup.ts`), creating its directory (0700) when missing.
   * @returns the copy's size in bytes.
   * @throws SwitchboardError `SWB_ERR_CONFLICT` when `dest` exists, `SWB_ERR_STORAGE` when the
   *   copy fails (nothing is left at `dest` then).
   */
  backup(dest: string): number {
    mkdirSync(dirname(dest), { recursive: true, mode: PRIVATE_DIR_MODE });
    try {
      return vacuumInto(this.db, dest);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const reason = (err as Error).message;
      throw backupError(`auth store ${this.filename}`, dest, reason, code as string | undefined);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private readonly prepared = new Map<
    Table,
    { upsert: Database.Statement; remove: Database.Statement }
  >();

  private statements(table: Table) {
    let s = this.prepared.get(table);
    if (!s) {
      const { key, value } = TABLES[table];
      s = {
        upsert: this.db.prepare(
          `INSERT INTO ${table} (${key}, ${value}) VALUES (?, ?)
           ON CONFLICT(${key}) DO UPDATE SET ${value} = excluded.${value}`,
        ),
        remove: this.db.prepare(`DELETE FROM ${table} WHERE ${key} = ?`),
      };
      this.prepared.set(table, s);
    }
    return s;
  }

  private rows(table: Table): Array<{ key: string; value: string }> {
    const { key, value } = TABLES[table];
    return this.db
      .prepare(`SELECT ${key} AS key, ${value} AS value FROM ${table} ORDER BY rowid`)
      .all() as Array<{ key: string; value: string }>;
  }

  private parse<T>(
    text: string,
    schema: { safeParse(v: unknown): { success: boolean; data?: T } },
  ) {
    try {
      const result = schema.safeParse(JSON.parse(text));
      return result.success ? result.data : undefined;
    } catch {
      return undefined;
    }
  }

  private skip(table: Table, key: string, secret = false): void {
    // Token keys are secrets: log their hash prefix, never the token.
    const id = secret ? { token_hash: tokenHash(key).slice(0, 12) } : { name: key };
    this.logger?.warn({ table, ...id }, 'unreadable auth store row skipped');
  }
}

/** Union keyed by raw token; entries of `winner` replace those of `base` with the same token. */
function unionByToken<T extends { token: string }>(base: readonly T[], winner: readonly T[]): T[] {
  const win = new Set(winner.map((e) => e.token));
  return [...winner, ...base.filter((e) => !win.has(e.token))];
}

/**
 * `base` with the row-backed parts of `winner` laid over it: realms overlaid per name, tokens
 * and management tokens unioned by raw token, `winner` winning both ways. Used for the store
 * import (winner = store) and for reloads with the store active (winner = live config: the file
 * is a one-way inbox, §14).
 */
export function mergeStoreWins(
  base: Readonly<AuthConfig>,
  winner: Readonly<StoredAuth>,
): AuthConfig {
  const realms = Object.assign(
    Object.create(null) as Record<string, RealmConfig>,
    base.realms,
    winner.realms,
  );
  return {
    ...(structuredClone(base) as AuthConfig),
    realms: structuredClone(realms),
    tokens: structuredClone(unionByToken(base.tokens, winner.tokens)),
    management_tokens: structuredClone(
      unionByToken(base.management_tokens, winner.management_tokens),
    ),
  };
}
