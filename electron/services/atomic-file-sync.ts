/**
 * Synchronous crash-safe file replacement for the console's small state files (secret store,
 * window state): temp file beside the target (created with `mode`, exclusive), fsync, rename
 * over the target, fsync the directory. A reader, or a restart after a crash, sees the old or the
 * new content, never a torn file. The synchronous twin of broker/config/atomic-write.ts (the
 * SecretStore interface is synchronous, like Electron's `safeStorage`; these files are tiny).
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

/**
 * Atomically replaces `file` with `data`, creating parent directories (mode 0700); the file ends
 * with `mode` whatever the umask.
 * @throws Error from the file system; the target is then unchanged and the temp file removed.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, mode: number): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dir);
}

/** Makes the rename durable; some platforms cannot fsync a directory, which is harmless. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort (EISDIR/EPERM on Windows).
  }
}
