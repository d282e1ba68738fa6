/**
 * The fields of a node's interest hash `<prefix>:interest:<node>` (issue 21; docs/cluster.md,
 * "Interest routing"). Each field is one thing the node's routing state wants:
 *
 * | field                         | value   | wanted                                                  |
 * | ----------------------------- | ------- | ------------------------------------------------------- |
 * | `k:<n>:<realm>:<key>`         | `1`     | messages whose candidate key (§7 k1–k3) is `key`        |
 * | `t:<n>:<realm>:<key>`         | pattern | messages whose event matches the topic pattern (§11)    |
 * | `g:<n>:<realm>:<group>`       | `1`     | group broadcasts to `group` (§13.2), with `l` set       |
 * | `l:<n>:<realm>:`              | `1`     | realm broadcasts (§13.1): a name of the realm is online |
 * | `a:<n>:<realm>:`              | `1`     | every non-broadcast message of `realm` (a tap)          |
 * | `A:0::`                       | `1`     | every non-broadcast message (a tap without realms)      |
 *
 * `<n>` is the realm name's length in UTF-16 code units, so a realm may hold any character
 * (`:` included) and the field still parses; the value part is the rest of the field. Realm
 * `*` is the admin realm: its `k`/`t`/`a` fields match messages of every realm, as its
 * subscriptions do locally (§7 step 3). Two more fields are not interest: `epoch` (the
 * writing process's random id) and `rev` (its revision, see `interest-sync.ts`).
 */

export type FieldKind = 'k' | 't' | 'g' | 'l' | 'a' | 'A';

export interface ParsedField {
  kind: FieldKind;
  realm: string;
  /** Key, topic key or group; `''` for `l`, `a` and `A`. */
  value: string;
}

/** The hash fields that carry the writer's identity and revision rather than interest. */
export const EPOCH_FIELD = 'epoch';
export const REV_FIELD = 'rev';

/** The field of `(kind, realm, value)`. */
export function interestField(kind: FieldKind, realm: string, value = ''): string {
  return `${kind}:${realm.length}:${realm}:${value}`;
}

/** The field for "every message" (`A`). */
export const TAP_ALL_FIELD = interestField('A', '');

const KINDS = new Set<string>(['k', 't', 'g', 'l', 'a', 'A']);

/** Parses a field; null for `epoch`, `rev` and anything malformed. */
export function parseField(field: string): ParsedField | null {
  if (field.length < 5 || field[1] !== ':' || !KINDS.has(field[0]!)) return null;
  const colon = field.indexOf(':', 2);
  if (colon < 0) return null;
  const digits = field.slice(2, colon);
  if (!/^\d{1,6}$/.test(digits)) return null;
  const start = colon + 1;
  const end = start + Number(digits);
  if (field[end] !== ':') return null;
  return {
    kind: field[0] as FieldKind,
    realm: field.slice(start, end),
    value: field.slice(end + 1),
  };
}
