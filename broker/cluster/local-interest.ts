/**
 * This node's interest (issue 21): the fields of `interest-fields.ts` its routing state implies,
 * kept as the realm registries and the Router's taps change, and handed out as deltas.
 *
 * Derived exactly as permissively as local routing (`spec/protocol-core.md` §7, §11–§13): every
 * key with a record (any mode, group records and offline durable consumers included: they stay
 * in the registry), every topic-mode key with its pattern, every group some record names,
 * whether a name of the realm is online, and the taps' realms. Hooks fire on counter
 * transitions only (`RealmRegistry`'s `InterestListener`, `Router.onTapInterestChange`); a
 * hook just marks its field dirty, and `take()` reads the truth from the registry for each
 * dirty field, so a burst of changes to one field costs one comparison and a hook fired by a
 * transition that was undone in the same burst publishes nothing.
 */
import type { RealmDirectory } from '../routing/realm-directory';
import type { InterestKind } from '../routing/realm-registry';
import type { Router } from '../routing/router';
import {
  TAP_ALL_FIELD,
  interestField,
  parseField,
  type FieldKind,
  type ParsedField,
} from './interest-fields';

/** Changed fields: `add` as `[field, value]` (new or changed value), `del` as fields. */
export interface InterestDelta {
  add: [string, string][];
  del: string[];
}

const KIND: Record<InterestKind, FieldKind> = { key: 'k', topic: 't', group: 'g', live: 'l' };

export class LocalInterest {
  /** The fields handed out so far (by `take`/`takeAll`), with their values. */
  private readonly taken = new Map<string, string>();
  /** Realm → its fields in `taken` (a dropped realm re-checks them all). */
  private readonly takenByRealm = new Map<string, Set<string>>();
  /** Fields to re-check at the next `take`. */
  private readonly dirty = new Map<string, ParsedField>();
  private tapsDirty = false;
  private stopTaps: (() => void) | null = null;

  /** `changed` is called (synchronously) on every hook; the caller coalesces. */
  constructor(
    private readonly realms: RealmDirectory,
    private readonly router: Router,
    private readonly changed: () => void,
  ) {}

  /** Starts following the registries and taps (takes the directory's `interest` slot). */
  attach(): void {
    this.realms.interest = this.onRealm;
    this.stopTaps = this.router.onTapInterestChange(this.onTaps);
  }

  detach(): void {
    if (this.realms.interest === this.onRealm) this.realms.interest = null;
    this.stopTaps?.();
    this.stopTaps = null;
  }

  /** Whether some change waits for `take`. */
  get pending(): boolean {
    return this.dirty.size > 0 || this.tapsDirty;
  }

  /** The whole interest the state implies now (not touching what was taken). */
  compute(): Map<string, string> {
    const out = new Map<string, string>();
    for (const realm of this.realms.values()) {
      const name = realm.name;
      for (const key of realm.subscriptions.keys()) out.set(interestField('k', name, key), '1');
      for (const [key, { pattern }] of realm.topicEntries()) {
        out.set(interestField('t', name, key), pattern);
      }
      for (const group of realm.groupNames()) out.set(interestField('g', name, group), '1');
      if (realm.liveCount > 0) out.set(interestField('l', name), '1');
    }
    for (const field of this.tapFields()) out.set(field, '1');
    return out;
  }

  /** Everything, as a fresh start: what was taken becomes `compute()`, nothing stays dirty. */
  takeAll(): Map<string, string> {
    const all = this.compute();
    this.taken.clear();
    this.takenByRealm.clear();
    this.dirty.clear();
    this.tapsDirty = false;
    for (const [field, value] of all) this.remember(field, parseField(field)!.realm, value);
    return all;
  }

  /** The changes since the last take (possibly none). */
  take(): InterestDelta {
    const delta: InterestDelta = { add: [], del: [] };
    for (const [field, parsed] of this.dirty)
      this.settle(field, parsed.realm, this.truth(parsed), delta);
    this.dirty.clear();
    if (this.tapsDirty) {
      this.tapsDirty = false;
      const wanted = new Set(this.tapFields());
      for (const field of [...(this.takenByRealm.get('') ?? []), ...this.tapRealmFields()]) {
        if (!wanted.has(field)) this.settle(field, parseField(field)!.realm, null, delta);
      }
      for (const field of wanted) this.settle(field, parseField(field)!.realm, '1', delta);
    }
    return delta;
  }

  private settle(field: string, realm: string, value: string | null, delta: InterestDelta): void {
    const was = this.taken.get(field);
    if (value === null) {
      if (was === undefined) return;
      this.taken.delete(field);
      const fields = this.takenByRealm.get(realm);
      fields?.delete(field);
      if (fields?.size === 0) this.takenByRealm.delete(realm);
      delta.del.push(field);
    } else if (value !== was) {
      this.remember(field, realm, value);
      delta.add.push([field, value]);
    }
  }

  private remember(field: string, realm: string, value: string): void {
    this.taken.set(field, value);
    let fields = this.takenByRealm.get(realm);
    if (!fields) {
      fields = new Set();
      this.takenByRealm.set(realm, fields);
    }
    fields.add(field);
  }

  /** The value `parsed` has in the current state, or null when it is not wanted. */
  private truth(parsed: ParsedField): string | null {
    const realm = this.realms.get(parsed.realm);
    if (!realm) return null;
    switch (parsed.kind) {
      case 'k':
        return realm.subscriptions.has(parsed.value) ? '1' : null;
      case 't':
        return realm.topicPattern(parsed.value);
      case 'g':
        return realm.hasGroup(parsed.value) ? '1' : null;
      case 'l':
        return realm.liveCount > 0 ? '1' : null;
      default:
        // Tap fields are settled by `take` from `tapInterest()`, never marked dirty.
        return this.taken.get(interestField(parsed.kind, parsed.realm, parsed.value)) ?? null;
    }
  }

  /** The `a`/`A` fields the taps imply now. */
  private tapFields(): string[] {
    const wanted = this.router.tapInterest();
    if (wanted === 'all') return [TAP_ALL_FIELD];
    return [...wanted].map((realm) => interestField('a', realm));
  }

  /** The `a` fields taken (across realms). */
  private tapRealmFields(): string[] {
    const out: string[] = [];
    for (const field of this.taken.keys()) if (field.startsWith('a:')) out.push(field);
    return out;
  }

  private readonly onRealm = (realm: string, kind: InterestKind | 'realm', value: string) => {
    if (kind === 'realm') {
      // The realm's registry is gone (or replaced): every field it had is re-checked.
      for (const field of this.takenByRealm.get(realm) ?? []) {
        const parsed = parseField(field);
        if (parsed && parsed.kind !== 'a') this.dirty.set(field, parsed);
      }
    } else {
      const fieldKind = KIND[kind];
      this.dirty.set(interestField(fieldKind, realm, value), { kind: fieldKind, realm, value });
    }
    this.changed();
  };

  private readonly onTaps = (): void => {
    this.tapsDirty = true;
    this.changed();
  };
}
