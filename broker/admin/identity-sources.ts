/**
 * Where `list_identities` reads one realm's keys, pins and sealed UAK modes
 * (`spec/protocol-extensions.md` §2.4, Note 1.5-A, §4.5, Note 4-J; docs/cluster.md). On a
 * single node: this node's maps. Clustered: Redis, the state every node acts on, so either node
 * gives the same answer — a node's adopted copy of the key directory lags a publish elsewhere,
 * its local pins miss a pin another node claimed, and its UAK map stays empty (the records
 * live in Redis only).
 */
import { ExtensionText, SealedText, type PublishedKey } from '../../shared/protocol-extensions';
import type { ExtensionState } from '../extensions/extension-state';
import { CommandError } from './command-types';

/** One realm's keys, pins and UAK modes, by identity. */
export interface RealmIdentitySources {
  /** Every identity holding a key, a pin or a UAK record. */
  readonly names: Iterable<string>;
  keys(identity: string): PublishedKey[];
  /** The pinned principal (SHA-256 hex of its token); undefined: unpinned. */
  pin(identity: string): string | undefined;
  /** §4.5 mode; null: no record. */
  uakMode(identity: string): string | null;
}

export type IdentitySourceServices = Pick<
  ExtensionState,
  'keys' | 'pins' | 'uaks' | 'sync' | 'uakCluster'
>;

/**
 * The realm's sources: clustered (a key directory sync or a UAK registry in Redis), read once
 * from Redis for the whole page; else this node's maps.
 * @throws CommandError 503 when clustered and Redis cannot be reached (a node's stale copy
 *   would answer differently from its peers).
 */
export async function identitySources(
  s: IdentitySourceServices,
  realm: string,
): Promise<RealmIdentitySources> {
  const [shared, modes] = await Promise.all([
    s.sync?.sharedRealm(realm).catch(() => {
      throw new CommandError(503, ExtensionText.DIRECTORY_UNAVAILABLE);
    }),
    s.uakCluster?.modes(realm).catch(() => {
      throw new CommandError(503, SealedText.UNAVAILABLE);
    }),
  ]);
  const keys = shared
    ? (i: string) => shared.keys.get(i) ?? []
    : (i: string) => s.keys.get(realm, i) ?? [];
  const pin = shared ? (i: string) => shared.pins.get(i) : (i: string) => s.pins.get(realm, i);
  const uakMode = modes
    ? (i: string) => modes.get(i) ?? null
    : (i: string) => s.uaks.get(realm, i)?.mode ?? null;
  return {
    names: [
      ...(shared ? shared.keys.keys() : s.keys.identities(realm)),
      ...(shared ? shared.pins.keys() : s.pins.identities(realm)),
      ...(modes ? modes.keys() : s.uaks.identities(realm)),
    ],
    keys,
    pin,
    uakMode,
  };
}
