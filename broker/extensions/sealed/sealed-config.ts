/**
 * Sealed-sender enablement and signing material (`spec/protocol-extensions.md` §4.1–§4.3,
 * Note 4-H). Read once, when the broker is created; never hot-reloaded.
 *
 * - `TYO_MQ_SEALED_SERVER_CERT` (base64 `ServerCertificate`) and `TYO_MQ_SEALED_SERVER_KEY`
 *   (base64 32-byte Curve25519 private key), or their `_FILE` forms (a path to a file holding
 *   the base64 value; Note 4-H). Both absent or empty: `null` (every `SEALED_*` event answers
 *   501). Either malformed (bad base64, a protobuf or key that does not parse, a certificate
 *   not for this key, or the revoked key id `0xDEADC357`): throws, so the broker fails to start.
 * - `TYO_MQ_SEALED_INBOX_TTL_SECONDS`: the offline inbox TTL, default 604,800 s (§1.7).
 *
 * `@signalapp/libsignal-client` (AGPL-3.0-only, native) is loaded here only, and only when
 * the feature is configured, like aedes. Neither value is ever logged.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { ExtensionLimit, SealedEnv, SealedLimit } from '../../../shared/protocol-extensions';

// Type-only: nothing is loaded until `loadLibsignal` runs.
import type * as LibsignalModule from '@signalapp/libsignal-client';
import type { PrivateKey, ServerCertificate } from '@signalapp/libsignal-client';

type Libsignal = typeof LibsignalModule;

/**
 * The `sealed` settings (Switchboard extensions, §9; hot-reloaded, read on every event):
 * - `uniform_errors` (default false, Note 4-D): every refusal of `SEALED_DELIVER` checks 7–9
 *   is `403 "not authorised"` and `delivered` is always `"queued"`, so an anonymous sender
 *   cannot enumerate identities or watch presence;
 * - `sends_per_minute_per_ip` (default 600) and `sends_per_minute_per_recipient` (default 120,
 *   Note 4-E): fixed 60 s budgets of `SEALED_DELIVER` per client IP and per destination
 *   (realm, identity), beside the per-socket 60; a breach is `429 "sealed send rate exceeded"`.
 */
export const SealedSettingsSchema = z
  .object({
    uniform_errors: z.boolean().default(false),
    sends_per_minute_per_ip: z.number().int().positive().default(600),
    sends_per_minute_per_recipient: z.number().int().positive().default(120),
  })
  .strict();

/** A configured sealed sender: mints sender certificates (§4.3, §4.4). */
export interface SealedConfig {
  /** Base64 of the `ServerCertificate` handed to clients with every sender certificate. */
  readonly serverCertB64: string;
  /** Ms: the offline inbox TTL. */
  readonly inboxTtlMs: number;
  /**
   * Mints a `SenderCertificate` for `identity` (its `senderUuid`), valid until
   * `now + SEALED_CERT_TTL_MS`. Throws when `identityKey` is not a 33-byte `0x05` key (Note
   * 4-I) or `deviceId` is outside 1…127. Returns base64.
   */
  mintSenderCert(
    identity: string,
    identityKey: Uint8Array<ArrayBuffer>,
    deviceId: number,
    now: number,
  ): string;
  /**
   * Note 4-J: HMAC-SHA256 (hex, 64 chars) of the 16 UAK bytes, keyed with a key derived
   * (HKDF-SHA256) from the server private key, so a UAK shared in the cluster's Redis is never
   * stored in clear. Nodes sharing UAK records must share the server key (docs/cluster.md).
   */
  uakDigest(uak: Uint8Array): string;
}

/** Thrown for malformed sealed material: the message names the variable, never its value. */
export class SealedConfigError extends Error {
  override readonly name = 'SealedConfigError';
}

/** libsignal, loaded on first use (a native module the broker needs only with sealed sender). */
export function loadLibsignal(): Libsignal {
  return createRequire(import.meta.url)('@signalapp/libsignal-client') as Libsignal;
}

function value(env: NodeJS.ProcessEnv, name: string, fileName: string): string {
  const direct = env[name]?.trim() ?? '';
  if (direct !== '') return direct;
  const path = env[fileName]?.trim() ?? '';
  if (path === '') return '';
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new SealedConfigError(`${fileName}: cannot read the file (${(err as Error).message})`);
  }
}

/** Strict base64 (standard alphabet, padding optional): malformed material must not start. */
export function strictBase64(text: string, name: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
    throw new SealedConfigError(`${name} is not valid base64`);
  }
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function inboxTtlMs(env: NodeJS.ProcessEnv): number {
  const raw = env[SealedEnv.INBOX_TTL_SECONDS]?.trim();
  if (!raw) return SealedLimit.INBOX_TTL_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds <= 0) {
    throw new SealedConfigError(`${SealedEnv.INBOX_TTL_SECONDS} must be a positive integer`);
  }
  return seconds * 1000;
}

/** §4.1: the sealed configuration from `env`, `null` when off; throws when malformed. */
export function loadSealedConfig(env: NodeJS.ProcessEnv): SealedConfig | null {
  const certText = value(env, SealedEnv.SERVER_CERT, SealedEnv.SERVER_CERT_FILE);
  const keyText = value(env, SealedEnv.SERVER_KEY, SealedEnv.SERVER_KEY_FILE);
  if (certText === '' || keyText === '') return null;
  const certBytes = strictBase64(certText, SealedEnv.SERVER_CERT);
  const keyBytes = strictBase64(keyText, SealedEnv.SERVER_KEY);
  const lib = loadLibsignal();
  let cert: ServerCertificate;
  let key: PrivateKey;
  try {
    cert = lib.ServerCertificate.deserialize(certBytes);
  } catch {
    throw new SealedConfigError(`${SealedEnv.SERVER_CERT} is not a ServerCertificate`);
  }
  try {
    if (keyBytes.length !== 32) throw new Error('length');
    key = lib.PrivateKey.deserialize(keyBytes);
  } catch {
    throw new SealedConfigError(`${SealedEnv.SERVER_KEY} is not a 32-byte Curve25519 private key`);
  }
  if (cert.keyId() === SealedLimit.REVOKED_KEY_ID) {
    throw new SealedConfigError(`${SealedEnv.SERVER_CERT} uses the revoked key id 0xDEADC357`);
  }
  // A certificate for another key would mint sender certificates no client accepts.
  if (!Buffer.from(cert.key().serialize()).equals(Buffer.from(key.getPublicKey().serialize()))) {
    throw new SealedConfigError(
      `${SealedEnv.SERVER_CERT} does not certify the key in ${SealedEnv.SERVER_KEY}`,
    );
  }
  const ttl = inboxTtlMs(env);
  const uakKey = Buffer.from(
    hkdfSync('sha256', keyBytes, Buffer.alloc(0), 'switchboard sealed uak v1', 32),
  );
  return {
    uakDigest: (uak) => createHmac('sha256', uakKey).update(uak).digest('hex'),
    serverCertB64: Buffer.from(cert.serialize()).toString('base64'),
    inboxTtlMs: ttl,
    mintSenderCert(identity, identityKey, deviceId, now) {
      // Note 4-I: exactly 33 bytes starting 0x05 (libsignal alone tolerates trailing bytes).
      if (identityKey.length !== 33 || identityKey[0] !== 0x05) throw new Error('identity_key');
      if (!Number.isInteger(deviceId) || deviceId < 1 || deviceId > SealedLimit.MAX_DEVICE_ID) {
        throw new Error('device_id');
      }
      const senderKey = lib.PublicKey.deserialize(identityKey);
      const sender = lib.SenderCertificate.new(
        identity,
        null,
        deviceId,
        senderKey,
        now + ExtensionLimit.SEALED_CERT_TTL_MS,
        cert,
        key,
      );
      return Buffer.from(sender.serialize()).toString('base64');
    },
  };
}
