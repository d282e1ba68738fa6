/**
 * Builds the renderer with Vite's JS API when `renderer/dist` is missing or older than its sources,
 * so `npm run console` works straight after `npm install`.
 *
 * Concurrent consoles (e.g. parallel tests) are serialised with a lock file, and each build is
 * written to a temporary directory and swapped in, so a reader never sees a half-written `dist`.
 */
import { cp, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (this file lives in electron/web/). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RendererBuildOptions {
  /** Default `<repo>/renderer`. */
  rendererDir?: string;
  /** Default `<rendererDir>/dist`. */
  outDir?: string;
  /** Extra source trees whose changes require a rebuild. Default `<repo>/shared`. */
  extraSources?: string[];
  /** Rebuild even if up to date. */
  force?: boolean;
  /** Progress messages (never stdout: the console CLI reserves stdout for its URL line). */
  log?: (message: string) => void;
}

const LOCK_STALE_MS = 120_000;
/** The renderer's Vite config (top level: it runs in Node, the renderer has no Node). */
const VITE_CONFIG = path.join(REPO_ROOT, 'vite.renderer.config.ts');

/** Ensures `outDir/index.html` is newer than every source; returns true if it built. */
export async function ensureRendererBuilt(options: RendererBuildOptions = {}): Promise<boolean> {
  const rendererDir = options.rendererDir ?? path.join(REPO_ROOT, 'renderer');
  const outDir = options.outDir ?? path.join(rendererDir, 'dist');
  const sources = [
    path.join(rendererDir, 'index.html'),
    VITE_CONFIG,
    path.join(rendererDir, 'src'),
    path.join(rendererDir, 'public'),
    ...(options.extraSources ?? [path.join(REPO_ROOT, 'shared')]),
  ];
  const isFresh = async (): Promise<boolean> => {
    const built = await stat(path.join(outDir, 'index.html')).catch(() => null);
    return built !== null && built.mtimeMs >= (await newestMtime(sources));
  };
  if (!options.force && (await isFresh())) return false;

  const cacheDir = path.join(REPO_ROOT, 'node_modules', '.cache', 'switchboard');
  await mkdir(cacheDir, { recursive: true });
  const release = await acquireLock(path.join(cacheDir, 'renderer-build.lock'));
  try {
    if (!options.force && (await isFresh())) return false; // Another process built it meanwhile.
    options.log?.('Building the console UI (renderer) with Vite…');
    const tmpDir = path.join(cacheDir, `renderer-${process.pid}-${Date.now()}`);
    const { build } = await import('vite');
    // Vite and the React plugin take a production build from NODE_ENV, which a parent may have
    // set otherwise (vitest sets `test`): that served React's development build, with its
    // checks, several times slower on busy views and twice the size.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({
        configFile: VITE_CONFIG,
        mode: 'production',
        logLevel: 'warn',
        build: { outDir: tmpDir, emptyOutDir: true },
      });
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
    await swapInto(tmpDir, outDir);
    return true;
  } finally {
    await release();
  }
}

async function newestMtime(paths: string[]): Promise<number> {
  let newest = 0;
  for (const entry of paths) {
    const info = await stat(entry).catch(() => null);
    if (!info) continue;
    if (info.isDirectory()) {
      const children = await readdir(entry);
      newest = Math.max(
        newest,
        info.mtimeMs,
        await newestMtime(children.map((c) => path.join(entry, c))),
      );
    } else {
      newest = Math.max(newest, info.mtimeMs);
    }
  }
  return newest;
}

async function swapInto(tmpDir: string, outDir: string): Promise<void> {
  const oldDir = `${tmpDir}-old`;
  await mkdir(path.dirname(outDir), { recursive: true });
  await rename(outDir, oldDir).catch(() => undefined);
  try {
    await rename(tmpDir, outDir);
  } catch {
    // Different filesystems (EXDEV): copy instead of renaming.
    await cp(tmpDir, outDir, { recursive: true });
    await rm(tmpDir, { recursive: true, force: true });
  }
  await rm(oldDir, { recursive: true, force: true });
}

async function acquireLock(lockFile: string): Promise<() => Promise<void>> {
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const info = await stat(lockFile).catch(() => null);
      // A crashed builder leaves its lock behind; builds take seconds, so an old lock is dead.
      if (info && Date.now() - info.mtimeMs > LOCK_STALE_MS) await rm(lockFile, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
