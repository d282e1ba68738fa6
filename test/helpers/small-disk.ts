/**
 * A small real filesystem for disk-full tests (issue 21 item 5, issue 23): a 20 MiB tmpfs
 * mounted on a fresh directory (root only; CI runs as root), filled on demand. Tests that
 * cannot mount one are skipped with a warning naming why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'vitest';

/** Mounts a 20 MiB tmpfs on a fresh directory, or skips the test when mounting is not allowed. */
export function mountTmpfs(ctx: TestContext): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'swb-reserve-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    console.warn(`skipped: cannot mount a tmpfs for the disk-full test (needs root): ${why}`);
    ctx.skip();
    return null;
  }
}

/** Unmounts what `mountTmpfs` mounted and removes the directory. */
export function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  rmSync(dir, { recursive: true, force: true });
}

/** Writes a file that leaves `leave` bytes free on `dir`'s filesystem (never less than 0). */
export function fillLeaving(dir: string, name: string, leave: number): string {
  const s = statfsSync(dir);
  const free = s.bavail * s.bsize;
  const file = join(dir, name);
  writeFileSync(file, Buffer.alloc(Math.max(0, free - leave)));
  return file;
}
