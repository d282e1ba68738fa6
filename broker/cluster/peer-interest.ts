/**
 * One peer's interest as this node knows it (issue 21): the fields of its hash
 * (`interest-fields.ts`) indexed for matching, at a known `(epoch, rev)`.
 *
 * `matches` is at least as permissive as the peer's local routing of the message
 * (`spec/protocol-core.md` §7, §11–§13; `broker/routing/router.ts`, `broadcast.ts`):
 * - non-broadcast: a tap of the peer wants everything or the realm; or, in the message's realm
 *   or in `*` (the admin realm sees every realm, §7 step 3), a key equal to k1, k2 or k3, or a
 *   topic pattern matching the event (TopicTrie rules, §11). The producer check of step 4 and
 *   the skip of k1–k3 in step 5 only narrow local routing, so they are left out here;
 * - realm broadcast (and a group broadcast without a group, §13.2): a name of the realm is
 *   online on the peer (broadcasts reach the realm's live sockets only, not `*`, §13.1);
 * - group broadcast: the same, and some record of the realm names the group.
 */
import {
  Protocol,
  allEventsKey,
  anyProducerKey,
  subscriptionKey,
} from '../../shared/protocol-events';
import type { ProducedMessage } from '../routing/produced-message';
import { TopicTrie } from '../routing/topic-trie';
import { EPOCH_FIELD, REV_FIELD, parseField } from './interest-fields';

/** §7 step 2's candidate keys of a message, computed once for every peer. */
export interface CandidateKeys {
  k1: string;
  k2: string;
  k3: string;
}

export function candidateKeys(msg: ProducedMessage): CandidateKeys {
  return {
    k1: subscriptionKey(msg.from, msg.event),
    k2: allEventsKey(msg.from),
    k3: anyProducerKey(msg.event),
  };
}

class RealmInterest {
  readonly keys = new Set<string>();
  readonly topics = new TopicTrie();
  /** Topic key → its pattern (to take it out of the trie). */
  readonly patternOf = new Map<string, string>();
  readonly groups = new Set<string>();
  live = false;
  tap = false;

  get empty(): boolean {
    return (
      this.keys.size === 0 &&
      this.patternOf.size === 0 &&
      this.groups.size === 0 &&
      !this.live &&
      !this.tap
    );
  }

  wants(event: string, keys: CandidateKeys): boolean {
    return (
      this.tap ||
      this.keys.has(keys.k1) ||
      this.keys.has(keys.k2) ||
      this.keys.has(keys.k3) ||
      this.topics.matchesAny(event)
    );
  }
}

export class PeerInterest {
  private readonly realms = new Map<string, RealmInterest>();
  private tapAll = false;
  /** Interest fields held (for stats and tests). */
  size = 0;

  constructor(
    /** The writing process's id: a new one means the peer restarted (revisions start over). */
    readonly epoch: string,
    /** The revision this index is at. */
    public rev: number,
  ) {}

  /** An index of a whole hash (HGETALL); null when it has no `epoch`/`rev` (never written). */
  static fromHash(hash: Record<string, string>): PeerInterest | null {
    const epoch = hash[EPOCH_FIELD];
    const rev = Number(hash[REV_FIELD]);
    if (epoch === undefined || !Number.isSafeInteger(rev)) return null;
    const interest = new PeerInterest(epoch, rev);
    for (const [field, value] of Object.entries(hash)) interest.set(field, value);
    return interest;
  }

  /** Adds or updates a field; unknown fields are ignored (a newer node may write more). */
  set(field: string, value: string): void {
    const parsed = parseField(field);
    if (!parsed) return;
    if (parsed.kind === 'A') {
      if (!this.tapAll) this.size++;
      this.tapAll = true;
      return;
    }
    let realm = this.realms.get(parsed.realm);
    if (!realm) {
      realm = new RealmInterest();
      this.realms.set(parsed.realm, realm);
    }
    const before = this.count(realm);
    switch (parsed.kind) {
      case 'k':
        realm.keys.add(parsed.value);
        break;
      case 't': {
        const old = realm.patternOf.get(parsed.value);
        if (old === value) break;
        if (old !== undefined) realm.topics.remove(old, parsed.value);
        realm.patternOf.set(parsed.value, value);
        realm.topics.add(value, parsed.value);
        break;
      }
      case 'g':
        realm.groups.add(parsed.value);
        break;
      case 'l':
        realm.live = true;
        break;
      case 'a':
        realm.tap = true;
        break;
    }
    this.size += this.count(realm) - before;
  }

  /** Removes a field; unknown fields are ignored. */
  unset(field: string): void {
    const parsed = parseField(field);
    if (!parsed) return;
    if (parsed.kind === 'A') {
      if (this.tapAll) this.size--;
      this.tapAll = false;
      return;
    }
    const realm = this.realms.get(parsed.realm);
    if (!realm) return;
    const before = this.count(realm);
    switch (parsed.kind) {
      case 'k':
        realm.keys.delete(parsed.value);
        break;
      case 't': {
        const old = realm.patternOf.get(parsed.value);
        if (old === undefined) break;
        realm.topics.remove(old, parsed.value);
        realm.patternOf.delete(parsed.value);
        break;
      }
      case 'g':
        realm.groups.delete(parsed.value);
        break;
      case 'l':
        realm.live = false;
        break;
      case 'a':
        realm.tap = false;
        break;
    }
    this.size += this.count(realm) - before;
    if (realm.empty) this.realms.delete(parsed.realm);
  }

  /** Whether the peer's routing could deliver `msg` (see the module comment). */
  matches(msg: ProducedMessage, keys: CandidateKeys): boolean {
    if (msg.broadcast !== null) {
      const realm = this.realms.get(msg.realm);
      if (!realm?.live) return false;
      return msg.broadcast !== 'group' || msg.group === null || realm.groups.has(msg.group);
    }
    if (this.tapAll) return true;
    if (this.realms.get(msg.realm)?.wants(msg.event, keys)) return true;
    return (
      msg.realm !== Protocol.ADMIN_REALM &&
      this.realms.get(Protocol.ADMIN_REALM)?.wants(msg.event, keys) === true
    );
  }

  private count(realm: RealmInterest): number {
    return realm.keys.size + realm.patternOf.size + realm.groups.size + +realm.live + +realm.tap;
  }
}
