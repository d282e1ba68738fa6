/**
 * The extension events the dispatcher routes (`spec/protocol-extensions.md` §1.1), one entry
 * per event: its handler (from the family's module) and what a payload refused before the
 * handler — by the dispatcher's structural guard (depth, binary data, §19) — is answered.
 * A new family adds its events here, its names to `shared/protocol-events.ts` and its gate to
 * `handlers/event-gate.ts`; the compiler then asks for the rest.
 */
import { ClientEvent } from '../../shared/protocol-events';
import { ExtensionCode } from '../../shared/protocol-extensions';
import type { EventHandler } from '../handlers/handler-context';
import { failure } from './extension-reply';
import { handleKeyLookup, handleKeyPublish } from './key-directory-handlers';
import { handlePrekeyPublish, handlePrekeyTake } from './prekey-handlers';
import { handleSealedCertRequest, handleSealedUakSet } from './sealed/sealed-identity-handlers';
import { handleSealedDeliver } from './sealed/sealed-deliver';
import { handleSealedSubscribe } from './sealed/sealed-inbox';
import { handlePushRegister, handlePushUnregister } from './push/push-handlers';

export interface ExtensionRoute {
  handler: EventHandler<unknown>;
  /** The acknowledgement answer to a payload the dispatcher refused (`detail`: why). */
  invalidReply(detail: string): object;
}

const badInput = (detail: string) => failure(ExtensionCode.BAD_INPUT, detail);

export const EXTENSION_ROUTES = {
  [ClientEvent.KEY_PUBLISH]: { handler: handleKeyPublish, invalidReply: badInput },
  // §2.2: a lookup never fails.
  [ClientEvent.KEY_LOOKUP]: { handler: handleKeyLookup, invalidReply: () => ({ keys: [] }) },
  [ClientEvent.PREKEY_PUBLISH]: { handler: handlePrekeyPublish, invalidReply: badInput },
  // §3.2: a take never fails.
  [ClientEvent.PREKEY_TAKE]: { handler: handlePrekeyTake, invalidReply: () => ({ found: false }) },
  [ClientEvent.SEALED_CERT_REQUEST]: { handler: handleSealedCertRequest, invalidReply: badInput },
  [ClientEvent.SEALED_UAK_SET]: { handler: handleSealedUakSet, invalidReply: badInput },
  [ClientEvent.SEALED_DELIVER]: { handler: handleSealedDeliver, invalidReply: badInput },
  [ClientEvent.SEALED_SUBSCRIBE]: { handler: handleSealedSubscribe, invalidReply: badInput },
  [ClientEvent.PUSH_REGISTER]: { handler: handlePushRegister, invalidReply: badInput },
  [ClientEvent.PUSH_UNREGISTER]: { handler: handlePushUnregister, invalidReply: badInput },
} as const satisfies Record<string, ExtensionRoute>;

export type ExtensionEventName = keyof typeof EXTENSION_ROUTES;
