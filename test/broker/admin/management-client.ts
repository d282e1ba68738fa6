/**
 * Test client for signed management commands: signs with the shared recipe
 * (`broker/auth/proof.ts`) and sends `AUTH_MANAGEMENT_COMMAND` with an ack, like the reference
 * client helpers (spec/protocol-admin.md §1).
 */
import type { Socket } from 'socket.io-client';
import { SignedAction, type SignedEnvelope } from '../../../shared/admin-signature';
import { ClientEvent } from '../../../shared/protocol-events';
import { signEnvelope } from '../../../broker/auth/proof';
import type { Harness } from '../../helpers/broker-harness';

export const ADMIN_TOKEN = 'a'.repeat(64);

/** Settings with auth on and one global admin token. */
export function adminSettings(
  extra: Record<string, unknown> = {},
  auth: Record<string, unknown> = {},
) {
  return {
    ...extra,
    auth: {
      enabled: true,
      tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
      realms: { default: { required: false } },
      ...auth,
    },
  };
}

// Replies are read deeply in assertions; `any` keeps those reads short (test code only).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Reply = { ok: boolean; code?: number; message?: string } & Record<string, any>;

/** Signs `body` and emits the envelope on `socket`, resolving with the ack's reply. */
export async function send(socket: Socket, envelope: unknown): Promise<Reply> {
  return (await socket
    .timeout(5_000)
    .emitWithAck(ClientEvent.AUTH_MANAGEMENT_COMMAND, envelope)) as Reply;
}

export function sign(body: Record<string, unknown>, secret = ADMIN_TOKEN, now = Date.now()) {
  return signEnvelope(secret, SignedAction.AUTH_MANAGEMENT_COMMAND, body, now) as SignedEnvelope;
}

export interface Manager {
  socket: Socket;
  run(body: Record<string, unknown>, key?: string): Promise<Reply>;
}

/** A management client over one socket of `h`. */
export async function manager(h: Harness, secret = ADMIN_TOKEN): Promise<Manager> {
  const socket = await h.connect();
  return {
    socket,
    run: (body: Record<string, unknown>, key = secret) => send(socket, sign(body, key)),
  };
}
