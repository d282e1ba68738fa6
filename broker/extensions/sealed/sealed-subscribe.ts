/**
 * `SEALED_SUBSCRIBE {identity|name}` (`spec/protocol-extensions.md` §4.8): drains the caller's
 * offline sealed inbox in the socket's realm. Only the identity's owner may (Note 1.5-A's Fix,
 * Note 4-B). Checks: the shared ones (`sealed-guard.ts`), then a store failure answers
 * `{ok:false, code:500}` with no message. Success, after the `SEALED_MESSAGE` events:
 * `{ok:true, replayed, more}` (at most `SEALED_REPLAY_BATCH` = 100 per call; the client calls
 * again while `more`). Deletion waits for the proof of receipt (Note 4-C, `sealed-inbox.ts`).
 */
import { ClientEvent } from '../../../shared/protocol-events';
import { ExtensionCode } from '../../../shared/protocol-extensions';
import { defineExtension } from '../extension-reply';
import { sealedActing } from './sealed-guard';
import { drainInbox, type DrainResult } from './sealed-inbox';

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
