/**
 * SafeStorageSecretStore: secrets encrypted by the OS keychain (a FakeSafeStorage standing in
 * for Electron's safeStorage; files, modes and the SecretStore contract are real), refusing the
 * `basic_text` backend unless the user opted in.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALLOW_PLAINTEXT_ENV,
  ALLOW_PLAINTEXT_FLAG,
  plainTextSecretsAllowed,
  SAFE_SECRETS_FILE_NAME,
  SafeStorageSecretStore,
  SecretStoreUnavailableError,
} from '../../electron/services/safe-storage-secret-store';
import {
  ensureLocalAdminToken,
  FileSecretStore,
  LOCAL_ADMIN_TOKEN_SECRET,
} from '../../electron/services/secret-store';
import { FakeSafeStorage } from '../support/fake-safe-storage';
import { makeTempDir, type TempDir } from '../support/temp-dir';

describe('SafeStorageSecretStore', () => {
  let dir: TempDir;
  let file: string;
  beforeEach(async () => {
    dir = await makeTempDir('switchboard-safe-secrets-');
    file = path.join(dir.path, SAFE_SECRETS_FILE_NAME);
  });
  afterEach(() => dir.remove());

  const open = (
    safeStorage: FakeSafeStorage,
    extra: { allowPlainText?: boolean; platform?: NodeJS.Platform } = {},
  ) => new SafeStorageSecretStore({ safeStorage, dataDir: dir.path, platform: 'linux', ...extra });

  it('keeps secrets encrypted in a 0600 file and reads them back', () => {
    const keychain = new FakeSafeStorage('gnome_libsecret');
    const store = open(keychain);
    const token = randomBytes(32).toString('hex');
    store.set(LOCAL_ADMIN_TOKEN_SECRET, token);
    store.set('remote.prod.managerKey', 'mk-Ünïcode-🔑');
    expect(store.get(LOCAL_ADMIN_TOKEN_SECRET)).toBe(token);
    expect(store.get('remote.prod.managerKey')).toBe('mk-Ünïcode-🔑');
    expect(store.get('absent')).toBeNull();

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain('mk-');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir.path)).toEqual([SAFE_SECRETS_FILE_NAME]);
    expect(store.description).toContain('OS keychain');
    expect(store.description).toContain('gnome_libsecret');
    expect(store.description).not.toContain(token);

    // A new process with the same keychain reads them; the file alone is not enough.
    expect(
      open(new FakeSafeStorage('gnome_libsecret', keychain.key)).get(LOCAL_ADMIN_TOKEN_SECRET),
    ).toBe(token);
    const otherKeychain = open(new FakeSafeStorage('gnome_libsecret'));
    expect(() => otherKeychain.get(LOCAL_ADMIN_TOKEN_SECRET)).toThrow(
      /cannot be decrypted.*keychain/,
    );
    try {
      otherKeychain.get(LOCAL_ADMIN_TOKEN_SECRET);
    } catch (error) {
      expect(String(error)).not.toContain(token);
    }
  });

  it('deletes one secret and keeps the others; deleting an absent one is a no-op', () => {
    const store = open(new FakeSafeStorage());
    store.set('a', '1');
    store.set('b', '2');
    store.delete('a');
    store.delete('never');
    expect(store.get('a')).toBeNull();
    expect(store.get('b')).toBe('2');
  });

  it('works with ensureLocalAdminToken: generated once, then the same token', () => {
    const keychain = new FakeSafeStorage();
    const first = ensureLocalAdminToken(open(keychain));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(ensureLocalAdminToken(open(new FakeSafeStorage('gnome_libsecret', keychain.key)))).toBe(
      first,
    );
  });

  it('refuses the basic_text backend with a clear message, writing nothing', () => {
    const keychain = new FakeSafeStorage('basic_text');
    let error: unknown;
    try {
      open(keychain);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SecretStoreUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain('basic_text');
    expect(message).toContain(ALLOW_PLAINTEXT_FLAG);
    expect(message).toContain(ALLOW_PLAINTEXT_ENV);
    expect(message).toMatch(/gnome-keyring|KWallet/);
    expect(keychain.usePlainText).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('accepts basic_text when the user opted in, and says the secrets are not protected', () => {
    const keychain = new FakeSafeStorage('basic_text');
    const store = open(keychain, { allowPlainText: true });
    store.set('a', 'secret-value');
    expect(store.get('a')).toBe('secret-value');
    expect(keychain.usePlainText).toBe(true);
    expect(store.description).toMatch(/NOT protected by an OS keychain/);
    expect(store.description).toContain(ALLOW_PLAINTEXT_FLAG);
  });

  it('refuses when the keychain is unavailable or the app is not ready', () => {
    const locked = new FakeSafeStorage('gnome_libsecret');
    locked.keychainAvailable = false;
    expect(() => open(locked)).toThrow(SecretStoreUnavailableError);
    expect(() => open(locked, { allowPlainText: true })).toThrow(/OS keychain is not available/);
    const early = new FakeSafeStorage();
    early.ready = false;
    expect(() => open(early)).toThrow(/before the app is ready/);
  });

  it('asks for the storage backend on Linux only', () => {
    const keychain = new FakeSafeStorage('basic_text');
    keychain.getSelectedStorageBackend = () => {
      throw new Error('not on this platform');
    };
    keychain.usePlainText = true; // isEncryptionAvailable() true, as on macOS/Windows
    const store = open(keychain, { platform: 'darwin' });
    expect(store.backend).toBeNull();
    store.set('a', 'b');
    expect(store.get('a')).toBe('b');
  });

  it('tightens a loosened file and rejects one that is not a secrets file', () => {
    const store = open(new FakeSafeStorage());
    store.set('a', 'b');
    chmodSync(file, 0o644);
    expect(store.get('a')).toBe('b');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const text of [
      'not json',
      '{"version":2,"secrets":{}}',
      '{"version":1,"secrets":{"a":"%%%"}}',
    ]) {
      writeFileSync(file, text);
      expect(() => store.get('a'), text).toThrow(/is not a Switchboard secrets file/);
      expect(() => store.set('c', 'd'), text).toThrow(/is not a Switchboard secrets file/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });
});

describe('plainTextSecretsAllowed', () => {
  it('is the command-line flag or the environment variable, nothing else', () => {
    expect(plainTextSecretsAllowed(['electron', '.', ALLOW_PLAINTEXT_FLAG], {})).toBe(true);
    for (const value of ['1', 'true', 'YES', ' yes ']) {
      expect(plainTextSecretsAllowed([], { [ALLOW_PLAINTEXT_ENV]: value }), value).toBe(true);
    }
    for (const value of ['', '0', 'false', 'no', undefined]) {
      expect(plainTextSecretsAllowed([], { [ALLOW_PLAINTEXT_ENV]: value }), String(value)).toBe(
        false,
      );
    }
    expect(plainTextSecretsAllowed(['--allow-plaintext-secrets=false'], {})).toBe(false);
  });
});

describe('moving the old file store into the keychain store', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('switchboard-secret-move-');
  });
  afterEach(() => dir.remove());

  it('moves every secret once, keeps what the keychain already has, and deletes the file', () => {
    const oldDir = path.join(dir.path, 'broker-data');
    const old = new FileSecretStore(oldDir);
    old.set(LOCAL_ADMIN_TOKEN_SECRET, 'old-admin-token');
    old.set('connection.prod.secret', 'prod-token');
    const keychain = new SafeStorageSecretStore({
      safeStorage: new FakeSafeStorage('gnome_libsecret'),
      dataDir: dir.path,
      platform: 'linux',
    });
    keychain.set('connection.prod.secret', 'newer-prod-token');

    expect(old.moveInto(keychain)).toBe(1);
    expect(keychain.get(LOCAL_ADMIN_TOKEN_SECRET)).toBe('old-admin-token');
    expect(keychain.get('connection.prod.secret')).toBe('newer-prod-token');
    expect(existsSync(old.file)).toBe(false);
    // Nothing left in clear anywhere in the data directory.
    for (const name of readdirSync(dir.path, { recursive: true }) as string[]) {
      const file = path.join(dir.path, name);
      if (statSync(file).isDirectory()) continue;
      expect(readFileSync(file, 'utf8')).not.toContain('old-admin-token');
    }
    // A second start finds no file and moves nothing.
    expect(new FileSecretStore(oldDir).moveInto(keychain)).toBe(0);
  });
});
