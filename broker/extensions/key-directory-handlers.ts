/**
 * `KEY_PUBLISH` and `KEY_LOOKUP`: the E2EE public-key directory
 * (`spec/protocol-extensions.md` §2.1–§2.3), with Note 2-A (ownership per Note 1.5-A's Fix,
 * `identity-ownership.ts`) and Note 2-B (`Map`s, and the answer is always an array).
 *
 * `KEY_PUBLISH {identity|name, public_key|publicKey, key_id|keyId|kid, alg}` →
 * `{ok:true}`, or `{ok:false, code, message}` with §2.1's checks in order: 400 invalid JSON,
 * 400 identity / public_key required, 400 public_key over 4,096 chars, 400 key_id / alg not a
 * string of at most 128 chars, 403 identity not owned, 429 a ninth distinct key_id, 429 a new
 * identity past `e2ee.max_key_identities_per_realm` (Note 2-C; default unlimited). A
 * republished `key_id` is replaced in place (its position kept); a new one is appended.
 * With the SQLite store the reply waits for the commit; a failed commit answers 500.
 * `public_key: null` with an existing `key_id` from the owner deletes that entry (Note 2-F,
 * Switchboard extension; 404 for a key id the identity does not have).
 *
 * `KEY_LOOKUP {identity|name}` → `{keys:[{key_id, alg, public_key, updated_at}, …]}` from the
 * socket's realm; never fails (`{keys:[]}` for an unknown or missing identity or bad JSON).
 * Clustered, the directory and the pins are shared over Redis (`key-directory-sync.ts`).
 */
import { ClientEvent } from '../../shared/protocol-events';
import {
  ExtensionCode,
  ExtensionLimit,
  ExtensionText,
  KeyDefaults,
  notRegisteredText,
  tooManyKeyIdentitiesText,
  unknownKeyText,
  type PublishedKey,
} from '../../shared/protocol-extensions';
import type { HandlerContext } from '../handlers/handler-context';
import type { BrokerSocket } from '../transport/socket-types';
import {
  defineExtension,
  identityField,
  own,
  refuseInput,
  type ExtensionReply,
} from './extension-reply';
import { clusterPinAllows, ownsIdentity, pinIdentity } from './identity-ownership';

/** §2.1: a field that falls back to its default when falsy and must then be a short string. */
function shortString(value: unknown, fallback: string): string | null {
  if (!value) return fallback;
  return typeof value === 'string' && value.length <= ExtensionLimit.E2EE_MAX_KEY_ID_LENGTH
    ? value
    : null;
}

type Refuse = (code: number, message: string) => void;

/**
 * Note 2-F's recommendation: the owner deletes its entry `keyId` (`public_key: null`). 403 not
 * the owner, 404 no such key, 500 not stored; clustered, mirrored like a publish.
 */
async function unpublish(
  ctx: HandlerContext,
  socket: BrokerSocket,
  identity: string,
  keyId: string,
  refuse: Refuse,
  reply: ExtensionReply,
): Promise<void> {
  if (!ownsIdentity(ctx, socket, identity) || !(await clusterPinAllows(ctx, socket, identity))) {
    return refuse(ExtensionCode.FORBIDDEN, notRegisteredText(identity));
  }
  const realm = socket.data.realm;
  const current = ctx.extensions.keys.get(realm, identity) ?? [];
  const kept = current.filter((k) => k.key_id !== keyId);
  if (kept.length === current.length) {
    return refuse(ExtensionCode.NOT_FOUND, unknownKeyText(identity, keyId));
  }
  try {
    await (kept.length === 0
      ? ctx.extensions.keys.delete(realm, identity)
      : ctx.extensions.keys.set(realm, identity, kept));
  } catch (err) {
    ctx.logger.error({ err, socket: socket.id, realm }, 'key removal not stored');
    return reply({ ok: false, code: ExtensionCode.STORAGE, message: 'key not stored' });
  }
  ctx.extensions.sync?.mirror(realm, identity);
  ctx.logger.debug({ socket: socket.id, realm, keys: kept.length }, 'key unpublished');
  reply({ ok: true });
}

export const handleKeyPublish = defineExtension(
  ClientEvent.KEY_PUBLISH,
  async (ctx, socket, payload, reply) => {
    const refuse = (code: number, message: string) =>
      refuseInput(ctx, socket, ClientEvent.KEY_PUBLISH, reply, code, message);
    if (!payload.ok) return refuse(ExtensionCode.BAD_INPUT, payload.reason);
    const p = payload.value;
    const identity = identityField(p);
    if (typeof identity !== 'string' || identity === '') {
      return refuse(ExtensionCode.BAD_INPUT, ExtensionText.IDENTITY_REQUIRED);
    }
    const publicKey = own(p, 'public_key') || own(p, 'publicKey');
    const explicitKeyId = own(p, 'key_id') || own(p, 'keyId') || own(p, 'kid');
    // Note 2-F (Switchboard extension): `public_key: null` with a key id unpublishes it.
    if (own(p, 'public_key') === null && typeof explicitKeyId === 'string' && explicitKeyId) {
      return unpublish(ctx, socket, identity, explicitKeyId, refuse, reply);
    }
    if (typeof publicKey !== 'string' || publicKey === '') {
      return refuse(ExtensionCode.BAD_INPUT, ExtensionText.PUBLIC_KEY_REQUIRED);
    }
    if (publicKey.length > ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH) {
      return refuse(ExtensionCode.BAD_INPUT, ExtensionText.PUBLIC_KEY_TOO_LONG);
    }
    const keyId = shortString(explicitKeyId, KeyDefaults.KEY_ID);
    if (keyId === null) return refuse(ExtensionCode.BAD_INPUT, ExtensionText.BAD_KEY_ID);
    const alg = shortString(own(p, 'alg'), KeyDefaults.ALG);
    if (alg === null) return refuse(ExtensionCode.BAD_INPUT, ExtensionText.BAD_ALG);
    if (!ownsIdentity(ctx, socket, identity)) {
      return refuse(ExtensionCode.FORBIDDEN, notRegisteredText(identity));
    }
    const realm = socket.data.realm;
    const sync = ctx.extensions.sync;
    if (!(await clusterPinAllows(ctx, socket, identity))) {
      return refuse(ExtensionCode.FORBIDDEN, notRegisteredText(identity));
    }
    // Read after any await: a concurrent publish for the identity is not lost.
    const current = ctx.extensions.keys.get(realm, identity) ?? [];
    const at = current.findIndex((k) => k.key_id === keyId);
    if (at < 0 && current.length >= ExtensionLimit.E2EE_MAX_KEYS_PER_IDENTITY) {
      return refuse(ExtensionCode.RATE_LIMITED, ExtensionText.TOO_MANY_KEYS);
    }
    // Note 2-C: a new identity past the realm's cap (idle-evicted ones keep their keys).
    const cap = ctx.settings.e2ee.max_key_identities_per_realm;
    if (current.length === 0 && cap !== null && ctx.extensions.keys.count(realm) >= cap) {
      return refuse(ExtensionCode.RATE_LIMITED, tooManyKeyIdentitiesText(realm, cap));
    }
    const entry: PublishedKey = {
      key_id: keyId,
      alg,
      public_key: publicKey,
      updated_at: new Date().toISOString(),
    };
    const next = at < 0 ? [...current, entry] : current.map((k, i) => (i === at ? entry : k));
    const committed = Promise.all([
      ctx.extensions.keys.set(realm, identity, next),
      pinIdentity(ctx, socket, identity),
    ]);
    try {
      await committed;
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id, realm }, 'published key not stored');
      return reply({ ok: false, code: ExtensionCode.STORAGE, message: 'key not stored' });
    }
    sync?.mirror(realm, identity);
    ctx.logger.debug({ socket: socket.id, realm, keys: next.length }, 'key published');
    reply({ ok: true });
  },
);

export const handleKeyLookup = defineExtension(
  ClientEvent.KEY_LOOKUP,
  (ctx, socket, payload, reply) => {
    const identity = payload.ok ? identityField(payload.value) : undefined;
    const keys =
      typeof identity === 'string'
        ? ctx.extensions.keys.get(socket.data.realm, identity)
        : undefined;
    // Copies: what a client gets is never the stored entry.
    reply({ keys: (keys ?? []).map((k) => ({ ...k })) });
  },
);
