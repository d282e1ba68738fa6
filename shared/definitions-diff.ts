/**
 * The diff of a definitions document (`definitions-document.ts`, issue 27) against a target
 * broker's current definitions (built the same way, by the console host): per broker setting,
 * realm, client token and management token, whether the import adds, changes or removes it or
 * leaves it as it is, which fields differ, whether the import can apply it with a signed
 * command, and why not. Pure and secret-free: key fields compare SHA-256 hex only, shown as
 * their first 12 hex digits.
 */
import { z } from 'zod';
import type { DefinitionsDocument, RealmDefinition } from './definitions-document';

export const DiffStatus = z.enum(['added', 'changed', 'removed', 'unchanged']);
export type DiffStatus = z.infer<typeof DiffStatus>;

export const DiffKind = z.enum(['setting', 'realm', 'token', 'management_token', 'validator']);
export type DiffKind = z.infer<typeof DiffKind>;

/** One differing field; values are JSON scalars (hashes shortened), null for "not set". */
export const FieldChangeSchema = z.object({
  field: z.string(),
  from: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  to: z.union([z.string(), z.number(), z.boolean(), z.null()]),
});
export type FieldChange = z.infer<typeof FieldChangeSchema>;

/**
 * One diff row. `id`: stable (`<kind>:<name>`), what `applyDefinitions` reports results by.
 * `applicable`: the import sends commands for it (removals only when the operator ticks them).
 * `notes`: what the import will not do and why (e.g. a key known only by its hash).
 */
export const DiffItemSchema = z.object({
  id: z.string(),
  kind: DiffKind,
  name: z.string(),
  status: DiffStatus,
  changes: z.array(FieldChangeSchema),
  applicable: z.boolean(),
  notes: z.array(z.string()),
  /**
   * What the row is, when its kind alone would mislead: a token's role and realm, e.g.
   * "admin token (all realms)" (trial finding 17). Absent: the kind names it.
   */
  label: z.string().optional(),
});
export type DiffItem = z.infer<typeof DiffItemSchema>;

export const DefinitionsDiffSchema = z.object({
  items: z.array(DiffItemSchema),
  counts: z.object({
    added: z.number(),
    changed: z.number(),
    removed: z.number(),
    unchanged: z.number(),
  }),
  /**
   * Of `counts`, the rows an import sends commands for (`applicable`): what Apply and "Also
   * remove" offer (trial finding 18; a global admin token, say, is never removed).
   */
  applicable: z.object({ added: z.number(), changed: z.number(), removed: z.number() }),
});
export type DefinitionsDiff = z.infer<typeof DefinitionsDiffSchema>;

/**
 * Shown for a key the import cannot set because the document holds only its SHA-256, after
 * "pre-shared key differs: " / "manager key not set: " and the like (trial finding 16).
 */
export const HASH_ONLY_KEY_NOTE =
  'the file holds only its hash, so it cannot be applied — re-export with encrypted keys';
/** Shown for a token the import cannot re-create. */
export const HASH_ONLY_TOKEN_NOTE =
  'not re-created: the export holds only its hash (the client requests a new token)';
/** Realms no command may create or remove (§3.5 note, realm-commands.ts hardening). */
export const STRUCTURAL_REALM_NAMES: readonly string[] = ['*', 'default'];

/** Which plain realm fields are compared, in display order. */
const REALM_FIELDS = [
  'required',
  'require_key',
  'require_acceptance',
  'allow_tokenless_consumers',
  'e2ee',
  'ephemeral',
  'ttl_seconds',
] as const;

const short = (hash: string | null): string | null => (hash === null ? null : hash.slice(0, 12));

/** Whether the import holds the realm's keys in clear (after decryption), by realm. */
export type KeysInHand = ReadonlySet<string>;

function realmItem(
  name: string,
  source: RealmDefinition | undefined,
  target: RealmDefinition | undefined,
  keysInHand: KeysInHand,
): DiffItem {
  const id = `realm:${name}`;
  const notes: string[] = [];
  if (!source) {
    const structural = STRUCTURAL_REALM_NAMES.includes(name);
    if (structural) notes.push(`the "${name}" realm is never removed`);
    return {
      id,
      kind: 'realm',
      name,
      status: 'removed',
      changes: [],
      applicable: !structural,
      notes,
    };
  }
  const changes: FieldChange[] = [];
  for (const field of REALM_FIELDS) {
    const to = source[field];
    const from = target ? target[field] : null;
    // An added realm lists what it sets; a null ("the default") is no change to show.
    if (target ? from !== to : to !== null) changes.push({ field, from, to });
  }
  const keyFields = [
    ['key', 'key_sha256'],
    ['manager_key', 'manager_key_sha256'],
  ] as const;
  // Differences the import shows but cannot apply: a key known only by its hash. Under their
  // own field names (`key_sha256`), which no command follows, so the row is never "unchanged"
  // while the broker's key differs from the file's (trial finding 16).
  const hashOnly: FieldChange[] = [];
  for (const [label, field] of keyFields) {
    const to = source.keys[field];
    const from = target ? target.keys[field] : null;
    if (to === from) continue;
    const what = label === 'key' ? 'pre-shared key' : 'manager key';
    if (keysInHand.has(name)) {
      changes.push({ field: label, from: short(from), to: short(to) });
    } else if (!target) {
      notes.push(`${what} not set: ${HASH_ONLY_KEY_NOTE}`);
    } else {
      hashOnly.push({ field, from: short(from), to: short(to) });
      notes.push(
        to === null
          ? `${what} not removed: the file has none, this broker's is left as it is`
          : `${what} differs: ${HASH_ONLY_KEY_NOTE}`,
      );
    }
  }
  const keyKnown = keysInHand.has(name) || !source.keys.key_sha256;
  const targetKey = target ? target.keys.key_sha256 !== null : false;
  if (changes.some((c) => c.field === 'require_key') && !keyKnown && targetKey) {
    notes.push('require_key not changed: the protocol sets it only together with the key');
  }
  if (!target && name === '*') {
    notes.push('the "*" realm is never created by a command');
    return { id, kind: 'realm', name, status: 'added', changes, applicable: false, notes };
  }
  const status: DiffStatus = !target
    ? 'added'
    : changes.length + hashOnly.length > 0
      ? 'changed'
      : 'unchanged';
  const applicable = !target || changes.length > 0;
  return { id, kind: 'realm', name, status, changes: [...changes, ...hashOnly], applicable, notes };
}

/**
 * Diffs `source` (the imported document) against `target` (the broker's current definitions).
 * `keysInHand`: realms whose keys the import holds in clear (an encrypted export, decrypted).
 * Items are ordered: settings, realms, tokens, management tokens, validators; names sorted.
 */
export function diffDefinitions(
  source: DefinitionsDocument,
  target: DefinitionsDocument,
  keysInHand: KeysInHand = new Set(),
): DefinitionsDiff {
  const items: DiffItem[] = [];
  const authChanged = source.settings.auth_enabled !== target.settings.auth_enabled;
  items.push({
    id: 'setting:auth_enabled',
    kind: 'setting',
    name: 'auth_enabled',
    status: authChanged ? 'changed' : 'unchanged',
    changes: authChanged
      ? [
          {
            field: 'auth_enabled',
            from: target.settings.auth_enabled,
            to: source.settings.auth_enabled,
          },
        ]
      : [],
    applicable: authChanged,
    notes: [],
  });
  const sourceRealms = new Map(source.realms.map((r) => [r.name, r]));
  const targetRealms = new Map(target.realms.map((r) => [r.name, r]));
  const realmNames = [...new Set([...sourceRealms.keys(), ...targetRealms.keys()])].sort();
  for (const name of realmNames) {
    items.push(realmItem(name, sourceRealms.get(name), targetRealms.get(name), keysInHand));
  }
  items.push(
    ...hashedItems(
      'token',
      source.tokens,
      target.tokens,
      (t) => `${t.realm}/${t.client_id ?? t.token_hash.slice(0, 12)}`,
      // Never offer to revoke a global admin token: it may be the console's own credential.
      (t) => !(t.realm === '*' && t.role === 'admin'),
      tokenLabel,
    ),
    ...hashedItems(
      'management_token',
      source.management_tokens,
      target.management_tokens,
      (t) => `${t.realm_prefix}* (${t.token_hash.slice(0, 12)})`,
      () => true,
      () => undefined,
    ),
  );
  const validatorKey = (v: DefinitionsDocument['validators'][number]) => `${v.scope}:${v.target}`;
  const targetValidators = new Map(target.validators.map((v) => [validatorKey(v), v]));
  for (const v of source.validators) {
    const current = targetValidators.get(validatorKey(v));
    const same = current?.url === v.url;
    items.push({
      id: `validator:${validatorKey(v)}`,
      kind: 'validator',
      name: validatorKey(v),
      status: !current ? 'added' : same ? 'unchanged' : 'changed',
      changes: same ? [] : [{ field: 'url', from: current?.url ?? null, to: v.url }],
      applicable: false,
      notes: same ? [] : ['not applied: its secret is not exported; set it in Clients and tokens'],
    });
  }
  const counts = { added: 0, changed: 0, removed: 0, unchanged: 0 };
  const applicable = { added: 0, changed: 0, removed: 0 };
  for (const item of items) {
    counts[item.status] += 1;
    if (item.applicable && item.status !== 'unchanged') applicable[item.status] += 1;
  }
  return { items, counts, applicable };
}

const ROLE_WORDS: Record<string, string> = { both: 'client', manager: 'manager' };

/** A token's kind as an operator reads it: its role and realm ("admin token (all realms)"). */
export function tokenLabel(token: { realm: string; role: string }): string {
  const realm = token.realm === '*' ? 'all realms' : `realm ${token.realm}`;
  return `${ROLE_WORDS[token.role] ?? token.role} token (${realm})`;
}

/** Tokens are known by hash only: added ones cannot be re-created, removed ones can be revoked. */
function hashedItems<T extends { token_hash: string }>(
  kind: 'token' | 'management_token',
  source: readonly T[],
  target: readonly T[],
  name: (t: T) => string,
  revocable: (t: T) => boolean,
  label: (t: T) => string | undefined,
): DiffItem[] {
  const labelled = (t: T) => {
    const text = label(t);
    return text === undefined ? {} : { label: text };
  };
  const sourceHashes = new Set(source.map((t) => t.token_hash));
  const targetHashes = new Set(target.map((t) => t.token_hash));
  const items: DiffItem[] = [];
  for (const t of source) {
    if (targetHashes.has(t.token_hash)) continue;
    items.push({
      id: `${kind}:${t.token_hash}`,
      kind,
      name: name(t),
      ...labelled(t),
      status: 'added',
      changes: [],
      applicable: false,
      notes: [HASH_ONLY_TOKEN_NOTE],
    });
  }
  for (const t of target) {
    if (sourceHashes.has(t.token_hash)) continue;
    const ok = revocable(t);
    items.push({
      id: `${kind}:${t.token_hash}`,
      kind,
      name: name(t),
      ...labelled(t),
      status: 'removed',
      changes: [],
      applicable: ok,
      notes: ok ? [] : ['a global admin token is never revoked by an import'],
    });
  }
  const unchanged = source.filter((t) => targetHashes.has(t.token_hash)).length;
  if (unchanged > 0) {
    items.push({
      id: `${kind}:unchanged`,
      kind,
      name: `${unchanged} ${kind === 'token' ? '' : 'management '}token${unchanged === 1 ? '' : 's'} already present`,
      status: 'unchanged',
      changes: [],
      applicable: false,
      notes: [],
    });
  }
  return items;
}
