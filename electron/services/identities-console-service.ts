/**
 * The E2EE identities part of the ConsoleService (`shared/console-api-identities.ts`): a
 * realm's identities through the signed Switchboard commands `list_identities` and
 * `revoke_identity_key` (docs/management.md "E2EE identities"). Revokes go through the audited
 * pool, so Activity records them (audit-rules.ts: realm, identity, key id, unpin).
 *
 * A broker without `list_identities` (a plain tyo-mq broker, an older Switchboard) answers
 * `400 unknown management command`: `listIdentities` reports `state: 'unsupported'` then and
 * asks that client no more (the view polls; each refusal is a warning in the broker's log).
 */
import type { z } from 'zod';
import type {
  IdentityList,
  IdentityMethods,
  IdentityPush,
  IdentityRow,
} from '../../shared/console-api-identities';
import type { ManagerClient } from './manager-client';
import type { ManagerPool } from './manager-pool';
import { isUnknownCommand } from './unknown-command';

type Methods = typeof IdentityMethods;
type Input<M extends keyof Methods> = z.infer<Methods[M]['input']>;
type Output<M extends keyof Methods> = z.infer<Methods[M]['output']>;

/** The identities methods, as `createConsoleService` spreads them. */
export type IdentitiesService = { [M in keyof Methods]: (input: Input<M>) => Promise<Output<M>> };

/** Clients whose broker refused `list_identities` as unknown. */
const withoutIdentities = new WeakSet<ManagerClient>();

type Raw = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
const records = (v: unknown): Raw[] =>
  Array.isArray(v) ? v.filter((x): x is Raw => !!x && typeof x === 'object') : [];

function toPush(raw: Raw): IdentityPush {
  const outcome = raw.last_wake_outcome;
  return {
    transport: str(raw.transport),
    appId: strOrNull(raw.app_id),
    tokenMasked: str(raw.token_masked),
    registeredAt: str(raw.registered_at),
    lastOkAt: strOrNull(raw.last_ok_at),
    lastWakeOutcome: outcome === 'ok' || outcome === 'not_delivered' ? outcome : null,
  };
}

function toRow(raw: Raw): IdentityRow {
  const prekeys = raw.prekeys && typeof raw.prekeys === 'object' ? (raw.prekeys as Raw) : null;
  return {
    identity: str(raw.identity),
    keys: records(raw.keys).map((k) => ({
      keyId: str(k.key_id),
      alg: str(k.alg),
      fingerprint: str(k.fingerprint),
      publishedAt: str(k.published_at),
    })),
    principalPrefix: strOrNull(raw.principal_prefix),
    prekeys: prekeys
      ? {
          oneTimeAvailable: int(prekeys.one_time_available),
          signedPrekeyId: int(prekeys.signed_prekey_id),
          updatedAt: str(prekeys.updated_at),
        }
      : null,
    push: records(raw.push).map(toPush),
    lastWakeAt: strOrNull(raw.last_wake_at),
    sealedUakMode: strOrNull(raw.sealed_uak_mode),
  };
}

/** Builds the methods over the (audited) manager pool. Errors: see `IdentityMethods`. */
export function createIdentitiesService(deps: {
  pool: Pick<ManagerPool, 'get'>;
}): IdentitiesService {
  const { pool } = deps;
  return {
    listIdentities: async ({
      connectionId,
      realm,
      cursor,
      limit,
      contains,
    }): Promise<IdentityList> => {
      const client = pool.get(connectionId);
      const empty = (state: IdentityList['state']): IdentityList => ({
        connectionId,
        state,
        realm,
        identities: [],
        nextCursor: null,
        fetchedAt: Date.now(),
      });
      if (withoutIdentities.has(client)) return empty('unsupported');
      let reply;
      try {
        reply = await client.command({
          command: 'list_identities',
          realm,
          ...(cursor ? { cursor } : {}),
          ...(limit ? { limit } : {}),
          ...(contains ? { contains } : {}),
        });
      } catch (error) {
        if (!isUnknownCommand(error)) throw error;
        withoutIdentities.add(client);
        return empty('unsupported');
      }
      return {
        ...empty('ok'),
        realm: str(reply.realm) || realm,
        identities: records(reply.identities).map(toRow),
        nextCursor: typeof reply.next_cursor === 'string' ? reply.next_cursor : null,
      };
    },
    revokeIdentityKey: async ({ connectionId, realm, identity, keyId, unpin }) => {
      const reply = await pool.get(connectionId).command({
        command: 'revoke_identity_key',
        realm,
        identity,
        ...(keyId !== undefined ? { key_id: keyId } : {}),
        ...(unpin ? { unpin: true } : {}),
      });
      const removedKeys = Array.isArray(reply.removed_keys) ? reply.removed_keys.map(String) : [];
      const unpinned = reply.unpinned === true;
      const keys =
        removedKeys.length === 0
          ? 'no key'
          : removedKeys.length === 1
            ? `key ${removedKeys[0]}`
            : `${removedKeys.length} keys`;
      return {
        connectionId,
        removedKeys,
        unpinned,
        summary: `Revoked ${keys} of ${identity} in ${realm}${unpinned ? ' and unpinned it' : ''}.`,
      };
    },
  };
}
