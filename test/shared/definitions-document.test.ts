/**
 * The definitions document (shared/definitions-document.ts) and its diff
 * (shared/definitions-diff.ts), issue 27: parsing answers a clear message for bad JSON, another
 * format, another version or a bad shape; the diff classifies settings, realms and tokens as
 * added / changed / removed / unchanged, marks what an import can apply, and says when a key is
 * known only by its hash.
 */
import { describe, expect, it } from 'vitest';
import {
  HASH_ONLY_KEY_NOTE,
  HASH_ONLY_TOKEN_NOTE,
  diffDefinitions,
} from '../../shared/definitions-diff';
import {
  parseDefinitions,
  type DefinitionsDocument,
  type RealmDefinition,
} from '../../shared/definitions-document';

const H = (c: string) => c.repeat(64);

const realm = (name: string, extra: Partial<RealmDefinition> = {}): RealmDefinition => ({
  name,
  required: true,
  require_key: null,
  require_acceptance: null,
  allow_tokenless_consumers: false,
  e2ee: 'off',
  ephemeral: false,
  ttl_seconds: null,
  keys: { key_sha256: null, manager_key_sha256: null },
  ...extra,
});

const doc = (extra: Partial<DefinitionsDocument> = {}): DefinitionsDocument => ({
  format: 'switchboard-definitions',
  version: 1,
  exported_at: '2026-12-04T10:00:00.000Z',
  broker: { name: 'Local broker', url: 'http://127.0.0.1:1', version: null },
  settings: { auth_enabled: true, storage: 'sqlite' },
  limits: null,
  realms: [realm('default', { required: false })],
  tokens: [],
  management_tokens: [],
  validators: [],
  ...extra,
});

describe('parseDefinitions', () => {
  it('accepts a valid document', () => {
    const parsed = parseDefinitions(JSON.stringify(doc()));
    expect(parsed).toMatchObject({ ok: true, document: { version: 1 } });
  });

  it.each([
    ['{"format":', /^Not JSON/],
    ['[1,2]', /Not a Switchboard definitions file/],
    [JSON.stringify({ format: 'rabbitmq', version: 1 }), /Not a Switchboard definitions file/],
    [JSON.stringify({ ...doc(), version: 2 }), /Unsupported definitions version 2/],
    [
      JSON.stringify({ ...doc(), realms: [{ ...realm('x'), e2ee: 'sometimes' }] }),
      /Invalid definitions file at realms\.0\.e2ee/,
    ],
    [
      JSON.stringify({ ...doc(), realms: [{ ...realm('x'), key: 'in-clear' }] }),
      /Invalid definitions file at realms\.0/,
    ],
    [JSON.stringify(doc({ realms: [realm('x'), realm('x')] })), /realm x appears twice/],
  ])('refuses case %# with a clear message', (text, message) => {
    const parsed = parseDefinitions(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(message);
  });
});

describe('diffDefinitions', () => {
  const target = doc({
    realms: [
      realm('default', { required: false }),
      realm('same'),
      realm('edited', { require_acceptance: true }),
      realm('gone'),
    ],
    tokens: [
      { realm: 'same', role: 'both', client_id: 'kept', client_name: null, token_hash: H('1') },
      { realm: 'same', role: 'both', client_id: 'old', client_name: null, token_hash: H('2') },
      { realm: '*', role: 'admin', client_id: null, client_name: null, token_hash: H('3') },
    ],
  });
  const source = doc({
    settings: { auth_enabled: false, storage: 'sqlite' },
    realms: [
      realm('default', { required: false }),
      realm('same'),
      realm('edited', { require_acceptance: false, e2ee: 'required' }),
      realm('new', { keys: { key_sha256: H('a'), manager_key_sha256: null } }),
    ],
    tokens: [
      { realm: 'same', role: 'both', client_id: 'kept', client_name: null, token_hash: H('1') },
      { realm: 'new', role: 'producer', client_id: 'n', client_name: null, token_hash: H('4') },
    ],
  });
  const byId = (diff: ReturnType<typeof diffDefinitions>, id: string) =>
    diff.items.find((i) => i.id === id);

  it('classifies every setting, realm and token', () => {
    const diff = diffDefinitions(source, target);
    expect(byId(diff, 'setting:auth_enabled')).toMatchObject({
      status: 'changed',
      applicable: true,
      changes: [{ field: 'auth_enabled', from: true, to: false }],
    });
    expect(byId(diff, 'realm:same')).toMatchObject({ status: 'unchanged', applicable: false });
    expect(byId(diff, 'realm:edited')).toMatchObject({
      status: 'changed',
      changes: [
        { field: 'require_acceptance', from: true, to: false },
        { field: 'e2ee', from: 'off', to: 'required' },
      ],
    });
    expect(byId(diff, 'realm:gone')).toMatchObject({ status: 'removed', applicable: true });
    expect(byId(diff, 'realm:new')).toMatchObject({ status: 'added', applicable: true });
    expect(byId(diff, 'realm:new')!.notes).toEqual([
      `pre-shared key not set: ${HASH_ONLY_KEY_NOTE}`,
    ]);
    expect(byId(diff, `token:${H('4')}`)).toMatchObject({
      status: 'added',
      applicable: false,
      notes: [HASH_ONLY_TOKEN_NOTE],
    });
    expect(byId(diff, `token:${H('2')}`)).toMatchObject({ status: 'removed', applicable: true });
    // The console's own kind of credential is never offered for revocation.
    expect(byId(diff, `token:${H('3')}`)).toMatchObject({ status: 'removed', applicable: false });
    expect(byId(diff, 'token:unchanged')?.name).toBe('1 token already present');
    expect(diff.counts).toEqual({ added: 2, changed: 2, removed: 3, unchanged: 3 });
  });

  // Trial findings 17/18: every token read "client token"; "Also remove (N)" counted the global
  // admin token that is never removed.
  it('labels tokens by role and realm, and counts only the rows an import sends', () => {
    const diff = diffDefinitions(source, target);
    expect(byId(diff, `token:${H('3')}`)?.label).toBe('admin token (all realms)');
    expect(byId(diff, `token:${H('2')}`)?.label).toBe('client token (realm same)');
    expect(byId(diff, `token:${H('4')}`)?.label).toBe('producer token (realm new)');
    expect(byId(diff, 'realm:gone')?.label).toBeUndefined();
    // Removed: realm gone and token 2 are sent, the global admin token 3 is not.
    expect(diff.applicable).toEqual({ added: 1, changed: 2, removed: 2 });
  });

  it('shows key changes (shortened hashes) only when the import holds the keys', () => {
    const diff = diffDefinitions(source, target, new Set(['new']));
    expect(byId(diff, 'realm:new')!.notes).toEqual([]);
    expect(byId(diff, 'realm:new')!.changes).toContainEqual({
      field: 'key',
      from: null,
      to: 'aaaaaaaaaaaa',
    });
  });

  // Trial finding 16: a hashed file whose key differs from the broker's was shown "unchanged".
  it('flags a key known only by a different hash as a change it cannot apply', () => {
    const keyed = (key: string | null, manager: string | null = null) =>
      doc({ realms: [realm('k', { keys: { key_sha256: key, manager_key_sha256: manager } })] });
    const diff = diffDefinitions(keyed(H('a'), H('c')), keyed(H('b'), H('c')));
    expect(byId(diff, 'realm:k')).toEqual({
      id: 'realm:k',
      kind: 'realm',
      name: 'k',
      status: 'changed',
      changes: [{ field: 'key_sha256', from: 'bbbbbbbbbbbb', to: 'aaaaaaaaaaaa' }],
      applicable: false,
      notes: [`pre-shared key differs: ${HASH_ONLY_KEY_NOTE}`],
    });
    expect(diff.counts.changed).toBe(1);
    // The file has no key, the broker has one: shown, and left as it is.
    const none = byId(diffDefinitions(keyed(null), keyed(H('b'))), 'realm:k')!;
    expect(none).toMatchObject({ status: 'changed', applicable: false });
    expect(none.notes.join(' ')).toMatch(/pre-shared key not removed/);
    // With another change the row still applies that change, the key note stays.
    const mixed = doc({
      realms: [
        realm('k', { e2ee: 'required', keys: { key_sha256: H('a'), manager_key_sha256: null } }),
      ],
    });
    const row = byId(diffDefinitions(mixed, keyed(H('b'))), 'realm:k')!;
    expect(row).toMatchObject({ status: 'changed', applicable: true });
    expect(row.changes.map((c) => c.field)).toEqual(['e2ee', 'key_sha256']);
  });

  it('never removes the structural realms', () => {
    const diff = diffDefinitions(doc({ realms: [] }), target);
    expect(byId(diff, 'realm:default')).toMatchObject({ status: 'removed', applicable: false });
  });
});
