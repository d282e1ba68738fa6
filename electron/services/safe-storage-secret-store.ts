/**
 * The desktop app's SecretStore: each secret encrypted with Electron's `safeStorage` (the OS
 * keychain: macOS Keychain, Windows DPAPI, Secret Service / KWallet on Linux) and the ciphertexts
 * kept in `<dataDir>/console-secrets.safe.json`, mode 0600, rewritten atomically.
 *
 * On Linux without a keychain Electron falls back to the `basic_text` backend, which "encrypts"
 * with a key built into every copy of Chromium: no protection at all. The store then refuses to
 * start (SecretStoreUnavailableError, with what to do) unless the user opted in with
 * `--allow-plaintext-secrets` or `SWITCHBOARD_ALLOW_PLAINTEXT_SECRETS=1` (docs/console.md).
 *
 * `safeStorage` is a constructor parameter typed as the subset used here, so the store runs under
 * Node in tests with a stand-in for the OS keychain. Source: issue 12 ("Secrets behind one
 * interface"), ARCHITECTURE §1 (Secrets: safeStorage; never sent to the renderer). No value is
 * ever logged or put in an error message.
 */
import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CONSOLE_SAFE_SECRETS_FILE } from '../../shared/console-secrets-file';
import { writeFileAtomicSync } from './atomic-file-sync';
import type { SecretStore } from './secret-store';

/** The part of Electron's `safeStorage` this store uses (same signatures). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only. */
  getSelectedStorageBackend(): string;
  /** Linux only: lets `basic_text` encrypt (with Chromium's fixed key). */
  setUsePlainTextEncryption(usePlainText: boolean): void;
}

export interface SafeStorageSecretStoreOptions {
  safeStorage: SafeStorageLike;
  /** Directory of the ciphertext file (the app's data directory). */
  dataDir: string;
  /** The user accepted secrets without an OS keychain (`basic_text`). Default false. */
  allowPlainText?: boolean;
  /** Default `process.platform`; the storage backend is only asked for on Linux. */
  platform?: NodeJS.Platform;
}

/** File name of the ciphertexts inside the data directory. */
export const SAFE_SECRETS_FILE_NAME = CONSOLE_SAFE_SECRETS_FILE;
/** Command-line switch and environment variable that accept the `basic_text` backend. */
export const ALLOW_PLAINTEXT_FLAG = '--allow-plaintext-secrets';
export const ALLOW_PLAINTEXT_ENV = 'SWITCHBOARD_ALLOW_PLAINTEXT_SECRETS';

/** Thrown when secrets cannot be kept safely here; `message` says why and what to do. */
export class SecretStoreUnavailableError extends Error {
  override readonly name = 'SecretStoreUnavailableError';
}

/** True when the user opted in to the `basic_text` backend (flag or environment variable). */
export function plainTextSecretsAllowed(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): boolean {
  const value = env[ALLOW_PLAINTEXT_ENV]?.trim().toLowerCase();
  return (
    argv.includes(ALLOW_PLAINTEXT_FLAG) || value === '1' || value === 'true' || value === 'yes'
  );
}

const FileSchema = z.object({
  version: z.literal(1),
  secrets: z.record(z.string(), z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/)),
});

export class SafeStorageSecretStore implements SecretStore {
  readonly file: string;
  readonly description: string;
  /** The Linux storage backend (`gnome_libsecret`, `kwallet5`, `basic_text`, …), else null. */
  readonly backend: string | null;
  private readonly safeStorage: SafeStorageLike;

  /** @throws SecretStoreUnavailableError when no OS keychain protects secrets (see file doc). */
  constructor(options: SafeStorageSecretStoreOptions) {
    const platform = options.platform ?? process.platform;
    this.safeStorage = options.safeStorage;
    this.file = path.join(options.dataDir, SAFE_SECRETS_FILE_NAME);
    this.backend = platform === 'linux' ? this.safeStorage.getSelectedStorageBackend() : null;
    if (this.backend === 'unknown') {
      throw new SecretStoreUnavailableError(
        'The OS keychain cannot be used before the app is ready (safeStorage backend "unknown").',
      );
    }
    if (this.backend === 'basic_text') {
      if (!options.allowPlainText) throw new SecretStoreUnavailableError(basicTextRefusal());
      this.safeStorage.setUsePlainTextEncryption(true);
    }
    if (!this.safeStorage.isEncryptionAvailable()) {
      throw new SecretStoreUnavailableError(
        'Switchboard cannot keep its secrets: the OS keychain is not available ' +
          '(Electron safeStorage reports no encryption). Unlock or set up the keychain ' +
          '(Keychain on macOS, your login on Windows, Secret Service or KWallet on Linux), then start Switchboard again.',
      );
    }
    this.description =
      this.backend === 'basic_text'
        ? `file ${this.file} (mode 0600), NOT protected by an OS keychain: safeStorage backend basic_text, accepted with ${ALLOW_PLAINTEXT_FLAG}`
        : `OS keychain (Electron safeStorage${this.backend ? `, ${this.backend}` : ''}); ciphertexts in ${this.file} (mode 0600)`;
  }

  /** @throws Error when the file is unreadable or a secret cannot be decrypted. */
  get(name: string): string | null {
    const encoded = this.read()[name];
    if (encoded === undefined) return null;
    try {
      return this.safeStorage.decryptString(Buffer.from(encoded, 'base64'));
    } catch {
      throw new Error(
        `Secret ${JSON.stringify(name)} in ${this.file} cannot be decrypted: the OS keychain's key ` +
          'changed (another user, a reset keychain). Remove the entry (or the file) and set the secret again.',
      );
    }
  }

  set(name: string, value: string): void {
    const ciphertext = this.safeStorage.encryptString(value).toString('base64');
    this.write({ ...this.read(), [name]: ciphertext });
  }

  delete(name: string): void {
    const secrets = this.read();
    if (!(name in secrets)) return;
    delete secrets[name];
    this.write(secrets);
  }

  private write(secrets: Record<string, string>): void {
    writeFileAtomicSync(this.file, `${JSON.stringify({ version: 1, secrets }, null, 2)}\n`, 0o600);
  }

  private read(): Record<string, string> {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    // Tighten a file someone loosened.
    chmodSync(this.file, 0o600);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    const parsed = FileSchema.safeParse(json);
    if (!parsed.success) throw new Error(`${this.file} is not a Switchboard secrets file`);
    return { ...parsed.data.secrets };
  }
}

function basicTextRefusal(): string {
  return [
    "Switchboard will not store its secrets (the local broker admin token, remote brokers' credentials):",
    'no OS keychain is available. Electron\'s safeStorage chose the "basic_text" backend, whose key is',
    'built into every copy of Chromium, so anyone who can read your files could read the secrets.',
    'Fix: run a Secret Service keyring (for example gnome-keyring) or KWallet in your session, or pick one',
    'with --password-store=gnome-libsecret (or kwallet5/kwallet6).',
    `To accept unprotected secrets anyway, start Switchboard with ${ALLOW_PLAINTEXT_FLAG}`,
    `(or ${ALLOW_PLAINTEXT_ENV}=1).`,
  ].join(' ');
}
