/**
 * The opt-in key encryption of a definitions export (electron/services/definitions-crypto.ts):
 * scrypt + AES-256-GCM round-trips the keys; a wrong passphrase, an altered ciphertext or tag and
 * a short passphrase are refused with a clear `SWB_ERR_VALIDATION`; the blob never holds a key.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFINITIONS_KDF_PARAMS,
  decryptRealmKeys,
  encryptRealmKeys,
} from '../../electron/services/definitions-crypto';
import { EncryptedKeysSchema } from '../../shared/definitions-document';

const KEYS = { alpha: { key: 'alpha-psk-1d2e', manager_key: 'alpha-mgr-9f8a' } };

describe('definitions key encryption', () => {
  it('round-trips, with the documented parameters and no key in the blob', async () => {
    const blob = await encryptRealmKeys(KEYS, 'a long passphrase');
    expect(EncryptedKeysSchema.parse(blob)).toEqual(blob);
    expect(blob.kdf_params).toEqual(DEFINITIONS_KDF_PARAMS);
    expect(Buffer.from(blob.salt, 'base64')).toHaveLength(16);
    expect(Buffer.from(blob.iv, 'base64')).toHaveLength(12);
    expect(JSON.stringify(blob)).not.toContain('alpha-psk');
    expect(await decryptRealmKeys(blob, 'a long passphrase')).toEqual(KEYS);
    const again = await encryptRealmKeys(KEYS, 'a long passphrase');
    expect(again.salt).not.toBe(blob.salt);
  });

  it('refuses a wrong passphrase, altered bytes and a short passphrase', async () => {
    const blob = await encryptRealmKeys(KEYS, 'a long passphrase');
    const wrong = /Wrong passphrase, or the file was altered/;
    await expect(decryptRealmKeys(blob, 'another passphrase')).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
      message: expect.stringMatching(wrong),
    });
    const flipped = Buffer.from(blob.ciphertext, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    await expect(
      decryptRealmKeys({ ...blob, ciphertext: flipped.toString('base64') }, 'a long passphrase'),
    ).rejects.toMatchObject({ message: expect.stringMatching(wrong) });
    await expect(
      decryptRealmKeys({ ...blob, tag: Buffer.alloc(16).toString('base64') }, 'a long passphrase'),
    ).rejects.toMatchObject({ message: expect.stringMatching(wrong) });
    await expect(encryptRealmKeys(KEYS, 'short')).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
    });
  });
});
