/**
 * What the stock client's `publishPrekeys` / `takePrekeys` send (`tyo-mq-client` `cd08b98`,
 * `spec/protocol-extensions.md` §3.1–§3.2), and §3.1's example bundle.
 */
import type { Socket } from 'socket.io-client';
import { ClientEvent } from '../../../shared/protocol-events';
import { call } from './key-clients';

/** §3.1's example, without `identity` (each test names its own). */
export const BUNDLE = {
  identity_key: 'IDENT-PUB',
  registration_id: 4242,
  device_id: 1,
  signed_prekey_id: 7,
  signed_prekey: 'SIGNED-PUB',
  signed_prekey_sig: 'SIGNED-SIG',
  kyber_prekey_id: 9,
  kyber_prekey: 'KYBER-PUB',
  kyber_prekey_sig: 'KYBER-SIG',
  one_time_prekeys: [
    { id: 1, key: 'OTP-1' },
    { id: 2, key: 'OTP-2' },
    { id: 3, key: 'OTP-3' },
  ],
};

export interface TakeReply {
  found: boolean;
  identity_key?: string;
  signed_prekey?: string;
  kyber_prekey?: string;
  one_time_prekey_id?: number | null;
  one_time_prekey?: string | null;
  one_time_remaining?: number;
  [field: string]: unknown;
}

/** `publishPrekeys(bundle)` as `identity`. */
export function publishPrekeys(socket: Socket, identity: string, bundle: object) {
  return call(socket, ClientEvent.PREKEY_PUBLISH, { identity, ...bundle });
}

/** `takePrekeys(identity)`: the reply, `null` for `{found:false}` (as the stock client does). */
export async function takePrekeys(socket: Socket, identity: unknown): Promise<TakeReply | null> {
  const reply = (await call(socket, ClientEvent.PREKEY_TAKE, { identity })) as unknown as TakeReply;
  return reply.found ? reply : null;
}

/** `n` one-time prekeys with ids `from`…`from+n-1`, keys `<prefix><id>`. */
export function oneTime(n: number, from = 1, prefix = 'OTP-') {
  return Array.from({ length: n }, (_, i) => ({ id: from + i, key: `${prefix}${from + i}` }));
}
