/**
 * A stand-in for Electron's `safeStorage` in Node tests: it replaces the OS keychain only, and
 * behaves like the real API on Linux (electron/shell/browser/api/electron_api_safe_storage.cc):
 * nothing before `ready` (backend `unknown`); with the `basic_text` backend encryption is
 * available only after `setUsePlainTextEncryption(true)`; `encryptString` / `decryptString`
 * throw when encryption is not available; ciphertexts are AES-256-GCM under a key held by this
 * "keychain" (`v11` prefix as Chromium's OSCrypt), so another keychain cannot decrypt them.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SafeStorageLike } from '../../electron/services/safe-storage-secret-store';

export type FakeBackend = 'basic_text' | 'gnome_libsecret' | 'kwallet5';

export class FakeSafeStorage implements SafeStorageLike {
  ready = true;
  /** False = a locked or missing keychain (Keychain Access denied, no Secret Service). */
  keychainAvailable = true;
  usePlainText = false;
  readonly key: Buffer;
  readonly encrypted: string[] = [];

  constructor(
    readonly backend: FakeBackend = 'gnome_libsecret',
    key: Buffer = randomBytes(32),
  ) {
    this.key = key;
  }

  getSelectedStorageBackend(): string {
    return this.ready ? this.backend : 'unknown';
  }

  setUsePlainTextEncryption(usePlainText: boolean): void {
    this.usePlainText = usePlainText;
  }

  isEncryptionAvailable(): boolean {
    if (!this.ready) return false;
    if (this.backend === 'basic_text') return this.usePlainText;
    return this.keychainAvailable;
  }

  encryptString(plainText: string): Buffer {
    if (!this.isEncryptionAvailable()) {
      throw new Error(
        'Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.',
      );
    }
    this.encrypted.push(plainText);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from('v11'), iv, cipher.getAuthTag(), body]);
  }

  decryptString(encrypted: Buffer): string {
    if (!this.isEncryptionAvailable()) {
      throw new Error(
        'Error while decrypting the ciphertext provided to safeStorage.decryptString. Decryption is not available.',
      );
    }
    try {
      if (encrypted.subarray(0, 3).toString() !== 'v11') throw new Error('prefix');
      const decipher = createDecipheriv('aes-256-gcm', this.key, encrypted.subarray(3, 15));
      decipher.setAuthTag(encrypted.subarray(15, 31));
      return Buffer.concat([decipher.update(encrypted.subarray(31)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new Error(
        'Error while decrypting the ciphertext provided to safeStorage.decryptString.',
      );
    }
  }
}
