/**
 * `KEY_PUBLISH` and `KEY_LOOKUP`: the E2EE public-key directory
 * (`spec/protocol-extensions.md` §2.1–§2.3), with Note 2-A (ownership per Note 1.5-A's Fix,
 * `identity-ownership.ts`) and Note 2-B (`Map`s, and the answer is always an array).
 *
 * `KEY_PUBLISH {identity|name, public_key|publicKey, key_id|keyId|kid, alg}` →
 * `{ok:true}`, or `{ok:false, code, message}` with §2.1's checks in order: 400 invalid JSON,
 * 400 identity / public_key required, 400 public_key over 4,096 chars, 400 key_id / alg not a
 * string of at most 128 chars, 403 identity not owned, 429 a ninth distinct key_id. A
 * republished `key_id` is replaced in place (its position kept); a new one is appended.
 * With the SQLite store the reply waits for the commit; a failed commit answers 500.
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
  type PublishedKey,
} from '../../shared/protocol-extensions';
import { defineExtension, identityField, own, refuseInput } from './extension-reply';
import { ownsIdentity, pinIdentity } from './identity-ownership';

/** §2.1: a field that falls back to its default when falsy and must then be a short string. */
function shortString(value: unknown, fallback: string): string | null {
  if (!value) return fallback;
  return typeof value === 'string' && value.length <= ExtensionLimit.E2EE_MAX_KEY_ID_LENGTH
    ? value
    : null;
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
    if (typeof publicKey !== 'string' || publicKey === '') {
      return refuse(ExtensionCode.BAD_INPUT, ExtensionText.PUBLIC_KEY_REQUIRED);
    }
    if (publicKey.length > ExtensionLimit.E2EE_MAX_PUBLIC_KEY_LENGTH) {
      return refuse(ExtensionCode.BAD_INPUT, ExtensionText.PUBLIC_KEY_TOO_LONG);
    }
    const keyId = shortString(
      own(p, 'key_id') || own(p, 'keyId') || own(p, 'kid'),
      KeyDefaults.KEY_ID,
    );
    if (keyId === null) return refuse(ExtensionCode.BAD_INPUT, ExtensionText.BAD_KEY_ID);
    const alg = shortString(own(p, 'alg'), KeyDefaults.ALG);
    if (alg === null) return refuse(ExtensionCode.BAD_INPUT, ExtensionText.BAD_ALG);
    if (!ownsIdentity(ctx, socket, identity)) {
      return refuse(ExtensionCode.FORBIDDEN, notRegisteredText(identity));
    }
    const realm = socket.data.realm;
    // Clustered: the pin is the cluster's (first principal anywhere wins, Note 1.5-A).
    const sync = ctx.extensions.sync;
    if (sync) {
      const pin = await sync.claimPin(realm, identity, socket.data.principal);
      if (pin !== null && pin !== socket.data.principal) {
        return refuse(ExtensionCode.FORBIDDEN, notRegisteredText(identity));
      }
    }
    // Read after any await: a concurrent publish for the identity is not lost.
    const current = ctx.extensions.keys.get(realm, identity) ?? [];
    const at = current.findIndex((k) => k.key_id === keyId);
    if (at < 0 && current.length >= ExtensionLimit.E2EE_MAX_KEYS_PER_IDENTITY) {
      return refuse(ExtensionCode.RATE_LIMITED, ExtensionText.TOO_MANY_KEYS);
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
