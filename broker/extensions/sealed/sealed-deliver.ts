/**
 * `SEALED_DELIVER {to:{realm, identity}, uak?, blob, msg_id?}` (`spec/protocol-extensions.md`
 * §4.6, §4.7): any authorized socket, in any realm, to any sealed-enabled realm.
 *
 * Checks in order: 400 `invalid JSON`; 501 not configured; 429 over 60 calls of this socket in
 * its fixed 60 s window (every call past the 501 counts); 400 destination / blob not strings
 * (or destination over 256 chars, or an empty blob: Note 4-I); 400 `blob too large` (over
 * 87,386 chars); 400
 * `invalid msg_id` (present, `null` included, and not a string of at most 128 chars); 403 the
 * destination realm exists at runtime with policy off; 404 no runtime realm or no UAK record
 * (own keys only); 403 `not authorised` when `require-uak` and the presented UAK (lenient
 * base64) differs — compared in constant time after a length check.
 *
 * Delivery `{blob, msg_id: msg_id || ""}`: online (the live consumer entry of `to.identity` in
 * the destination realm on this node, else its producer entry) as `SEALED_MESSAGE`, answering
 * `{ok:true, delivered:"online"}`; otherwise queued in the sealed inbox for the inbox TTL,
 * answering `{ok:true, delivered:"queued"}`, or 507 `recipient queue full` when limits cap
 * the destination realm's queue (durable copies plus sealed entries; check and insert
 * serialized per realm, Note 4-F), or 500 `delivery failed`. The `sealed` settings add
 * per-IP and per-recipient budgets (Note 4-E) and `uniform_errors` (Note 4-D;
 * `sealed-config.ts`); a destination realm with `sealed_accept_from: "same-realm"` refuses
 * senders of other realms with `403 "not authorised"` (Note 4-G). Nothing about the blob, the UAK
 * or the sender is logged.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import {
  ExtensionCode,
  ExtensionLimit,
  SealedLimit,
  SealedMode,
  SealedText,
} from '../../../shared/protocol-extensions';
import type { HandlerContext } from '../../handlers/handler-context';
import type { BrokerSocket } from '../../transport/socket-types';
import { realmE2eePolicy } from '../../auth/e2ee-policy';
import { defineExtension, own, refuseInput } from '../extension-reply';
import type { SealedConfig } from './sealed-config';
import { lenientBase64, uakEquals } from './sealed-guard';
import { liveEntries } from './sealed-inbox';
import { SealedUakUnavailable } from './sealed-uak-redis';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * §4.6 checks 8–9: whether `given` (the presented UAK's bytes) admits a sender to (realm,
 * identity). Single node: the node-local record, only for a realm existing at runtime here.
 * Clustered: the record shared in Redis (Note 4-J; a realm known to the cluster need not have
 * sockets on this node), compared by keyed digest in constant time; `'unavailable'` when
 * Redis cannot be reached.
 */
async function uakAccess(
  ctx: HandlerContext,
  config: SealedConfig,
  runtimeRealm: boolean,
  realm: string,
  identity: string,
  given: Uint8Array,
): Promise<'ok' | 'none' | 'denied' | 'unavailable'> {
  const shared = ctx.extensions.uakCluster;
  if (shared) {
    let record;
    try {
      record = await shared.get(realm, identity);
    } catch (err) {
      if (err instanceof SealedUakUnavailable) return 'unavailable';
      throw err;
    }
    if (!record) return 'none';
    if (record.mode !== SealedMode.REQUIRE_UAK) return 'ok';
    const digest = Buffer.from(config.uakDigest(given), 'hex');
    return uakEquals(digest, Buffer.from(record.digest ?? '', 'hex')) ? 'ok' : 'denied';
  }
  const record = runtimeRealm ? ctx.extensions.uaks.get(realm, identity) : undefined;
  if (!record) return 'none';
  if (record.mode !== SealedMode.REQUIRE_UAK) return 'ok';
  return uakEquals(given, lenientBase64(record.uak ?? '')) ? 'ok' : 'denied';
}

/** The live socket `identity` is bound to in `realm` on this node: consumer first (§4.6). */
function recipientSocket(
  ctx: HandlerContext,
  realm: string,
  identity: string,
): BrokerSocket | null {
  const registry = ctx.realms.get(realm);
  if (!registry) return null;
  const consumer = registry.consumers.get(identity);
  const entry = consumer ?? registry.producer(identity);
  const socket = entry?.socket ?? null;
  return socket?.connected ? socket : null;
}

export const handleSealedDeliver = defineExtension(
  ClientEvent.SEALED_DELIVER,
  async (ctx, socket, payload, reply) => {
    const refuse = (code: number, message: string) =>
      refuseInput(ctx, socket, ClientEvent.SEALED_DELIVER, reply, code, message);
    if (!payload.ok) return refuse(ExtensionCode.BAD_INPUT, payload.reason);
    const config = ctx.extensions.sealed;
    if (!config) return refuse(ExtensionCode.NOT_CONFIGURED, SealedText.NOT_CONFIGURED);
    const runtime = ctx.extensions.sealedRuntime;
    const budgets = ctx.settings.sealed;
    const now = Date.now();
    // Both budgets count every call (no short-circuit): a refused call still spends them.
    const perSocket = runtime.allowSend(socket, now, ExtensionLimit.SEALED_SENDS_PER_MIN);
    const perIp = runtime.allowKeyed(
      `ip:${ctx.limits.clientIp(socket)}`,
      now,
      budgets.sends_per_minute_per_ip,
    );
    if (!perSocket || !perIp) return refuse(ExtensionCode.RATE_LIMITED, SealedText.RATE_EXCEEDED);
    const p = payload.value;
    const to = own(p, 'to');
    const realm = isObject(to) ? own(to, 'realm') : undefined;
    const identity = isObject(to) ? own(to, 'identity') : undefined;
    const blob = own(p, 'blob');
    if (
      typeof realm !== 'string' ||
      typeof identity !== 'string' ||
      typeof blob !== 'string' ||
      // Note 4-I: an empty blob is missing, not too large.
      blob === '' ||
      realm.length > SealedLimit.MAX_DESTINATION_CHARS ||
      identity.length > SealedLimit.MAX_DESTINATION_CHARS
    ) {
      return refuse(ExtensionCode.BAD_INPUT, SealedText.DELIVER_FIELDS);
    }
    if (blob.length > ExtensionLimit.SEALED_MAX_BLOB_CHARS) {
      return refuse(ExtensionCode.BAD_INPUT, SealedText.BLOB_TOO_LARGE);
    }
    const hasMsgId = Object.prototype.hasOwnProperty.call(p, 'msg_id');
    const msgId = own(p, 'msg_id');
    if (hasMsgId && (typeof msgId !== 'string' || msgId.length > SealedLimit.MAX_MSG_ID_CHARS)) {
      return refuse(ExtensionCode.BAD_INPUT, SealedText.INVALID_MSG_ID);
    }
    const destination = `to:${realm.length}:${realm}${identity}`;
    if (!runtime.allowKeyed(destination, now, budgets.sends_per_minute_per_recipient)) {
      return refuse(ExtensionCode.RATE_LIMITED, SealedText.RATE_EXCEEDED);
    }
    // Note 4-D: under `uniform_errors` checks 7–9 all answer the same 403.
    const uniform = budgets.uniform_errors;
    const deny = (code: number, message: string) =>
      uniform ? refuse(ExtensionCode.FORBIDDEN, SealedText.NOT_AUTHORISED) : refuse(code, message);
    // Own keys only: the realm directory and the UAK map are `Map`s (`__proto__` never matches).
    const runtimeRealm = ctx.realms.get(realm);
    if (runtimeRealm && realmE2eePolicy(ctx.auth, realm) === 'off') {
      return deny(ExtensionCode.FORBIDDEN, SealedText.DESTINATION_OFF);
    }
    // Note 4-G: a realm may accept sealed blobs from its own sockets only.
    if (ctx.auth.realm(realm)?.sealed_accept_from === 'same-realm' && socket.data.realm !== realm) {
      return refuse(ExtensionCode.FORBIDDEN, SealedText.NOT_AUTHORISED);
    }
    const presented = own(p, 'uak');
    const given = lenientBase64(typeof presented === 'string' ? presented : '');
    const access = await uakAccess(ctx, config, runtimeRealm !== undefined, realm, identity, given);
    if (access === 'unavailable') {
      return refuse(ExtensionCode.UNAVAILABLE, SealedText.UNAVAILABLE);
    }
    if (access === 'none') return deny(ExtensionCode.NOT_FOUND, SealedText.NOT_REACHABLE);
    if (access === 'denied') return deny(ExtensionCode.FORBIDDEN, SealedText.NOT_AUTHORISED);
    const message = { blob, msg_id: typeof msgId === 'string' ? msgId : '' };
    const target = recipientSocket(ctx, realm, identity);
    if (target) {
      target.emit(ServerEvent.SEALED_MESSAGE, message);
      return reply({ ok: true, delivered: uniform ? 'queued' : 'online' });
    }
    reply(await enqueue(ctx, config, realm, identity, message));
  },
);

/** The offline path (§4.6 "Offline"), serialized per destination realm (Note 4-F). */
function enqueue(
  ctx: HandlerContext,
  config: SealedConfig,
  realm: string,
  identity: string,
  message: { blob: string; msg_id: string },
): Promise<object> {
  return ctx.extensions.sealedRuntime.serialize(realm, async () => {
    const inbox = ctx.extensions.sealedInbox;
    const now = Date.now();
    const cap = ctx.limits.config.value('max_queued_per_realm', realm);
    if (cap !== undefined) {
      let queued = ctx.ledger.depth(realm);
      for (const [r, id] of inbox.entries()) {
        if (r === realm) queued += liveEntries(inbox.get(r, id), now).length;
      }
      if (queued >= cap) {
        ctx.logger.info({ realm }, 'sealed delivery refused: recipient queue full');
        return { ok: false, code: ExtensionCode.QUEUE_FULL, message: SealedText.QUEUE_FULL };
      }
    }
    const entry = { id: randomUUID(), ...message, expires_at: now + config.inboxTtlMs };
    const before = inbox.get(realm, identity);
    try {
      await inbox.set(realm, identity, [...liveEntries(before, now), entry]);
    } catch (err) {
      // A blob answered 500 must not be delivered later: memory goes back to what is stored.
      const restore = before ? inbox.set(realm, identity, before) : inbox.delete(realm, identity);
      restore.catch(() => undefined);
      ctx.logger.error({ err, realm }, 'sealed delivery not stored');
      return { ok: false, code: ExtensionCode.STORAGE, message: SealedText.DELIVERY_FAILED };
    }
    // §4.6 step 3, §6.5 trigger 1: wake the recipient, never awaited, never failing the delivery.
    try {
      ctx.extensions.pushRuntime?.wake(realm, identity);
    } catch (err) {
      ctx.logger.warn({ err, realm }, 'push wake after a sealed delivery failed');
    }
    return { ok: true, delivered: 'queued' };
  });
}
