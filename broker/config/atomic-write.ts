/**
 * Crash-safe file replacement: write a temp file beside the target, fsync it, rename it over
 * the target, fsync the directory. A reader (or a restart after `kill -9`) sees either the old
 * or the new content, never a torn file (`spec/protocol-admin.md` §12.4 note, §5 note).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Owner read/write only: the files hold tokens and keys in clear. */
export const SECRET_FILE_MODE = 0o600;

/**
 * Atomically replaces `path` with `text` (UTF-8), creating parent directories (0700); the result has
 * `mode` (default 0600) whatever the umask.
 * @throws Error from the file system; the target is then unchanged and the temp file removed.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  mode: number = SECRET_FILE_MODE,
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx', mode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

/**
 * `writeFileAtomic`, synchronously: for the few writes that must be on disk before the caller
 * goes on (a settings file seeded at start-up, before the broker listens and an operator can
 * edit it). Same guarantees and errors.
 */
export function writeFileAtomicSync(
  path: string,
  text: string,
  mode: number = SECRET_FILE_MODE,
): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'wx', mode);
    try {
      writeFileSync(fd, text, 'utf8');
      fchmodSync(fd, mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort, as in syncDir.
  }
}

/** Makes a rename durable; some platforms cannot open directories, which is harmless. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort (EISDIR/EPERM on some platforms).
  }
}

/** Restricts an existing file to `mode` (default 0600); missing files are ignored. */
export async function restrictMode(path: string, mode: number = SECRET_FILE_MODE): Promise<void> {
  try {
    await chmod(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
