/**
 * What the sealed-sender tests share (`spec/protocol-extensions.md` §4): signing material
 * minted like `scripts/sealed-mint-server-cert.mjs` does, the environment that configures a
 * broker with it, and the stock client's wrappers (`requestSenderCert`, `setUak`,
 * `sendSealed`, `sealedSubscribe`: an object payload with a socket.io acknowledgement).
 */
import type { PublicKey } from '@signalapp/libsignal-client';
import { PrivateKey, SenderCertificate, ServerCertificate } from '@signalapp/libsignal-client';
import type { Socket } from 'socket.io-client';
import { ClientEvent } from '../../../../shared/protocol-events';
import { SealedEnv } from '../../../../shared/protocol-extensions';

export interface SealedMaterial {
  root: PublicKey;
  env: NodeJS.ProcessEnv;
}

/** A fresh trust root and server key, with a `ServerCertificate` of key id 1. */
export function mintMaterial(): SealedMaterial {
  const root = PrivateKey.generate();
  const server = PrivateKey.generate();
  const cert = ServerCertificate.new(1, server.getPublicKey(), root);
  return {
    root: root.getPublicKey(),
    env: {
      [SealedEnv.SERVER_CERT]: Buffer.from(cert.serialize()).toString('base64'),
      [SealedEnv.SERVER_KEY]: Buffer.from(server.serialize()).toString('base64'),
    },
  };
}

export interface SealedReply {
  ok?: boolean;
  code?: number;
  message?: string;
  mode?: string;
  delivered?: string;
  replayed?: number;
  more?: boolean;
  sender_cert?: string;
  server_cert?: string;
}

/** Emits `event` with `payload` and an ack; rejects if no reply within 2 s. */
export async function call(socket: Socket, event: string, payload: unknown): Promise<SealedReply> {
  return (await socket.timeout(2_000).emitWithAck(event, payload)) as SealedReply;
}

export const requestSenderCert = (s: Socket, identity: string, keyB64: string, deviceId = 1) =>
  call(s, ClientEvent.SEALED_CERT_REQUEST, { identity, identity_key: keyB64, device_id: deviceId });

export const setUak = (s: Socket, identity: string, uak: string | undefined, mode?: string) =>
  call(s, ClientEvent.SEALED_UAK_SET, { identity, uak, mode: mode ?? 'require-uak' });

export const sendSealed = (
  s: Socket,
  realm: string,
  identity: string,
  uak: string | undefined,
  blob: string,
  msgId: string,
) => call(s, ClientEvent.SEALED_DELIVER, { to: { realm, identity }, uak, blob, msg_id: msgId });

export const sealedSubscribe = (s: Socket, identity: string) =>
  call(s, ClientEvent.SEALED_SUBSCRIBE, { identity });

/** A 16-byte UAK filled with `byte`, as base64. */
export const uakOf = (byte: number) => Buffer.alloc(16, byte).toString('base64');

export const b64 = (text: string) => Buffer.from(text).toString('base64');

/** Parses a base64 `SenderCertificate`. */
export const parseCert = (b64Cert: string) =>
  SenderCertificate.deserialize(new Uint8Array(Buffer.from(b64Cert, 'base64')));
