/**
 * The opt-in encryption of realm keys in a definitions export (issue 27; the document's
 * `encrypted_keys`, shared/definitions-document.ts). Runs in the console host only: the keys
 * and the derived key never reach the renderer, a log or a plain file.
 *
 * Parameters: the 32-byte AES key is scrypt(passphrase as UTF-8, salt) with N = 2^15, r = 8,
 * p = 1 (≈32 MiB, the OWASP-recommended floor for scrypt) and a random 16-byte salt; the cipher
 * is AES-256-GCM with a random 12-byte IV, a 16-byte tag, and the additional authenticated data
 * `switchboard-definitions/1`. The plaintext is the JSON `{<realm>: {key, manager_key}}`
 * (strings or null). Import accepts the `kdf_params` the document carries within the schema's
 * bounds (N ≤ 2^20), so a later export may raise the cost.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt } from 'node:crypto';
import { z } from 'zod';
import type { EncryptedKeys } from '../../shared/definitions-document';
import { DEFINITIONS_FORMAT, DEFINITIONS_VERSION } from '../../shared/definitions-document';
import { SwitchboardError } from '../../shared/error-catalogue';

export const DEFINITIONS_KDF_PARAMS = { N: 32_768, r: 8, p: 1 } as const;
/** Shortest passphrase accepted for an encrypted export, in characters. */
export const MIN_PASSPHRASE_CHARS = 8;
const AAD = Buffer.from(`${DEFINITIONS_FORMAT}/${DEFINITIONS_VERSION}`);

/** A realm's keys in clear; null when it has none. */
export interface RealmKeys {
  key: string | null;
  manager_key: string | null;
}
export type RealmKeyMap = Record<string, RealmKeys>;

/** SHA-256 hex of a key as the broker hashes it (`realm_keys`), null for no key. */
export function sha256OrNull(value: string | null): string | null {
  return value === null ? null : createHash('sha256').update(value, 'utf8').digest('hex');
}

const RealmKeyMapSchema = z.record(
  z.string(),
  z.object({ key: z.string().nullable(), manager_key: z.string().nullable() }).strict(),
);

function derive(
  passphrase: string,
  salt: Buffer,
  params: { N: number; r: number; p: number },
): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; allow twice that so the bounded N = 2^20 still derives.
  const maxmem = 256 * params.N * params.r + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(passphrase, salt, 32, { ...params, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Encrypts `keys` under `passphrase`.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` for a passphrase under `MIN_PASSPHRASE_CHARS`.
 */
export async function encryptRealmKeys(
  keys: RealmKeyMap,
  passphrase: string,
): Promise<EncryptedKeys> {
  if (passphrase.length < MIN_PASSPHRASE_CHARS) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `The passphrase must have at least ${MIN_PASSPHRASE_CHARS} characters.`,
    );
  }
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = await derive(passphrase, salt, DEFINITIONS_KDF_PARAMS);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(keys), 'utf8'), cipher.final()]);
  key.fill(0);
  return {
    cipher: 'aes-256-gcm',
    kdf: 'scrypt',
    kdf_params: { ...DEFINITIONS_KDF_PARAMS },
    salt: salt.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/**
 * Decrypts an export's keys.
 * @throws SwitchboardError `SWB_ERR_VALIDATION`: "Wrong passphrase, or the file was altered"
 *   when authentication fails (GCM cannot tell the two apart), or a damaged key list.
 */
export async function decryptRealmKeys(
  blob: EncryptedKeys,
  passphrase: string,
): Promise<RealmKeyMap> {
  const key = await derive(passphrase, Buffer.from(blob.salt, 'base64'), blob.kdf_params);
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(blob.iv, 'base64'));
    decipher.setAAD(AAD);
    decipher.setAuthTag(Buffer.from(blob.tag, 'base64'));
    plain = Buffer.concat([
      decipher.update(Buffer.from(blob.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      'Wrong passphrase, or the file was altered: the encrypted keys cannot be read.',
    );
  } finally {
    key.fill(0);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(plain);
  } catch {
    parsed = undefined;
  }
  const keys = RealmKeyMapSchema.safeParse(parsed);
  if (!keys.success) {
    throw new SwitchboardError('SWB_ERR_VALIDATION', 'The encrypted key list is damaged.');
  }
  return keys.data;
}
