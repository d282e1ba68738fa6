/**
 * `switchboard-admin backup <dest_dir>` (docs/management.md "Backups"): sends `backup_store`,
 * an online backup of the broker's SQLite stores into `dest_dir` **on the broker's host**, and
 * prints the files written. The path is the broker's, so it must be absolute (POSIX or Windows
 * form: the broker may run on either); the broker checks that the directory exists.
 */
import { posix, win32 } from 'node:path';
import { need, print, run, str, UsageError, type CliContext } from './cli-context';
import { table } from './format';

/**
 * How long to wait for the reply when `--timeout` is not given (ms): a backup of a large
 * store takes longer than a settings command.
 */
export const BACKUP_TIMEOUT_MS = 10 * 60_000;

interface BackupFileRow {
  name: string;
  path: string;
  bytes: number;
}

export async function backup(c: CliContext, dir: string | undefined): Promise<void> {
  const destDir = need(dir, 'dest_dir');
  if (!posix.isAbsolute(destDir) && !win32.isAbsolute(destDir)) {
    throw new UsageError(
      `backup <dest_dir>: ${destDir} is not an absolute path; give the directory as the broker's host names it (the broker writes there, not this machine)`,
    );
  }
  const timeout = str(c, 'timeout') === undefined ? BACKUP_TIMEOUT_MS : undefined;
  const reply = await run(c, { command: 'backup_store', dest_dir: destDir }, timeout);
  const files = (reply.files as BackupFileRow[] | undefined) ?? [];
  print(
    c,
    reply,
    () =>
      `${table(
        ['store', 'file', 'bytes'],
        files.map((f) => [f.name, f.path, f.bytes]),
      )}\nbackup took ${String(reply.elapsed_ms)} ms (files on the broker's host)`,
  );
}
