/**
 * The data half of `rename_realm` (docs/management.md; issue 20 defect 3): everything the
 * broker holds under the old name moves to the new one, so the renamed tenant keeps it and a
 * realm later created with the old name starts empty. In order:
 *
 * 1. the realm's MQTT clients are closed (no wills) and awaited, so nothing more is stored
 *    under the old names (the socket.io sockets were closed by the command already);
 * 2. the store moves queued copies, DLQ entries, durable subscriptions and — when it keeps MQTT
 *    state (SQLite) — MQTT retained messages and sessions, in one transaction / Lua script; it
 *    refuses (null, nothing changed) when the new name already holds data;
 * 3. the runtime follows: aedes' working copy of the MQTT state, the queue ledger's counts,
 *    copies awaiting an ACK, the realm registry (rebuilt from the moved durable subscriptions:
 *    the realm's consumers were disconnected) and its pending authorization requests (dropped:
 *    their requesters were disconnected and would be granted the old name).
 *
 * In a cluster every other node runs the same steps on its own data when the rename's notice
 * reaches it (cluster/realm-renames.ts), step 2 included unless its store is the one the
 * originating node already moved (`storeMoved`: the same Redis store).
 */
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { MessageStore } from '../storage/message-store';
import { zipPrefixes } from '../mqtt/realm-topics';

/** What `rename_realm` reports as `moved`. */
export interface RealmMoved {
  queued: number;
  dlq: number;
  subscriptions: number;
  retained: number;
  mqtt_sessions: number;
  /** Copies awaiting an ACK, retargeted. */
  pending_acks: number;
  /** Pending authorization requests of the old name, dropped. */
  dropped_requests: number;
}

export interface RealmDataDeps {
  readonly store: MessageStore;
  readonly realms: RealmDirectory;
  readonly ledger: { renameRealm(from: string, to: string): boolean };
  readonly acks?: { renameRealm(from: string, to: string): number };
  readonly persistence: { restore(realms: RealmDirectory, only?: string): Promise<number> };
  readonly mqtt?: () => {
    closeRealmForRename(realm: string): Promise<number>;
    renameRealm(from: string, to: string): Promise<{ retained: number; sessions: number }>;
    holdsRealm(realm: string): Promise<boolean>;
  } | null;
  dropRequests?(realm: string): number;
  /** The extensions' state in memory (E2EE keys, pins): follows the realm (§10's Fix). */
  readonly extensions?: { renameRealm(from: string, to: string): void };
  readonly logger: Logger;
}

export class RealmDataMover {
  constructor(private readonly deps: RealmDataDeps) {}

  /** Whether `realm` holds data anywhere (store, MQTT state, live registry). */
  async holds(realm: string): Promise<boolean> {
    const { store, realms } = this.deps;
    const registry = realms.get(realm);
    if (registry && !registry.isEmpty) return true;
    if (await this.deps.mqtt?.()?.holdsRealm(realm)) return true;
    if ((await store.countQueued(realm)) > 0) return true;
    if ((await store.listDlq(realm)).length > 0) return true;
    return (await store.loadSubscriptions()).some((s) => s.realm === realm);
  }

  /**
   * Moves `from`'s data to `to`; null when the store found data under `to` (nothing moved).
   * `storeMoved`: the store is shared and another node already moved its rows (a cluster
   * peer on the Redis store), so only this node's runtime and MQTT state follow.
   * @throws the store's error (nothing moved: the store's step is atomic)
   */
  async move(
    from: string,
    to: string,
    { storeMoved = false }: { storeMoved?: boolean } = {},
  ): Promise<RealmMoved | null> {
    const { store, realms, logger } = this.deps;
    const mqtt = this.deps.mqtt?.() ?? null;
    await mqtt?.closeRealmForRename(from);
    const stored = storeMoved
      ? { queued: 0, dlq: 0, subscriptions: 0, retained: 0, mqtt_sessions: 0 }
      : await store.renameRealm(
          from,
          to,
          store.mqttState ? { mqttPrefixes: zipPrefixes(from, to) } : {},
        );
    if (stored === null) return null;
    const live = (await mqtt?.renameRealm(from, to)) ?? { retained: 0, sessions: 0 };
    if (!this.deps.ledger.renameRealm(from, to)) {
      logger.warn({ from, to }, 'queue counts of the renamed realm not moved: target had counts');
    }
    const pending = this.deps.acks?.renameRealm(from, to) ?? 0;
    this.deps.extensions?.renameRealm(from, to);
    realms.delete(from);
    await this.deps.persistence.restore(realms, to);
    const dropped = this.deps.dropRequests?.(from) ?? 0;
    const moved: RealmMoved = {
      queued: stored.queued,
      dlq: stored.dlq,
      subscriptions: stored.subscriptions,
      // A store with MQTT state counted its rows; otherwise aedes' memory is the only copy.
      retained: store.mqttState ? stored.retained : live.retained,
      mqtt_sessions: store.mqttState ? stored.mqtt_sessions : live.sessions,
      pending_acks: pending,
      dropped_requests: dropped,
    };
    logger.info(
      { from, to, ...moved, ...(storeMoved ? { store: 'moved once' } : {}) },
      'realm data moved',
    );
    return moved;
  }
}
