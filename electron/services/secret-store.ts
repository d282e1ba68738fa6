/**
 * Secrets the console keeps for itself (the local broker's admin token now; remote profiles'
 * credentials later), behind one small interface so that the Electron main process can use the
 * OS keychain (`safeStorage`, a later step) and the web host a private file.
 *
 * Source: issue 12 ("Secrets behind one interface"), ARCHITECTURE §1 (Secrets: never sent to the
 * renderer). No method ever logs a value.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONSOLE_SECRETS_FILE,
  ConsoleSecretsFileSchema,
  LOCAL_ADMIN_TOKEN_KEY,
} from '../../shared/console-secrets-file';

/** Synchronous, like Electron's `safeStorage`. Names are short ASCII keys (`local.adminToken`). */
export interface SecretStore {
  /** The secret, or null when none is stored. @throws Error when the store cannot be read. */
  get(name: string): string | null;
  /** Stores (replaces) a secret. @throws Error when the store cannot be written. */
  set(name: string, value: string): void;
  /** Forgets a secret (no-op when absent). @throws Error when the store cannot be written. */
  delete(name: string): void;
  /** Human-readable description of where secrets live (for a notice in the UI; no secret). */
  readonly description: string;
  /**
   * Optional: `os-keychain` when an OS keychain protects the values (Electron `safeStorage`),
   * `file` for a plain 0600 file. Shown by `getSecretStoreInfo`; absent means "other".
   */
  readonly kind?: 'file' | 'os-keychain';
}

/** File name of the file-backed store inside the data directory. */
export const SECRETS_FILE_NAME = CONSOLE_SECRETS_FILE;

const FileSchema = ConsoleSecretsFileSchema;

/**
 * A JSON file with mode 0600 in the data directory, rewritten atomically (temp file + rename).
 * Used by the web host: no OS keychain protects it, which the UI must say.
 */
export class FileSecretStore implements SecretStore {
  readonly file: string;
  readonly description: string;
  readonly kind = 'file' as const;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, SECRETS_FILE_NAME);
    this.description = `file ${this.file} (mode 0600; no OS keychain)`;
  }

  get(name: string): string | null {
    return this.read()[name] ?? null;
  }

  set(name: string, value: string): void {
    this.write({ ...this.read(), [name]: value });
  }

  delete(name: string): void {
    const secrets = this.read();
    if (!(name in secrets)) return;
    delete secrets[name];
    this.write(secrets);
  }

  /**
   * Moves every secret of this file into `target` (one already there is kept: the target is the
   * newer store) and deletes the file, so no plain-text copy stays behind. Returns how many moved.
   * Used once when the desktop app switches from this file to the OS keychain.
   * @throws Error when either store cannot be read or written (the file is then left as it was).
   */
  moveInto(target: SecretStore): number {
    const secrets = this.read();
    let moved = 0;
    for (const [name, value] of Object.entries(secrets)) {
      if (target.get(name) !== null) continue;
      target.set(name, value);
      moved++;
    }
    rmSync(this.file, { force: true });
    return moved;
  }

  private write(secrets: Record<string, string>): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify({ version: 1, secrets }, null, 2)}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
      renameSync(temp, this.file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    chmodSync(this.file, 0o600);
  }

  private read(): Record<string, string> {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    // Tighten a file someone loosened, before trusting what it holds.
    chmodSync(this.file, 0o600);
    const parsed = FileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.file} is not a console secrets file`);
    return parsed.data.secrets;
  }
}

/** Key of the local broker's global admin token in the SecretStore. */
export const LOCAL_ADMIN_TOKEN_SECRET = LOCAL_ADMIN_TOKEN_KEY;

/**
 * The local broker's admin token: the stored one, else 32 random bytes as hex, stored first
 * (generated once, at the console's first start; spec/protocol-admin.md §5 shape).
 */
export function ensureLocalAdminToken(store: SecretStore): string {
  const existing = store.get(LOCAL_ADMIN_TOKEN_SECRET);
  if (existing) return existing;
  const token = randomBytes(32).toString('hex');
  store.set(LOCAL_ADMIN_TOKEN_SECRET, token);
  return token;
}
