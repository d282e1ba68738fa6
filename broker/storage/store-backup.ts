/**
 * `broker.backup(destDir)` and the `backup_store` management command (issue 23 item 1;
 * docs/backup.md): online copies of the broker's SQLite files, taken while it runs, into one
 * directory on the broker's host.
 *
 * - `messages-<stamp>.sqlite`: the message store (queued copies, DLQ, durable subscriptions,
 *   MQTT state), `SqliteStore.backup`, copied by a read-only connection while it commits.
 * - `auth-<stamp>.sqlite`: the auth store (realms, tokens, management tokens, authorization
 *   requests, proof nonces), when one is active (`auth_store`).
 *
 * `<stamp>` is the UTC start time, `2025-01-31T12-00-00-000Z` (no `:`, so every filesystem takes
 * it). Each file is a consistent snapshot of its own database; the two are taken one after the
 * other, not at one instant. A failure removes the files this call already wrote, so a backup
 * directory never holds half a set.
 */
import { stat, unlink } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { MessageStore } from './message-store';

/** One file a backup wrote. */
export interface BackupFile {
  /** Which database: `messages` (the message store) or `auth` (the auth store). */
  name: 'messages' | 'auth';
  /** The copy (absolute). */
  path: string;
  bytes: number;
  /** The live database file it copies: where to put it back to restore (docs/backup.md). */
  source: string;
}

/** What `broker.backup` and `backup_store` report; `elapsed_ms` is wall time, whole ms. */
export interface BackupResult {
  files: BackupFile[];
  elapsed_ms: number;
}

/** The auth store's side (`SettingsRuntime`). */
export interface AuthBackupSource {
  /** The active auth store's file, or null. */
  authStoreFile(): string | null;
  /** Copies the auth store to the new file `dest`; its size, or null when none is active. */
  backupAuthStore(dest: string): Promise<number | null>;
}

/** Longest `dest_dir` accepted, in UTF-16 code units (PATH_MAX is 4,096 bytes on Linux). */
export const MAX_BACKUP_DIR_LENGTH = 4_096;

/** `2025-01-31T12-00-00-000Z` for that instant (UTC). */
export function backupStamp(at: Date): string {
  return at.toISOString().replace(/[:.]/g, '-');
}

/**
 * @throws SwitchboardError `SWB_ERR_VALIDATION` unless `dir` is an absolute path, without NUL,
 *   naming an existing directory (paths are the broker host's: a relative one would resolve
 *   against the broker's working directory, which the caller cannot know).
 */
export async function assertBackupDir(dir: string): Promise<void> {
  const refuse = (why: string) =>
    new SwitchboardError('SWB_ERR_VALIDATION', `dest_dir ${why}: ${JSON.stringify(dir)}`);
  if (dir.includes('\0')) throw refuse('must not contain NUL');
  if (dir.length > MAX_BACKUP_DIR_LENGTH) throw refuse('is too long');
  if (!isAbsolute(dir)) throw refuse("must be an absolute path on the broker's host");
  let isDir: boolean;
  try {
    isDir = (await stat(dir)).isDirectory();
  } catch {
    throw refuse('does not exist on the broker host');
  }
  if (!isDir) throw refuse('is not a directory');
}

/**
 * Backs every SQLite store up into `destDir` (see the module comment).
 * @throws SwitchboardError `SWB_ERR_VALIDATION` (bad `destDir`), `SWB_ERR_NOT_SUPPORTED` (the
 *   message store is not SQLite: memory has nothing durable to copy, Redis is backed up with
 *   Redis's own tools), `SWB_ERR_CONFLICT` (a file of that name exists), `SWB_ERR_STORAGE`.
 */
export async function backupStores(
  store: MessageStore,
  auth: AuthBackupSource,
  destDir: string,
  now: () => Date = () => new Date(),
): Promise<BackupResult> {
  if (typeof store.backup !== 'function') {
    throw new SwitchboardError(
      'SWB_ERR_NOT_SUPPORTED',
      `Online backup is not supported for the ${store.backend} storage backend (SQLite only)`,
    );
  }
  await assertBackupDir(destDir);
  const started = performance.now();
  const stamp = backupStamp(now());
  const files: BackupFile[] = [];
  try {
    const messages = join(destDir, `messages-${stamp}.sqlite`);
    const copied = await store.backup(messages);
    files.push({ name: 'messages', path: messages, bytes: copied.bytes, source: copied.source });
    const authSource = auth.authStoreFile();
    if (authSource !== null) {
      const dest = join(destDir, `auth-${stamp}.sqlite`);
      const bytes = await auth.backupAuthStore(dest);
      if (bytes !== null) files.push({ name: 'auth', path: dest, bytes, source: authSource });
    }
  } catch (err) {
    await Promise.all(files.map((f) => unlink(f.path).catch(() => {})));
    throw err;
  }
  return { files, elapsed_ms: Math.round(performance.now() - started) };
}
