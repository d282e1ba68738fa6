/**
 * The state of the extension families, per (realm, identity): the principal pins of Note
 * 1.5-A and the E2EE key directory (§2), with what remove/rename of a realm does to them
 * (§10, with its Fix). A later family (prekeys, UAKs, push endpoints) adds its own
 * `IdentityStateMap` here with a new `kind`; loading, purging and renaming then cover it.
 *
 * Persistence (§10; docs/e2ee.md): in memory, as in the reference, and in the SQLite or Redis
 * message store when that is the storage (the store's `identityState` facet), so a restart
 * keeps the keys, pins, prekeys, push endpoints and sealed inbox. The memory store has no
 * facet: there the state is lost at a restart, as in the reference. `ready` resolves once the stored rows are adopted.
 */
import { z } from 'zod';
import { ExtensionLimit, type PublishedKey } from '../../shared/protocol-extensions';
import type { Logger } from '../logging/logger';
import type { MessageStore } from '../storage/message-store';
import { IdentityStateMap } from './identity-state-map';
import { StoredPrekeysSchema, type StoredPrekeys } from './prekey-bundle';
import type { PrekeyRedisDirectory } from './prekey-redis-directory';
import { PrekeyTakeLimiter } from './prekey-take-limiter';
import type { SealedConfig } from './sealed/sealed-config';
import {
  SealedInboxSchema,
  SealedRuntime,
  UakRecordSchema,
  type SealedEntry,
  type UakRecord,
} from './sealed/sealed-records';
import { localPushDirectory, PushRegistry, type PushDirectory } from './push/push-registry';
import type { PushRedisRegistry } from './push/push-redis-registry';
import type { SealedUakRedis } from './sealed/sealed-uak-redis';
import { PushEndpointListSchema, type PushEndpoint, type PushRuntime } from './push/push-types';

/** The `kind` of each family's rows in `identity_state`. */
export const IdentityKind = {
  PIN: 'pin',
  KEYS: 'keys',
  PREKEYS: 'prekeys',
  /** Sealed UAK records (§4.5): memory only, never written to the store. */
  SEALED_UAK: 'sealed-uak',
  /** The sealed inbox (§4.9; Note 4-B: never in the durable-queue tables). */
  SEALED_INBOX: 'sealed-inbox',
  PUSH: 'push',
} as const;

/** §2.1: one stored key entry (validated again when loaded, §2.4's adoption filter). */
const PublishedKeySchema: z.ZodType<PublishedKey> = z.object({
  key_id: z.string().max(ExtensionLimit.E2EE_MAX_KEY_ID_LENGTH),
  alg: z.string().max(ExtensionLimit.E2EE_MAX_KEY_ID_LENGTH),
  public_key: z.string().max(ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH),
  updated_at: z.string(),
});

/** A principal: SHA-256 hex of a token. */
const PrincipalSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** One realm's part of the cluster's shared directory: key lists and pins, by identity. */
export interface SharedRealmState {
  keys: ReadonlyMap<string, PublishedKey[]>;
  /** Identity → principal (SHA-256 hex of its token). */
  pins: ReadonlyMap<string, string>;
}

/** What the state needs of the cluster sync (`key-directory-sync.ts` implements it). */
export interface KeyDirectoryMirror {
  /** The cluster-wide pin of (realm, identity) after claiming it for `principal` (null: read). */
  claimPin(realm: string, identity: string, principal: string | null): Promise<string | null>;
  /** Mirrors the local list of (realm, identity) to the other nodes. */
  mirror(realm: string, identity: string): void;
  /** Drops the cluster-wide pin of (realm, identity) (`revoke_identity_key` with `unpin`). */
  unpin(realm: string, identity: string): void;
  /** The keys and pins of `realm` as the cluster shares them; rejects when unreachable. */
  sharedRealm(realm: string): Promise<SharedRealmState>;
  removeRealm(realm: string): void;
  renameRealm(from: string, to: string): void;
}

export class ExtensionState {
  /** (realm, identity) → the principal pinned to it (Note 1.5-A, Fix item 3). */
  readonly pins: IdentityStateMap<string>;
  /** (realm, identity) → its published keys, in publish order (§2.1). */
  readonly keys: IdentityStateMap<PublishedKey[]>;
  /** (realm, identity) → its Signal prekey bundle and one-time pool (§3). */
  readonly prekeys: IdentityStateMap<StoredPrekeys>;
  /** Note 3-B: how many one-time prekeys a requester may take. */
  readonly prekeyTakes = new PrekeyTakeLimiter();
  /** (realm, identity) → its push endpoints (§6.4; persisted and purged per Note 6-F). */
  readonly push: PushRegistry;
  /** Clustered: the push registry shared in Redis (Note 6-G), set by the composition root. */
  pushCluster: PushRedisRegistry | null = null;
  private readonly localPush: PushDirectory;
  /** Push wakes (§6.5), set by the composition root (`push/push-wiring.ts`). */
  pushRuntime: PushRuntime | null = null;
  /**
   * Clustered: the directory and pins shared over Redis (`key-directory-sync.ts`), set by the
   * composition root once the cluster's links exist; null on a single node.
   */
  sync: KeyDirectoryMirror | null = null;
  /**
   * Clustered: the prekey directory in Redis (Note 3-E, `prekey-redis-directory.ts`), used
   * instead of `prekeys`; null on a single node.
   */
  prekeyCluster: PrekeyRedisDirectory | null = null;
  /** (realm, identity) → its UAK record (§4.5), in memory only (Note 4-J). */
  readonly uaks: IdentityStateMap<UakRecord>;
  /**
   * Clustered: the UAK records shared in Redis (Note 4-J, `sealed/sealed-uak-redis.ts`), used
   * instead of `uaks` by `SEALED_UAK_SET` and `SEALED_DELIVER`; null on a single node.
   */
  uakCluster: SealedUakRedis | null = null;
  /** (realm, identity) → its queued sealed blobs, oldest first (§4.9). */
  readonly sealedInbox: IdentityStateMap<SealedEntry[]>;
  /** Sealed sender's configuration (§4.1), set by the composition root; null: not configured. */
  sealed: SealedConfig | null = null;
  /** Sealed sender's node-local runtime state (send windows, drains in flight). */
  readonly sealedRuntime = new SealedRuntime();
  /** Resolves once stored rows are adopted (never rejects: a failure is logged). */
  readonly ready: Promise<void>;
  private readonly maps: ReadonlyMap<string, IdentityStateMap<unknown>>;

  constructor(store: MessageStore, logger: Logger) {
    const facet = store.identityState;
    this.pins = new IdentityStateMap(IdentityKind.PIN, PrincipalSchema, facet, logger);
    this.keys = new IdentityStateMap(
      IdentityKind.KEYS,
      z.array(PublishedKeySchema).max(ExtensionLimit.E2EE_MAX_KEYS_PER_IDENTITY),
      facet,
      logger,
    );
    this.prekeys = new IdentityStateMap(IdentityKind.PREKEYS, StoredPrekeysSchema, facet, logger);
    this.uaks = new IdentityStateMap(IdentityKind.SEALED_UAK, UakRecordSchema, undefined, logger);
    this.sealedInbox = new IdentityStateMap(
      IdentityKind.SEALED_INBOX,
      SealedInboxSchema,
      facet,
      logger,
    );
    const push = new IdentityStateMap<PushEndpoint[]>(
      IdentityKind.PUSH,
      PushEndpointListSchema,
      facet,
      logger,
    );
    this.push = new PushRegistry(push);
    this.localPush = localPushDirectory(this.push);
    this.maps = new Map<string, IdentityStateMap<unknown>>([
      [this.pins.kind, this.pins as IdentityStateMap<unknown>],
      [this.keys.kind, this.keys as IdentityStateMap<unknown>],
      [this.prekeys.kind, this.prekeys as IdentityStateMap<unknown>],
      [this.uaks.kind, this.uaks as IdentityStateMap<unknown>],
      [this.sealedInbox.kind, this.sealedInbox as IdentityStateMap<unknown>],
      [push.kind, push as IdentityStateMap<unknown>],
    ]);
    this.ready = facet
      ? facet.load().then(
          (rows) => {
            let adopted = 0;
            for (const row of rows) if (this.maps.get(row.kind)?.adopt(row)) adopted += 1;
            if (adopted > 0) logger.info({ rows: adopted }, 'extension identity state restored');
          },
          (err: unknown) => logger.error({ err }, 'extension identity state not restored'),
        )
      : Promise.resolve();
  }

  /** Where registrations live: the cluster's shared registry, else this node's `push`. */
  get pushDirectory(): PushDirectory {
    return this.pushCluster ?? this.localPush;
  }

  /** `remove_realm` / ephemeral disposal: every family's state of `realm`, pins included. */
  purgeRealm(realm: string): void {
    for (const map of this.maps.values()) map.purgeRealm(realm);
    this.push.dropRealm(realm);
    this.sync?.removeRealm(realm);
    this.prekeyCluster?.removeRealm(realm);
    this.pushCluster?.removeRealm(realm);
    this.uakCluster?.removeRealm(realm);
  }

  /**
   * `rename_realm`: every family's state follows the realm (§10's Fix), all or nothing: when
   * `to` already holds any, `from`'s is dropped (§2.4), as the store does with its rows.
   */
  renameRealm(from: string, to: string): void {
    const move = [...this.maps.values()].every((map) => map.size(to) === 0);
    for (const map of this.maps.values()) map.renameRealm(from, to, move);
    this.push.dropRealm(from);
    this.sync?.renameRealm(from, to);
    this.prekeyCluster?.renameRealm(from, to);
    this.pushCluster?.renameRealm(from, to);
    this.uakCluster?.renameRealm(from, to);
  }
}
