/**
 * E2EE identity commands (Switchboard extensions, docs/management.md "E2EE identities"): what
 * the tyo-mq 1.1 extension state holds per identity of a realm, and an operator's revoke of a
 * published key (`spec/protocol-extensions.md` §2 key directory, Note 1.5-A principal pins,
 * §3 prekeys, §4.5 sealed UAK records, §6.4 push endpoints).
 *
 * - `list_identities` `{realm, cursor?, limit?, contains?}`: one page of the realm's identities, sorted;
 * - `revoke_identity_key` `{realm, identity, key_id?, unpin?}`: deletes the identity's key
 *   `key_id` (every key without it) and, with `unpin: true`, its principal pin.
 *
 * Nothing secret leaves the broker: a key is shown by its SHA-256 fingerprint, a pin by a
 * prefix of the principal (itself a hash of the token), a push token by its last 6 chars.
 */
import { createHash } from 'node:crypto';
import { PrekeyText, PushText } from '../../shared/protocol-extensions';
import type { ExtensionState } from '../extensions/extension-state';
import { CommandError, has, pick, realmParam, type CommandBody } from './command-types';
import { identitySources, type RealmIdentitySources } from './identity-sources';

/** Largest `limit` of one `list_identities` page; the default is `DEFAULT_IDENTITY_PAGE`. */
export const MAX_IDENTITY_PAGE = 1_000;
export const DEFAULT_IDENTITY_PAGE = 100;
/** Hex characters of a principal shown (of its 64): enough to tell credentials apart. */
export const PRINCIPAL_PREFIX_CHARS = 12;
/** Characters of a push token shown (its last ones). */
export const TOKEN_TAIL_CHARS = 6;
/** Longest identity or key id accepted (as the extension's own limits are far below). */
const MAX_NAME = 1_024;

/** What the identity commands need: the broker's extension state (wired by the root). */
export type IdentityServices = Pick<
  ExtensionState,
  'keys' | 'pins' | 'prekeys' | 'prekeyCluster' | 'pushDirectory' | 'uaks' | 'uakCluster'
> & {
  readonly sync: ExtensionState['sync'];
  now?: () => number;
};

/** One published key of an identity (§2.1), without the key itself. */
export interface IdentityKeyView {
  key_id: string;
  alg: string;
  /** SHA-256 hex of `public_key` as published (its UTF-8 text). */
  fingerprint: string;
  /** ISO-8601 time of its last publish. */
  published_at: string;
}

/** One push endpoint (§6.4), token masked. Times ISO-8601. */
export interface IdentityPushView {
  transport: string;
  app_id: string | null;
  /** `…` and the token's last 6 characters. */
  token_masked: string;
  registered_at: string;
  /** When a wake to it last succeeded; null before. */
  last_ok_at: string | null;
  /** `ok` when it succeeded at or after the identity's last wake, else `not_delivered`; null: no wake remembered. */
  last_wake_outcome: 'ok' | 'not_delivered' | null;
}

/** One identity of `list_identities`. */
export interface IdentityView {
  identity: string;
  keys: IdentityKeyView[];
  /** The first 12 hex chars of the pinned principal (SHA-256 of its token); null: unpinned. */
  principal_prefix: string | null;
  /** null: no prekey bundle published. */
  prekeys: { one_time_available: number; signed_prekey_id: number; updated_at: string } | null;
  push: IdentityPushView[];
  /** When a wake was last sent (node-local, since the broker started); null: none. */
  last_wake_at: string | null;
  /** §4.5 UAK mode (`require_uak` / `unrestricted`); null: none set. */
  sealed_uak_mode: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

function servicesOf(services: IdentityServices | undefined, command: string): IdentityServices {
  if (!services) throw new CommandError(501, `${command} is not available`);
  return services;
}

function nameParam(body: CommandBody, key: string, required: boolean): string | undefined {
  if (!has(body, key)) {
    if (required) throw new CommandError(400, `${key} is required`);
    return undefined;
  }
  const value = pick(body, key);
  if (typeof value !== 'string' || value === '' || value.length > MAX_NAME) {
    throw new CommandError(400, `${key} must be a non-empty string`);
  }
  return value;
}

async function pushView(
  services: IdentityServices,
  realm: string,
  identity: string,
  lastWake: number | undefined,
): Promise<IdentityPushView[]> {
  return (await services.pushDirectory.endpoints(realm, identity)).map((e) => ({
    transport: e.transport,
    app_id: e.app_id,
    token_masked: `…${e.token.slice(-TOKEN_TAIL_CHARS)}`,
    registered_at: iso(e.added_at),
    last_ok_at: e.last_ok === null ? null : iso(e.last_ok),
    last_wake_outcome:
      lastWake === undefined
        ? null
        : e.last_ok !== null && e.last_ok >= lastWake
          ? 'ok'
          : 'not_delivered',
  }));
}

type PrekeyStock = IdentityView['prekeys'];

function localStock(services: IdentityServices, realm: string, identity: string): PrekeyStock {
  const prekeys = services.prekeys.get(realm, identity);
  return prekeys
    ? {
        one_time_available: prekeys.pool.length,
        signed_prekey_id: prekeys.bundle.signed_prekey_id,
        updated_at: prekeys.updated_at,
      }
    : null;
}

/**
 * Clustered (Note 3-E): the page's prekey stock as Redis holds it, each identity looked at
 * without taking a key. A Redis that cannot be reached fails the command with 503, as a take
 * would: an empty stock shown then would read as "no bundle published".
 */
async function clusterStock(
  directory: NonNullable<IdentityServices['prekeyCluster']>,
  realm: string,
  identities: readonly string[],
): Promise<Map<string, PrekeyStock>> {
  try {
    const looks = await Promise.all(identities.map((i) => directory.take(realm, i, false)));
    return new Map(
      identities.map((identity, i) => {
        const look = looks[i];
        const stock: PrekeyStock = look
          ? {
              one_time_available: look.remaining,
              signed_prekey_id: look.bundle.signed_prekey_id,
              updated_at: look.updatedAt,
            }
          : null;
        return [identity, stock];
      }),
    );
  } catch {
    // The directory rejects only when Redis cannot be reached (PrekeyDirectoryUnavailable).
    throw unavailable();
  }
}

const unavailable = () => new CommandError(503, PrekeyText.UNAVAILABLE);

async function viewOf(
  services: IdentityServices,
  sources: RealmIdentitySources,
  realm: string,
  identity: string,
  stock: ReadonlyMap<string, PrekeyStock> | null,
): Promise<IdentityView> {
  const keys = sources.keys(identity).map((k) => ({
    key_id: k.key_id,
    alg: k.alg,
    fingerprint: createHash('sha256').update(k.public_key, 'utf8').digest('hex'),
    published_at: k.updated_at,
  }));
  const pin = sources.pin(identity);
  const lastWake = await services.pushDirectory.lastWakeAt(realm, identity);
  return {
    identity,
    keys,
    principal_prefix: pin === undefined ? null : pin.slice(0, PRINCIPAL_PREFIX_CHARS),
    prekeys: stock ? (stock.get(identity) ?? null) : localStock(services, realm, identity),
    push: await pushView(services, realm, identity, lastWake),
    last_wake_at: lastWake === undefined ? null : iso(lastWake),
    sealed_uak_mode: sources.uakMode(identity),
  };
}

/**
 * `list_identities` → `{ok, realm, identities: IdentityView[], next_cursor}`: every identity
 * of `realm` holding a key, a pin, a prekey bundle, push endpoints or a UAK record, sorted by
 * name (UTF-16 order), `limit` 1–1,000 (default 100) after `cursor` (`next_cursor`: the last
 * identity of a full page; null on the last page); with `contains`, only the names holding it
 * (case-insensitive, 1–`MAX_NAME` characters), paged the same way.
 * Clustered, every part comes from Redis (`identity-sources.ts`; prekeys:
 * Note 3-E; push: Note 6-G), so every node gives the same answer.
 * @throws CommandError 400 bad realm/limit/cursor; 501 unavailable; 503 clustered and Redis
 *   cannot be reached.
 */
export async function listIdentities(
  services: IdentityServices | undefined,
  body: CommandBody,
): Promise<{ ok: true } & Record<string, unknown>> {
  const realm = realmParam(body);
  const rawLimit = pick(body, 'limit');
  const limit = rawLimit === undefined ? DEFAULT_IDENTITY_PAGE : rawLimit;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > MAX_IDENTITY_PAGE
  ) {
    throw new CommandError(400, `limit must be an integer from 1 to ${MAX_IDENTITY_PAGE}`);
  }
  const cursor = nameParam(body, 'cursor', false);
  // A case-insensitive part of the name: an operator finds one identity among many thousands
  // without paging through them (the filter runs before the page is cut).
  const needle = nameParam(body, 'contains', false)?.toLowerCase();
  const s = servicesOf(services, 'list_identities');
  // Clustered, the prekey directory lives in Redis (Note 3-E) and the local map stays empty.
  const directory = s.prekeyCluster;
  let bundled: Iterable<string> = s.prekeys.identities(realm);
  if (directory) {
    try {
      bundled = await directory.identities(realm);
    } catch {
      throw unavailable();
    }
  }
  // Clustered, push registrations live in Redis too (Note 6-G).
  let pushed: string[];
  try {
    pushed = await s.pushDirectory.identities(realm);
  } catch {
    throw new CommandError(503, PushText.UNAVAILABLE);
  }
  const sources = await identitySources(s, realm);
  const names = new Set<string>([...sources.names, ...bundled, ...pushed]);
  const sorted = [...names]
    .filter((n) => cursor === undefined || n > cursor)
    .filter((n) => needle === undefined || n.toLowerCase().includes(needle))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const page = sorted.slice(0, limit);
  const next = sorted.length > limit ? page[page.length - 1]! : null;
  const stock = directory ? await clusterStock(directory, realm, page) : null;
  return {
    ok: true,
    realm,
    identities: await Promise.all(
      page.map((identity) => viewOf(s, sources, realm, identity, stock)),
    ),
    next_cursor: next,
  };
}

/**
 * `revoke_identity_key` `{realm, identity, key_id?, unpin?}` → `{ok, realm, identity,
 * removed_keys: string[], unpinned: boolean}`; resolves once the store committed the change
 * (the same `identity_state` rows the handlers write). Clustered, the directory change is
 * mirrored and the shared pin dropped.
 * @throws CommandError 400 bad params; 404 nothing to revoke (no such key, and no pin to drop);
 *   500 not stored; 501 unavailable.
 */
export async function revokeIdentityKey(
  services: IdentityServices | undefined,
  body: CommandBody,
): Promise<{ ok: true } & Record<string, unknown>> {
  const realm = realmParam(body);
  const identity = nameParam(body, 'identity', true)!;
  const keyId = nameParam(body, 'key_id', false);
  const unpinRaw = pick(body, 'unpin');
  if (unpinRaw !== undefined && typeof unpinRaw !== 'boolean') {
    throw new CommandError(400, 'unpin must be a boolean');
  }
  const s = servicesOf(services, 'revoke_identity_key');
  const current = s.keys.get(realm, identity) ?? [];
  const kept = keyId === undefined ? [] : current.filter((k) => k.key_id !== keyId);
  const removed = current.filter((k) => !kept.includes(k)).map((k) => k.key_id);
  const unpin = unpinRaw === true && s.pins.get(realm, identity) !== undefined;
  if (removed.length === 0 && !unpin) {
    throw new CommandError(
      404,
      keyId === undefined
        ? `identity '${identity}' has no keys`
        : `no key '${keyId}' for '${identity}'`,
    );
  }
  try {
    if (removed.length > 0) {
      await (kept.length === 0
        ? s.keys.delete(realm, identity)
        : s.keys.set(realm, identity, kept));
    }
    if (unpin) await s.pins.delete(realm, identity);
  } catch (err) {
    throw new CommandError(500, `identity change not stored: ${(err as Error).message}`);
  }
  if (removed.length > 0) s.sync?.mirror(realm, identity);
  if (unpin) s.sync?.unpin(realm, identity);
  return { ok: true, realm, identity, removed_keys: removed, unpinned: unpin };
}
