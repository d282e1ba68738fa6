/**
 * All realms of one broker, created on first use (`spec/protocol-core.md` §1.4).
 */
import { RealmRegistry, type PresenceListener } from './realm-registry';

export class RealmDirectory {
  private readonly realms = new Map<string, RealmRegistry>();
  /** Told when names come online and go offline in any realm (set by createBroker). */
  presence: PresenceListener | null = null;
  private readonly announce: PresenceListener = (realm, name, kind) =>
    this.presence?.(realm, name, kind);

  /** The realm's registry, created when `create` is set. */
  get(name: string, create: true): RealmRegistry;
  get(name: string, create?: boolean): RealmRegistry | undefined;
  get(name: string, create = false): RealmRegistry | undefined {
    let realm = this.realms.get(name);
    if (!realm && create) {
      realm = new RealmRegistry(name, this.announce);
      this.realms.set(name, realm);
    }
    return realm;
  }

  values(): IterableIterator<RealmRegistry> {
    return this.realms.values();
  }

  /** Forgets a realm's whole runtime state (realm disposal, `spec/protocol-admin.md` §9.4). */
  delete(name: string): boolean {
    return this.realms.delete(name);
  }

  /** Drops a realm that holds nothing, so idle realms do not accumulate. */
  dropIfEmpty(name: string): void {
    if (this.realms.get(name)?.isEmpty) this.realms.delete(name);
  }
}
