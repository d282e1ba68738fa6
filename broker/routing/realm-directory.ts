/**
 * All realms of one broker, created on first use (`spec/protocol-core.md` §1.4).
 */
import {
  RealmRegistry,
  type InterestKind,
  type InterestListener,
  type PresenceListener,
} from './realm-registry';

/**
 * Told of a realm's interest transitions (see `InterestKind`), and with kind `realm` (value
 * `''`) when a realm's whole state is dropped (`delete`, `dropIfEmpty`). Only the registry in
 * use under a name reports: one already deleted (still held by a late handler) is ignored.
 */
export type DirectoryInterestListener = (
  realm: string,
  kind: InterestKind | 'realm',
  value: string,
) => void;

export class RealmDirectory {
  private readonly realms = new Map<string, RealmRegistry>();
  /** Told when names come online and go offline in any realm (set by createBroker). */
  presence: PresenceListener | null = null;
  /** Told of interest transitions in any realm (the cluster's interest table, issue 21). */
  interest: DirectoryInterestListener | null = null;
  private readonly announce: PresenceListener = (realm, name, kind) =>
    this.presence?.(realm, name, kind);
  private readonly forward: InterestListener = (registry, kind, value) => {
    if (this.interest !== null && this.realms.get(registry.name) === registry) {
      this.interest(registry.name, kind, value);
    }
  };

  /** The realm's registry, created when `create` is set. */
  get(name: string, create: true): RealmRegistry;
  get(name: string, create?: boolean): RealmRegistry | undefined;
  get(name: string, create = false): RealmRegistry | undefined {
    let realm = this.realms.get(name);
    if (!realm && create) {
      realm = new RealmRegistry(name, this.announce, this.forward);
      this.realms.set(name, realm);
    }
    return realm;
  }

  values(): IterableIterator<RealmRegistry> {
    return this.realms.values();
  }

  /** Forgets a realm's whole runtime state (realm disposal, `spec/protocol-admin.md` §9.4). */
  delete(name: string): boolean {
    const deleted = this.realms.delete(name);
    if (deleted) this.interest?.(name, 'realm', '');
    return deleted;
  }

  /** Drops a realm that holds nothing, so idle realms do not accumulate. */
  dropIfEmpty(name: string): void {
    if (this.realms.get(name)?.isEmpty) this.delete(name);
  }
}
