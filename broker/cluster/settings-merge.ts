/**
 * Three-way merge of settings documents, so that two nodes changing the cluster's settings at
 * the same time keep both changes (`spec/protocol-admin.md` §15 says last writer wins; see
 * docs/cluster.md "Admin state in a cluster").
 *
 * `base` is the document both changes started from, `mine` this node's, `theirs` the one a
 * peer published meanwhile. Per value: unchanged on one side → the other side's; objects
 * (realms, limits…) are merged key by key; arrays (tokens, management tokens, validators) are
 * merged as sets of entries — theirs, minus the entries this node removed, plus the entries
 * this node added. When both sides changed the same scalar differently, this node's wins.
 */
import { stableJson } from '../../shared/admin-signature';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const same = (x: unknown, y: unknown): boolean =>
  x === undefined || y === undefined ? x === y : stableJson(x) === stableJson(y);

/** The merge of `mine` and `theirs` since `base`; `undefined` means "no such key". */
export function mergeDocuments(base: unknown, mine: unknown, theirs: unknown): unknown {
  if (same(mine, base) || same(mine, theirs)) return theirs;
  if (same(theirs, base)) return mine;
  if (isObject(mine) && isObject(theirs)) {
    const from = isObject(base) ? base : {};
    const out: Json = {};
    for (const key of new Set([...Object.keys(theirs), ...Object.keys(mine)])) {
      const value = mergeDocuments(from[key], mine[key], theirs[key]);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  if (Array.isArray(mine) && Array.isArray(theirs)) {
    const from = new Set((Array.isArray(base) ? base : []).map((e) => stableJson(e)));
    const kept = new Set(mine.map((e) => stableJson(e)));
    const out = theirs.filter((e) => {
      const key = stableJson(e);
      return !from.has(key) || kept.has(key);
    });
    const present = new Set(out.map((e) => stableJson(e)));
    for (const e of mine) {
      const key = stableJson(e);
      if (!from.has(key) && !present.has(key)) {
        out.push(e);
        present.add(key);
      }
    }
    return out;
  }
  return mine;
}
