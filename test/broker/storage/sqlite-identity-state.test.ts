/**
 * The SQLite store's `identityState` facet (migration 6, `broker/storage/identity-state.ts`):
 * rows survive a reopen, `purgeRealm` deletes a realm's rows, `renameRealm` moves them when the
 * target has none and drops them otherwise. Real SQLite files in a temp dir.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let dir: TempDir;
const stores: SqliteStore[] = [];
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await dir.remove();
});

function open(): SqliteStore {
  const store = new SqliteStore({ filename: join(dir.path, 'ids.sqlite') });
  stores.push(store);
  return store;
}

const put = (realm: string, identity: string, kind: string, value: string) =>
  ({ op: 'put', realm, identity, kind, value }) as const;

describe('SQLite identity state', () => {
  it('upserts, deletes and reloads rows after a reopen', async () => {
    const store = open();
    await store.identityState.write(put('default', 'alice', 'keys', '[1]'));
    await store.identityState.write(put('default', 'alice', 'keys', '[2]'));
    await store.identityState.write(put('default', 'alice', 'pin', '"p"'));
    await store.identityState.write(put('default', 'bob', 'pin', '"q"'));
    await store.identityState.write({
      op: 'delete',
      realm: 'default',
      identity: 'bob',
      kind: 'pin',
    });
    await store.close();
    stores.length = 0;
    expect(await open().identityState.load()).toEqual([
      { realm: 'default', identity: 'alice', kind: 'keys', value: '[2]' },
      { realm: 'default', identity: 'alice', kind: 'pin', value: '"p"' },
    ]);
  });

  it('purgeRealm and renameRealm take the identity rows along', async () => {
    const store = open();
    await store.identityState.write(put('a', 'x', 'keys', '[]'));
    await store.identityState.write(put('b', 'y', 'keys', '[]'));
    await store.identityState.write(put('c', 'z', 'keys', '[]'));
    await store.purgeRealm('b');
    expect(await store.renameRealm('a', 'a2')).not.toBeNull();
    // `c2` holds rows already: `c`'s are dropped, not merged.
    await store.identityState.write(put('c2', 'w', 'keys', '[]'));
    expect(await store.renameRealm('c', 'c2')).not.toBeNull();
    expect((await store.identityState.load()).map((r) => `${r.realm}/${r.identity}`)).toEqual([
      'a2/x',
      'c2/w',
    ]);
  });
});
