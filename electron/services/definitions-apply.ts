/**
 * How an import applies its diff (issue 27): each applicable row of `diffDefinitions` becomes
 * signed management commands of the catalogue (`spec/protocol-admin.md` §8.2, docs/management.md)
 * — `add_realm`, `set_realm_auth`, `set_realm_acceptance`, `set_realm_e2ee`, `set_realm_lifetime`,
 * `set_realm_key`, `set_realm_manager_key`, `remove_realm`, `set_global_auth`, `revoke_token`,
 * `revoke_management_token` — sent one after another through the audited pool, so each is an
 * Activity entry (keys only as `<set>`). A refused command ends its row as `error`; the other
 * rows still run, and every row reports its outcome.
 */
import type { ApplyResult, DefinitionsApply } from '../../shared/console-api-definitions';
import type { DefinitionsDiff, DiffItem } from '../../shared/definitions-diff';
import type { DefinitionsDocument, RealmDefinition } from '../../shared/definitions-document';
import type { RealmKeyMap } from './definitions-crypto';
import type { ManagerClient } from './manager-client';

type Body = { command: string } & Record<string, unknown>;

/** The plain (non-key) settings of a realm that `add_realm` takes. */
function addRealmBody(realm: RealmDefinition, keys: RealmKeyMap | null): Body {
  const body: Body = { command: 'add_realm', realm: realm.name, required: realm.required };
  if (realm.require_acceptance !== null) body.require_acceptance = realm.require_acceptance;
  if (realm.allow_tokenless_consumers) body.allow_tokenless_consumers = true;
  if (realm.e2ee !== 'off') body.e2ee = realm.e2ee;
  if (realm.ephemeral) {
    body.ephemeral = true;
    if (realm.ttl_seconds !== null) body.ttl = realm.ttl_seconds;
  }
  const clear = keys?.[realm.name];
  if (clear?.key) body.key = clear.key;
  if (clear?.manager_key) body.manager_key = clear.manager_key;
  return body;
}

/** The commands of one realm row; `target` is undefined for an added realm. */
function realmCommands(
  item: DiffItem,
  source: RealmDefinition | undefined,
  target: RealmDefinition | undefined,
  keys: RealmKeyMap | null,
): Body[] {
  const realm = item.name;
  if (item.status === 'removed') return [{ command: 'remove_realm', realm }];
  if (!source) return [];
  const clear = keys?.[realm];
  if (!target) {
    const bodies = [addRealmBody(source, keys)];
    // `add_realm` has no require_key: it is set with the key (or, keyless, with key null).
    if (source.require_key !== null) {
      bodies.push({
        command: 'set_realm_key',
        realm,
        key: clear?.key ?? null,
        require_key: source.require_key,
      });
    }
    return bodies;
  }
  const changed = new Set(item.changes.map((c) => c.field));
  const bodies: Body[] = [];
  if (changed.has('required') || changed.has('allow_tokenless_consumers')) {
    bodies.push({
      command: 'set_realm_auth',
      realm,
      required: source.required,
      allow_tokenless_consumers: source.allow_tokenless_consumers,
    });
  }
  if (changed.has('require_acceptance') && source.require_acceptance !== null) {
    bodies.push({ command: 'set_realm_acceptance', realm, required: source.require_acceptance });
  }
  if (changed.has('e2ee')) bodies.push({ command: 'set_realm_e2ee', realm, e2ee: source.e2ee });
  if (changed.has('ephemeral') || changed.has('ttl_seconds')) {
    bodies.push(
      source.ephemeral
        ? {
            command: 'set_realm_lifetime',
            realm,
            ephemeral: true,
            ...(source.ttl_seconds !== null ? { ttl: source.ttl_seconds } : {}),
          }
        : { command: 'set_realm_lifetime', realm, ephemeral: false },
    );
  }
  const requireKey = changed.has('require_key') && source.require_key !== null;
  if (changed.has('key') || (requireKey && clear)) {
    bodies.push({
      command: 'set_realm_key',
      realm,
      key: clear?.key ?? null,
      ...(source.require_key !== null ? { require_key: source.require_key } : {}),
    });
  } else if (requireKey && target.keys.key_sha256 === null) {
    bodies.push({ command: 'set_realm_key', realm, key: null, require_key: source.require_key });
  }
  if (changed.has('manager_key')) {
    bodies.push({
      command: 'set_realm_manager_key',
      realm,
      manager_key: clear?.manager_key ?? null,
    });
  }
  return bodies;
}

/** The commands of one row (an empty list: nothing to send). */
export function commandsFor(
  item: DiffItem,
  source: DefinitionsDocument,
  target: DefinitionsDocument,
  keys: RealmKeyMap | null,
): Body[] {
  const hash = item.id.slice(item.id.indexOf(':') + 1);
  switch (item.kind) {
    case 'setting':
      return [{ command: 'set_global_auth', enabled: source.settings.auth_enabled }];
    case 'realm':
      return realmCommands(
        item,
        source.realms.find((r) => r.name === item.name),
        target.realms.find((r) => r.name === item.name),
        keys,
      );
    case 'token':
      return item.status === 'removed' ? [{ command: 'revoke_token', token_hash: hash }] : [];
    case 'management_token':
      return item.status === 'removed'
        ? [{ command: 'revoke_management_token', token_hash: hash }]
        : [];
    default:
      return [];
  }
}

const refusalCode = (error: unknown): number | null => {
  const match = /\((\d{3})\)/.exec((error as Error).message ?? '');
  return match ? Number(match[1]) : null;
};

/**
 * Applies the applicable rows of `diff` (removals only with `applyRemovals`), in the diff's
 * order but with realms added before tokens are revoked and global auth switched last.
 */
export async function applyDiff(
  manager: Pick<ManagerClient, 'command'>,
  connectionId: string,
  diff: DefinitionsDiff,
  source: DefinitionsDocument,
  target: DefinitionsDocument,
  keys: RealmKeyMap | null,
  applyRemovals: boolean,
): Promise<DefinitionsApply> {
  const results: ApplyResult[] = [];
  // Turning auth on or off first would change what the following commands mean to live clients.
  const ordered = [
    ...diff.items.filter((i) => i.kind !== 'setting'),
    ...diff.items.filter((i) => i.kind === 'setting'),
  ];
  for (const item of ordered) {
    if (item.status === 'unchanged') continue;
    const base = {
      id: item.id,
      kind: item.kind,
      name: item.name,
      status: item.status,
      notes: item.notes,
    };
    const bodies = item.applicable ? commandsFor(item, source, target, keys) : [];
    if (bodies.length === 0 || (item.status === 'removed' && !applyRemovals)) {
      const why = item.status === 'removed' && item.applicable ? ['removal not ticked'] : [];
      results.push({
        ...base,
        outcome: 'skipped',
        commands: [],
        notes: [...item.notes, ...why],
      });
      continue;
    }
    const commands: ApplyResult['commands'] = [];
    for (const body of bodies) {
      try {
        await manager.command(body);
        commands.push({ command: body.command, ok: true, code: null, message: null });
      } catch (error) {
        commands.push({
          command: body.command,
          ok: false,
          code: refusalCode(error),
          message: (error as Error).message,
        });
        break;
      }
    }
    results.push({ ...base, outcome: commands.every((c) => c.ok) ? 'ok' : 'error', commands });
  }
  const count = (outcome: ApplyResult['outcome']) =>
    results.filter((r) => r.outcome === outcome).length;
  return {
    connectionId,
    results,
    applied: count('ok'),
    failed: count('error'),
    skipped: count('skipped'),
  };
}
