/**
 * One family's per-identity state, kept per realm (`spec/protocol-extensions.md` §1.5: every
 * directory and registry is scoped to the socket's realm), in memory and, when the message
 * store has the `identityState` facet (SQLite), written through so it survives a restart.
 *
 * `Map`s throughout, never plain objects, so prototype-named identities (`__proto__`,
 * `constructor`) are ordinary keys (Note 2-B). Values are validated with the family's zod
 * schema when loaded: a row that does not parse is skipped and logged (kind and realm only).
 */
import type { ZodType } from 'zod';
import type { Logger } from '../logging/logger';
import type { IdentityStateRow, IdentityStateStore } from '../storage/identity-state';

export class IdentityStateMap<T> {
  private readonly realms = new Map<string, Map<string, T>>();

  constructor(
    /** The `kind` column of this family's rows. */
    readonly kind: string,
    private readonly schema: ZodType<T>,
    private readonly store: IdentityStateStore | undefined,
    private readonly logger: Logger,
  ) {}

  get(realm: string, identity: string): T | undefined {
    return this.realms.get(realm)?.get(identity);
  }

  /** How many identities of `realm` hold state of this kind. */
  size(realm: string): number {
    return this.realms.get(realm)?.size ?? 0;
  }

  /**
   * Sets the value in memory at once, then writes it through; the promise resolves once it is
   * committed (at once without a persistent store) and rejects when the commit failed (the
   * value stays in memory: it is lost at the next restart only).
   */
  set(realm: string, identity: string, value: T): Promise<void> {
    let identities = this.realms.get(realm);
    if (!identities) this.realms.set(realm, (identities = new Map()));
    identities.set(identity, value);
    if (!this.store) return Promise.resolve();
    return this.store.write({
      op: 'put',
      realm,
      identity,
      kind: this.kind,
      value: JSON.stringify(value),
    });
  }

  /** How many identities of `realm` hold state of this kind. */
  count(realm: string): number {
    return this.realms.get(realm)?.size ?? 0;
  }

  /** The identities of `realm` holding state of this kind (a snapshot, insertion order). */
  identities(realm: string): string[] {
    return [...(this.realms.get(realm)?.keys() ?? [])];
  }

  /** Every (realm, identity) holding state of this kind (a snapshot). */
  entries(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const [realm, identities] of this.realms) {
      for (const identity of identities.keys()) out.push([realm, identity]);
    }
    return out;
  }

  /** Removes the value (memory at once, then the store); resolves once committed. */
  delete(realm: string, identity: string): Promise<void> {
    const identities = this.realms.get(realm);
    if (!identities?.delete(identity)) return Promise.resolve();
    if (identities.size === 0) this.realms.delete(realm);
    if (!this.store) return Promise.resolve();
    return this.store.write({ op: 'delete', realm, identity, kind: this.kind });
  }

  /** Adopts one stored row of this kind at start-up; returns whether it was valid. */
  adopt(row: IdentityStateRow): boolean {
    let value: unknown;
    try {
      value = JSON.parse(row.value) as unknown;
    } catch {
      value = undefined;
    }
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) {
      this.logger.warn({ kind: this.kind, realm: row.realm }, 'stored identity state skipped');
      return false;
    }
    let identities = this.realms.get(row.realm);
    if (!identities) this.realms.set(row.realm, (identities = new Map()));
    identities.set(row.identity, parsed.data);
    return true;
  }

  /** Drops `realm`'s state from memory (the store deletes its rows in `purgeRealm`). */
  purgeRealm(realm: string): void {
    this.realms.delete(realm);
  }

  /**
   * Moves `from`'s state to `to` in memory when `move`, and drops `from` in every case (§2.4
   * "Realm commands"; the store moves its rows in `renameRealm`).
   */
  renameRealm(from: string, to: string, move: boolean): void {
    const moving = this.realms.get(from);
    this.realms.delete(from);
    if (moving && move) this.realms.set(to, moving);
  }
}
