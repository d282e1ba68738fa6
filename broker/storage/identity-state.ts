/**
 * Per-identity state of the tyo-mq 1.1 extension families in the SQLite message store
 * (migration 6): the E2EE key directory's lists and the principal pins of Note 1.5-A, so they
 * survive a broker restart (`spec/protocol-extensions.md` §2.3, §10; docs/e2ee.md). Later
 * families (prekeys, UAKs, push endpoints) add their own `kind`s to the same table.
 *
 * The store only keeps text: each family encodes its own value (JSON) and owns its meaning.
 * Rows are keyed `(realm, identity, kind)`. `remove_realm` deletes a realm's rows with its
 * other data (`purgeRealm`); `rename_realm` moves them when the target has none and drops the
 * old name's rows in every case (§10's Fix: no state is left under a name nobody can reach).
 * Writes go through the store's group commit, like every other write.
 */
import type { Database, Statement } from 'better-sqlite3';

/** One stored row: `value` is the family's own encoding (JSON). */
export interface IdentityStateRow {
  realm: string;
  identity: string;
  /** Which family's state: `keys` (§2), `pin` (Note 1.5-A), … */
  kind: string;
  value: string;
}

/** One write: an upsert, or a delete of one row. */
export type IdentityStateWrite =
  | ({ op: 'put' } & IdentityStateRow)
  | { op: 'delete'; realm: string; identity: string; kind: string };

/**
 * The identity-state facet of a store that keeps it (the SQLite store). Writes resolve once
 * committed; a failed commit rejects. Without the facet the state lives in memory only, as in
 * the reference.
 */
export interface IdentityStateStore {
  /** Every row, in insertion order. */
  load(): Promise<IdentityStateRow[]>;
  write(change: IdentityStateWrite): Promise<void>;
}

/** The prepared statements of `identity_state` (run inside the storage worker). */
export class IdentityStatements {
  private readonly put: Statement<[IdentityStateRow]>;
  private readonly remove: Statement<[string, string, string]>;
  private readonly all: Statement<[], IdentityStateRow>;
  private readonly purge: Statement<[string]>;
  private readonly holds: Statement<[string], { n: number }>;
  private readonly rename: Statement<[string, string]>;

  constructor(db: Database) {
    this.put = db.prepare(
      `INSERT INTO identity_state (realm, identity, kind, value)
       VALUES (@realm, @identity, @kind, @value)
       ON CONFLICT (realm, identity, kind) DO UPDATE SET value = excluded.value`,
    );
    this.remove = db.prepare(
      'DELETE FROM identity_state WHERE realm = ? AND identity = ? AND kind = ?',
    );
    this.all = db.prepare('SELECT realm, identity, kind, value FROM identity_state ORDER BY rowid');
    this.purge = db.prepare('DELETE FROM identity_state WHERE realm = ?');
    this.holds = db.prepare('SELECT COUNT(*) AS n FROM identity_state WHERE realm = ?');
    this.rename = db.prepare('UPDATE identity_state SET realm = ? WHERE realm = ?');
  }

  write(change: IdentityStateWrite): void {
    if (change.op === 'put') {
      const { realm, identity, kind, value } = change;
      this.put.run({ realm, identity, kind, value });
    } else {
      this.remove.run(change.realm, change.identity, change.kind);
    }
  }

  load(): IdentityStateRow[] {
    return this.all.all();
  }

  /** Deletes `realm`'s rows; returns how many. */
  purgeRealm(realm: string): number {
    return this.purge.run(realm).changes;
  }

  /**
   * Moves `from`'s rows to `to` when `to` has none; otherwise drops them (§2.4 "Realm
   * commands"). Returns how many moved. Call in a transaction.
   */
  renameRealm(from: string, to: string): number {
    if ((this.holds.get(to)?.n ?? 0) > 0) {
      this.purge.run(from);
      return 0;
    }
    return this.rename.run(to, from).changes;
  }
}
