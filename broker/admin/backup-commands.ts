/**
 * `backup_store` (Switchboard extension, docs/management.md "Backups"; issue 23 item 1): an
 * online backup of the broker's SQLite files into a directory **on the broker's host**
 * (`broker.backup`, `storage/store-backup.ts`). Global admin only: it writes files wherever
 * the broker's user may.
 *
 * Body: `{command: "backup_store", dest_dir: "<absolute path of an existing directory>"}`.
 * Reply: `{ok: true, dest_dir, files: [{name: "messages"|"auth", path, bytes, source}],
 * elapsed_ms}`.
 * Errors: 400 `dest_dir` missing, not a string, relative, or not an existing directory;
 * 409 a file of the backup's name exists; 501 the message store is not SQLite (memory, Redis)
 * or the broker offers no backups; 500 the copy failed (nothing is left in `dest_dir` then).
 */
import { z } from 'zod';
import { SwitchboardError } from '../../shared/error-catalogue';
import { MAX_BACKUP_DIR_LENGTH, type BackupResult } from '../storage/store-backup';
import { CommandError, type CommandBody } from './command-types';

/** What `backup_store` needs from the broker. */
export interface BackupServices {
  /** `broker.backup`; absent → 501. */
  backup?(destDir: string): Promise<BackupResult>;
}

const BackupBody = z.object({
  dest_dir: z.string().min(1).max(MAX_BACKUP_DIR_LENGTH),
});

export async function backupStore(
  services: BackupServices,
  body: CommandBody,
): Promise<{ ok: true } & Record<string, unknown>> {
  if (!services.backup) throw new CommandError(501, 'backup_store is not available');
  const parsed = BackupBody.safeParse(body);
  if (!parsed.success) {
    throw new CommandError(
      400,
      'dest_dir is required: the absolute path of an existing directory on the broker host',
    );
  }
  const destDir = parsed.data.dest_dir;
  try {
    return { ok: true, dest_dir: destDir, ...(await services.backup(destDir)) };
  } catch (err) {
    if (err instanceof SwitchboardError) throw new CommandError(err.status, err.message);
    throw err;
  }
}
