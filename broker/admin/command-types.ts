/**
 * Shared shapes of the management commands (`spec/protocol-admin.md` §8): the caller's scope,
 * the error a command throws, and small parameter helpers for the aliases of §8.2.
 */
import { Protocol } from '../../shared/protocol-events';

/** Who signed the command (§6.5): a global admin, or one realm's manager key. */
export type ManagerScope = { kind: 'admin' } | { kind: 'realm'; realm: string };

/** The admin scope, for callers that have verified an admin proof. */
export const ADMIN_SCOPE: ManagerScope = { kind: 'admin' };

/** A command body as received (§6.1): any JSON object. */
export type CommandBody = Record<string, unknown>;

/** A failed command: answered as `{ok:false, code, message}` (§1), codes 400–501. */
export class CommandError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** The first of `keys` present in `body` (own property, value not undefined). */
export function pick(body: CommandBody, ...keys: string[]): unknown {
  for (const key of keys) {
    if (Object.prototype.hasOwnProperty.call(body, key) && body[key] !== undefined) {
      return body[key];
    }
  }
  return undefined;
}

/** Whether any of `keys` is present in `body` (even with a falsy value). */
export function has(body: CommandBody, ...keys: string[]): boolean {
  return keys.some((k) => Object.prototype.hasOwnProperty.call(body, k) && body[k] !== undefined);
}

/** Realms that exist by construction and are never removed, renamed or given a lifetime. */
export const STRUCTURAL_REALMS: ReadonlySet<string> = new Set([
  Protocol.DEFAULT_REALM,
  Protocol.ADMIN_REALM,
]);

/** Names that would reach an object's prototype (§8.4 note, §18 item 10). */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Longest realm name a command accepts (UTF-16 code units), as the auth schema. */
const MAX_REALM_NAME = 256;

/**
 * The `realm` parameter of a realm command: a non-empty string, else 400 `realm is required`;
 * prototype keys and over-long names → 400 `invalid realm name`.
 */
export function realmParam(body: CommandBody, key = 'realm'): string {
  const realm = body[key];
  if (typeof realm !== 'string' || realm === '') throw new CommandError(400, 'realm is required');
  assertRealmName(realm);
  return realm;
}

/**
 * C0/C1 control characters and DEL: invisible in every list, and the U+0000 separator of the
 * cluster's pin fields would let one realm's name be a prefix of another's.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * @throws CommandError 400 `invalid realm name` for prototype keys, over-long names and names
 * with control characters (Switchboard: the protocol sets no rule; such a realm cannot be told
 * apart in a list, and U+0000 is the cluster's field separator).
 */
export function assertRealmName(realm: string): void {
  if (
    RESERVED_NAMES.has(realm) ||
    realm.length > MAX_REALM_NAME ||
    CONTROL_CHARACTERS.test(realm)
  ) {
    throw new CommandError(400, 'invalid realm name');
  }
}

/** Whether `name` is an own key of `map` (never a prototype look-up). */
export function hasOwn(map: object, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(map, name);
}
