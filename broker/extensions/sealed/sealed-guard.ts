/**
 * The checks the acting sealed events share (`spec/protocol-extensions.md` §4.4 rows 1–5,
 * §4.5 rows 1–5, §4.8 rows 1–5), in the spec's order: 400 `invalid JSON`, 501 not configured,
 * 400 `identity required`, 403 not owned (Note 1.5-A's Fix, clustered pins included), 403
 * realm policy off (§1.6). Also the constant-time UAK comparison of §4.6 check 9.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ClientEventName } from '../../../shared/protocol-events';
import { ExtensionCode, SealedText } from '../../../shared/protocol-extensions';
import type { HandlerContext } from '../../handlers/handler-context';
import type { BrokerSocket } from '../../transport/socket-types';
import { realmE2eePolicy } from '../../auth/e2ee-policy';
import {
  identityField,
  refuseInput,
  type ExtensionPayload,
  type ExtensionReply,
} from '../extension-reply';
import { clusterPinAllows, ownsIdentity } from '../identity-ownership';
import type { SealedConfig } from './sealed-config';

/** What an acting event may work with once the shared checks passed. */
export interface SealedActing {
  config: SealedConfig;
  identity: string;
  payload: Readonly<Record<string, unknown>>;
  refuse: (code: number, message: string) => void;
}

/** Runs the shared checks; answers and returns null on a refusal. */
export async function sealedActing(
  ctx: HandlerContext,
  socket: BrokerSocket,
  event: ClientEventName,
  payload: ExtensionPayload,
  reply: ExtensionReply,
): Promise<SealedActing | null> {
  const refuse = (code: number, message: string) =>
    refuseInput(ctx, socket, event, reply, code, message);
  if (!payload.ok) return (refuse(ExtensionCode.BAD_INPUT, payload.reason), null);
  const config = ctx.extensions.sealed;
  if (!config) return (refuse(ExtensionCode.NOT_CONFIGURED, SealedText.NOT_CONFIGURED), null);
  const identity = identityField(payload.value);
  if (typeof identity !== 'string' || identity === '') {
    return (refuse(ExtensionCode.BAD_INPUT, SealedText.IDENTITY_REQUIRED), null);
  }
  if (!ownsIdentity(ctx, socket, identity) || !(await clusterPinAllows(ctx, socket, identity))) {
    return (refuse(ExtensionCode.FORBIDDEN, SealedText.NOT_OWNED), null);
  }
  if (realmE2eePolicy(ctx.auth, socket.data.realm) === 'off') {
    return (refuse(ExtensionCode.FORBIDDEN, SealedText.REALM_OFF), null);
  }
  return { config, identity, payload: payload.value, refuse };
}

/** Lenient base64 (standard or URL-safe alphabet, §4.5 / Note 4-I "Keep"): the bytes. */
export function lenientBase64(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/**
 * §4.6 check 9 (R32): whether two UAKs are equal, in constant time after a length check;
 * different lengths are simply unequal (never a throw).
 */
export function uakEquals(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}
