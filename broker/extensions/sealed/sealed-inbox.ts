/**
 * `SEALED_SUBSCRIBE {identity|name}` and its inbox drain (`spec/protocol-extensions.md` §4.8,
 * §4.9): only the identity's owner drains it (Note 1.5-A's Fix, Note 4-B). Checks: the shared
 * ones (`sealed-guard.ts`), then a store failure answers `{ok:false, code:500}` with no
 * message. Success, after the `SEALED_MESSAGE` events: `{ok:true, replayed, more}` (at most
 * `SEALED_REPLAY_BATCH` = 100 per call; the client calls again while `more`).
 *
 * The drain follows Note 4-C's Fix: entries are not deleted as they are emitted. An emitted entry is *in flight*
 * until the connection proves it received it: an Engine.IO pong answering a ping the broker
 * sends right after the batch (the connection is ordered, so the client had the batch when it
 * answered). Then the entries are deleted; if the socket closes first they are pending again
 * for the next drain (a possible duplicate; `msg_id` lets clients deduplicate). An entry in
 * flight is never emitted twice at once, so a second drain right after the first answers
 * `replayed:0`. With an Engine.IO 3 client (which pings itself) the proof is its next ping.
 */
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import { ExtensionCode, ExtensionLimit } from '../../../shared/protocol-extensions';
import type { HandlerContext } from '../../handlers/handler-context';
import type { BrokerSocket } from '../../transport/socket-types';
import { defineExtension } from '../extension-reply';
import { sealedActing } from './sealed-guard';
import type { SealedEntry } from './sealed-records';

/** The entries not yet expired (TTL, §4.9), oldest first. */
export function liveEntries(
  entries: readonly SealedEntry[] | undefined,
  now: number,
): SealedEntry[] {
  return (entries ?? []).filter((e) => e.expires_at > now);
}

/** What one drain emitted. */
export interface DrainResult {
  replayed: number;
  more: boolean;
}

/** Engine.IO's socket as far as the proof of receipt needs it (engine.io 6). */
interface EngineSocket {
  protocol: number;
  on(event: 'packet', fn: (packet: { type: string }) => void): unknown;
  off(event: 'packet', fn: (packet: { type: string }) => void): unknown;
  sendPacket?(type: 'ping'): void;
}

/**
 * Emits up to `SEALED_REPLAY_BATCH` pending entries of (socket realm, identity) to `socket`
 * as `SEALED_MESSAGE {blob, msg_id}`, oldest first, and marks them in flight. Expired entries
 * are dropped. Rejects when the store fails (the caller answers `{ok:false, code:500}`).
 */
export async function drainInbox(
  ctx: HandlerContext,
  socket: BrokerSocket,
  identity: string,
): Promise<DrainResult> {
  const realm = socket.data.realm;
  const inbox = ctx.extensions.sealedInbox;
  const stored = inbox.get(realm, identity);
  const live = liveEntries(stored, Date.now());
  if (stored && live.length !== stored.length) {
    await (live.length === 0 ? inbox.delete(realm, identity) : inbox.set(realm, identity, live));
  }
  const inflight = ctx.extensions.sealedRuntime.inFlight(realm, identity);
  const pending = live.filter((e) => !inflight.has(e.id));
  const batch = pending.slice(0, ExtensionLimit.SEALED_REPLAY_BATCH);
  if (batch.length === 0) return { replayed: 0, more: false };
  const ids = batch.map((e) => e.id);
  for (const id of ids) inflight.add(id);
  for (const e of batch)
    socket.emit(ServerEvent.SEALED_MESSAGE, { blob: e.blob, msg_id: e.msg_id });
  awaitReceipt(ctx, socket, identity, ids);
  return { replayed: batch.length, more: pending.length > batch.length };
}

/** Deletes `ids` once the connection proves receipt; releases them if it closes first. */
function awaitReceipt(
  ctx: HandlerContext,
  socket: BrokerSocket,
  identity: string,
  ids: readonly string[],
): void {
  const realm = socket.data.realm;
  const engine = socket.conn as unknown as EngineSocket;
  const proof = engine.protocol === 3 ? 'ping' : 'pong';
  const release = () => {
    engine.off('packet', onPacket);
    socket.off('disconnect', onClose);
    ctx.extensions.sealedRuntime.land(realm, identity, ids);
  };
  const onClose = () => release();
  const onPacket = (packet: { type: string }) => {
    if (packet.type !== proof) return;
    release();
    const done = new Set(ids);
    const inbox = ctx.extensions.sealedInbox;
    const rest = (inbox.get(realm, identity) ?? []).filter((e) => !done.has(e.id));
    const write =
      rest.length === 0 ? inbox.delete(realm, identity) : inbox.set(realm, identity, rest);
    ctx.pending.track(
      write.catch((err: unknown) =>
        ctx.logger.error({ err, realm }, 'drained sealed entries not deleted'),
      ),
    );
  };
  engine.on('packet', onPacket);
  socket.once('disconnect', onClose);
  // After the batch in the same ordered stream: the pong proves the batch arrived.
  if (proof === 'pong') engine.sendPacket?.('ping');
}

export const handleSealedSubscribe = defineExtension(
  ClientEvent.SEALED_SUBSCRIBE,
  async (ctx, socket, payload, reply) => {
    const acting = await sealedActing(ctx, socket, ClientEvent.SEALED_SUBSCRIBE, payload, reply);
    if (!acting) return;
    let result: DrainResult;
    try {
      result = await drainInbox(ctx, socket, acting.identity);
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id }, 'sealed inbox not read');
      return reply({ ok: false, code: ExtensionCode.STORAGE });
    }
    reply({ ok: true, ...result });
  },
);
