/**
 * `PREKEY_PUBLISH` and `PREKEY_TAKE`: the Signal prekey directory
 * (`spec/protocol-extensions.md` §3.1–§3.3) with the Fixes of Notes 3-A…3-D and 3-F.
 *
 * `PREKEY_PUBLISH {identity|name, identity_key, registration_id, device_id, signed_prekey_id,
 * signed_prekey, signed_prekey_sig, kyber_prekey_id, kyber_prekey, kyber_prekey_sig,
 * one_time_prekeys:[{id, key}]}` → `{ok:true, one_time_available}` or `{ok:false, code,
 * message}`, checks in §3.1's order: 400 invalid JSON, 400 identity required, 403 not owned
 * (Note 1.5-A's Fix, `identity-ownership.ts`; checked before the fields), 400 a static key field,
 * 400 an id out of Note 3-C's range, 400 over 100 one-time keys, 400 a bad one-time entry. The
 * static part is replaced; one-time keys are merged by id and appended (Note 3-D), the pool
 * cut to its first 100. With the SQLite store the reply waits for the commit (500 on failure).
 *
 * `PREKEY_TAKE {identity|name}` → the bundle with `found:true`, the oldest one-time key taken
 * out of the pool (`one_time_prekey_id`, `one_time_prekey`, `one_time_remaining`), or `null`s
 * and 0 when the pool is empty or the requester is past Note 3-B's limits; `{found:false}` for
 * an unknown identity or bad JSON. Never fails. The take removes the key from memory
 * synchronously, on the event loop, before anything else can read the pool: concurrent takes
 * never get the same key. With the SQLite store the reply waits until the smaller pool is
 * committed, so a restart cannot hand a served key out again; should that commit fail the
 * key is not served (the bundle is, without one) — it stays burned.
 *
 * Clustered (Note 3-E): the directory lives in Redis (`prekey-redis-directory.ts`), so any node
 * serves any bundle and a one-time key is handed out once cluster-wide; with Redis unreachable
 * a publish or take answers `{ok:false, code:503, message}` (never a key from a local copy).
 */
import { ClientEvent } from '../../shared/protocol-events';
import {
  ExtensionCode,
  ExtensionText,
  notRegisteredText,
  PrekeyText,
  type PrekeyBundle,
} from '../../shared/protocol-extensions';
import type { HandlerContext } from '../handlers/handler-context';
import type { BrokerSocket } from '../transport/socket-types';
import {
  defineExtension,
  identityField,
  refuseInput,
  type ExtensionReply,
} from './extension-reply';
import { clusterPinAllows, ownsIdentity, pinIdentity } from './identity-ownership';
import { mergePool, parseBundle, parseOneTime } from './prekey-bundle';
import type { PrekeyRedisDirectory, RedisTake } from './prekey-redis-directory';

/** Note 1.5-A's three conditions, with the cluster-wide pin when clustered. */
async function owned(ctx: HandlerContext, socket: BrokerSocket, identity: string) {
  return ownsIdentity(ctx, socket, identity) && (await clusterPinAllows(ctx, socket, identity));
}

export const handlePrekeyPublish = defineExtension(
  ClientEvent.PREKEY_PUBLISH,
  async (ctx, socket, payload, reply) => {
    const refuse = (code: number, message: string) =>
      refuseInput(ctx, socket, ClientEvent.PREKEY_PUBLISH, reply, code, message);
    if (!payload.ok) return refuse(ExtensionCode.BAD_INPUT, payload.reason);
    const p = payload.value;
    const identity = identityField(p);
    if (typeof identity !== 'string' || identity === '') {
      return refuse(ExtensionCode.BAD_INPUT, ExtensionText.IDENTITY_REQUIRED);
    }
    if (!(await owned(ctx, socket, identity))) {
      return refuse(ExtensionCode.FORBIDDEN, notRegisteredText(identity));
    }
    const bundle = parseBundle(p);
    if (typeof bundle === 'string') return refuse(ExtensionCode.BAD_INPUT, bundle);
    const added = parseOneTime(p);
    if (typeof added === 'string') return refuse(ExtensionCode.BAD_INPUT, added);
    const realm = socket.data.realm;
    const shared = ctx.extensions.prekeyCluster;
    if (shared) {
      let available: number;
      try {
        [available] = await Promise.all([
          shared.publish(realm, identity, bundle, new Date().toISOString(), added),
          pinIdentity(ctx, socket, identity),
        ]);
      } catch (err) {
        ctx.logger.error({ err, socket: socket.id, realm }, 'cluster prekey bundle not stored');
        return reply({
          ok: false,
          code: ExtensionCode.UNAVAILABLE,
          message: PrekeyText.UNAVAILABLE,
        });
      }
      return reply({ ok: true, one_time_available: available });
    }
    // After the last await: read and replace in one turn, so a concurrent take is not undone.
    const pool = mergePool(ctx.extensions.prekeys.get(realm, identity)?.pool ?? [], added);
    const committed = Promise.all([
      ctx.extensions.prekeys.set(realm, identity, {
        bundle,
        updated_at: new Date().toISOString(),
        pool,
      }),
      pinIdentity(ctx, socket, identity),
    ]);
    try {
      await committed;
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id, realm }, 'prekey bundle not stored');
      return reply({ ok: false, code: ExtensionCode.STORAGE, message: 'prekey bundle not stored' });
    }
    ctx.logger.debug({ socket: socket.id, realm, pool: pool.length }, 'prekey bundle published');
    reply({ ok: true, one_time_available: pool.length });
  },
);

/** §3.2: the answer to a take, the static bundle copied field by field. */
function takeReply(bundle: PrekeyBundle, id: number | null, key: string | null, left: number) {
  return {
    found: true,
    ...bundle,
    one_time_prekey_id: id,
    one_time_prekey: key,
    one_time_remaining: left,
  };
}

export const handlePrekeyTake = defineExtension(
  ClientEvent.PREKEY_TAKE,
  async (ctx, socket, payload, reply) => {
    const identity = payload.ok ? identityField(payload.value) : undefined;
    const realm = socket.data.realm;
    const shared = ctx.extensions.prekeyCluster;
    if (shared) {
      if (typeof identity !== 'string') return reply({ found: false });
      return takeShared(ctx, socket, shared, identity, reply);
    }
    const entry =
      typeof identity === 'string' ? ctx.extensions.prekeys.get(realm, identity) : undefined;
    if (typeof identity !== 'string' || !entry) return reply({ found: false });
    const requester = { socketId: socket.id, principal: socket.data.principal };
    const perMinute = ctx.settings.e2ee.prekey_takes_per_minute;
    if (
      entry.pool.length === 0 ||
      !ctx.extensions.prekeyTakes.allow(requester, realm, identity, perMinute)
    ) {
      // Empty pool, or Note 3-B's limit: X3DH runs without a one-time key.
      return reply(takeReply(entry.bundle, null, null, 0));
    }
    // One turn of the event loop: take the oldest and store the smaller pool in memory.
    const [taken, ...rest] = entry.pool;
    const committed = ctx.extensions.prekeys.set(realm, identity, { ...entry, pool: rest });
    try {
      await committed;
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id, realm }, 'prekey take not stored; key withheld');
      return reply(takeReply(entry.bundle, null, null, rest.length));
    }
    reply(takeReply(entry.bundle, taken!.id, taken!.key, rest.length));
  },
);

/**
 * Note 3-E's take: a look (bundle and pool length), then, when Note 3-B's limits allow, the
 * `LPOP` of the oldest key. Redis unreachable: `{ok:false, code:503, message}`, never a key.
 */
async function takeShared(
  ctx: HandlerContext,
  socket: BrokerSocket,
  shared: PrekeyRedisDirectory,
  identity: string,
  reply: ExtensionReply,
): Promise<void> {
  const realm = socket.data.realm;
  let found: RedisTake | null;
  try {
    found = await shared.take(realm, identity, false);
    const requester = { socketId: socket.id, principal: socket.data.principal };
    const perMinute = ctx.settings.e2ee.prekey_takes_per_minute;
    if (
      found &&
      found.remaining > 0 &&
      ctx.extensions.prekeyTakes.allow(requester, realm, identity, perMinute)
    ) {
      found = await shared.take(realm, identity, true);
    }
  } catch (err) {
    ctx.logger.error({ err, socket: socket.id, realm }, 'cluster prekey take failed');
    return reply({ ok: false, code: ExtensionCode.UNAVAILABLE, message: PrekeyText.UNAVAILABLE });
  }
  if (!found) return reply({ found: false });
  const { bundle, taken, remaining } = found;
  reply(takeReply(bundle, taken?.id ?? null, taken?.key ?? null, taken ? remaining : 0));
}
