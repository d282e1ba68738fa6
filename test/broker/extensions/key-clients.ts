/**
 * What the stock client's `publishKey` / `lookupKey` send (`tyo-mq-client` `cd08b98`,
 * `spec/protocol-extensions.md` §2.1–§2.2): an object payload with a socket.io
 * acknowledgement, the reply being the one object of §1.2.
 */
import type { Socket } from 'socket.io-client';
import { ClientEvent } from '../../../shared/protocol-events';
import type { PublishedKey } from '../../../shared/protocol-extensions';

export interface KeyReply {
  ok?: boolean;
  code?: number;
  message?: string;
  keys?: PublishedKey[];
}

/** Emits `event` with `payload` and an ack; rejects if no reply within 2 s. */
export async function call(socket: Socket, event: string, payload?: unknown): Promise<KeyReply> {
  const s = socket.timeout(2_000);
  return (await (payload === undefined
    ? s.emitWithAck(event)
    : s.emitWithAck(event, payload))) as KeyReply;
}

/** `publishKey({identity, key_id, alg, public_key})`. */
export function publishKey(socket: Socket, payload: Record<string, unknown>): Promise<KeyReply> {
  return call(socket, ClientEvent.KEY_PUBLISH, payload);
}

/** `lookupKey(identity)`: the `keys` list (asserted to be an array). */
export async function lookupKey(socket: Socket, identity: unknown): Promise<PublishedKey[]> {
  const reply = await call(socket, ClientEvent.KEY_LOOKUP, { identity });
  if (!Array.isArray(reply.keys)) throw new Error(`keys is not a list: ${JSON.stringify(reply)}`);
  return reply.keys;
}
