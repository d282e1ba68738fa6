/**
 * The push registry (`spec/protocol-extensions.md` §6.4): (realm, identity) → an ordered list
 * of endpoints, over the extension state's `push` map (so it is persisted in SQLite, purged by
 * `remove_realm` and moved by `rename_realm`: §10 with Note 6-F's Fix), plus the coalescing
 * timestamps of §6.6 (memory only).
 *
 * Re-registering (transport, token) refreshes `added_at` in place and overwrites `app_id` and
 * `env`; a new one is appended and, while the list is longer than the cap (10), the first entry
 * is evicted (registration order).
 */
import { ExtensionLimit } from '../../../shared/protocol-extensions';
import type { IdentityStateMap } from '../identity-state-map';
import type { PushEndpoint } from './push-types';

/**
 * What registration, the wake and the identity listing use: the per-node registry below
 * (`localPushDirectory`) or, clustered, the one shared in Redis (`push-redis-registry.ts`,
 * Note 6-G). Every method rejects when its store cannot be reached.
 */
export interface PushDirectory {
  /** §6.4's list of (realm, identity), in registration order. */
  endpoints(realm: string, identity: string): Promise<readonly PushEndpoint[]>;
  /** The identities of `realm` with endpoints (any order). */
  identities(realm: string): Promise<string[]>;
  /** When a wake was last let through the coalescing window (epoch ms); undefined: none known. */
  lastWakeAt(realm: string, identity: string): Promise<number | undefined>;
  register(
    realm: string,
    identity: string,
    entry: Omit<PushEndpoint, 'added_at' | 'last_ok'>,
    now?: number,
  ): Promise<number>;
  remove(realm: string, identity: string, transport: string, token: string): Promise<number>;
  markOk(
    realm: string,
    identity: string,
    transport: string,
    token: string,
    now?: number,
  ): Promise<void>;
  /** §6.6 step 3: whether this wake may be sent (the window is consumed when it may). */
  claimWindow(realm: string, identity: string): Promise<boolean>;
}

/** The per-node registry as a `PushDirectory` (a single node, or no Redis links). */
export function localPushDirectory(registry: PushRegistry): PushDirectory {
  return {
    endpoints: (realm, identity) => Promise.resolve(registry.endpoints(realm, identity)),
    identities: (realm) => Promise.resolve(registry.identities(realm)),
    lastWakeAt: (realm, identity) => Promise.resolve(registry.lastWakeAt(realm, identity)),
    register: (realm, identity, entry, now) => registry.register(realm, identity, entry, now),
    remove: (realm, identity, transport, token) =>
      registry.remove(realm, identity, transport, token),
    markOk: (realm, identity, transport, token, now) =>
      registry.markOk(realm, identity, transport, token, now),
    claimWindow: (realm, identity) => Promise.resolve(registry.claimWindow(realm, identity)),
  };
}

export class PushRegistry {
  /** (realm, identity) → when the last wake was recorded (epoch ms). */
  private readonly lastWake = new Map<string, Map<string, number>>();

  constructor(
    private readonly map: IdentityStateMap<PushEndpoint[]>,
    private readonly cap: number = ExtensionLimit.PUSH_MAX_TOKENS_PER_IDENTITY,
    private readonly windowMs: number = ExtensionLimit.PUSH_COALESCE_WINDOW_MS,
  ) {}

  endpoints(realm: string, identity: string): readonly PushEndpoint[] {
    return this.map.get(realm, identity) ?? [];
  }

  count(realm: string, identity: string): number {
    return this.endpoints(realm, identity).length;
  }

  /** The identities of `realm` with endpoints (a snapshot; `list_identities`). */
  identities(realm: string): string[] {
    return this.map.identities(realm);
  }

  /**
   * When a wake of (realm, identity) was last let through the coalescing window (epoch ms,
   * node-local, memory only); undefined when none is remembered.
   */
  lastWakeAt(realm: string, identity: string): number | undefined {
    return this.lastWake.get(realm)?.get(identity);
  }

  /** Every endpoint held on this node (the registrations gauge). */
  total(): number {
    let n = 0;
    for (const [realm, identity] of this.map.entries()) n += this.count(realm, identity);
    return n;
  }

  /** Adds or refreshes one endpoint; resolves with the count once committed. */
  async register(
    realm: string,
    identity: string,
    entry: Omit<PushEndpoint, 'added_at' | 'last_ok'>,
    now = Date.now(),
  ): Promise<number> {
    const list = [...this.endpoints(realm, identity)];
    const at = list.findIndex((e) => e.transport === entry.transport && e.token === entry.token);
    if (at >= 0) {
      list[at] = { ...list[at]!, app_id: entry.app_id, env: entry.env, added_at: now };
    } else {
      list.push({ ...entry, added_at: now, last_ok: null });
      while (list.length > this.cap) list.shift();
    }
    await this.map.set(realm, identity, list);
    return list.length;
  }

  /** Removes every endpoint with this exact (transport, token); resolves with how many. */
  async remove(realm: string, identity: string, transport: string, token: string): Promise<number> {
    const list = this.endpoints(realm, identity);
    const kept = list.filter((e) => !(e.transport === transport && e.token === token));
    const removed = list.length - kept.length;
    if (removed === 0) return 0;
    if (kept.length === 0) await this.map.delete(realm, identity);
    else await this.map.set(realm, identity, kept);
    return removed;
  }

  /** Records a success (`last_ok`) on the endpoint, if it is still registered. */
  async markOk(
    realm: string,
    identity: string,
    transport: string,
    token: string,
    now = Date.now(),
  ) {
    const list = this.endpoints(realm, identity);
    if (!list.some((e) => e.transport === transport && e.token === token)) return;
    const next = list.map((e) =>
      e.transport === transport && e.token === token ? { ...e, last_ok: now } : e,
    );
    await this.map.set(realm, identity, next);
  }

  /**
   * §6.6 step 3: whether a wake may be sent now, recording `now` when it may (the window is
   * consumed before anything is sent, whatever the outcome).
   */
  claimWindow(realm: string, identity: string, now = Date.now()): boolean {
    let identities = this.lastWake.get(realm);
    const last = identities?.get(identity);
    if (last !== undefined && now - last < this.windowMs) return false;
    if (!identities) this.lastWake.set(realm, (identities = new Map()));
    identities.set(identity, now);
    // Bounded: entries older than the window are useless, dropped when the realm grows.
    if (identities.size > 10_000) {
      for (const [k, at] of identities) if (now - at >= this.windowMs) identities.delete(k);
    }
    return true;
  }

  /** `remove_realm` / `rename_realm` for the coalescing timestamps (the map handles the rest). */
  dropRealm(realm: string): void {
    this.lastWake.delete(realm);
  }
}
