/**
 * The settings file on disk (`spec/protocol-admin.md` §12.3–§12.4): read (created when missing),
 * watched for edits (debounced), and rewritten atomically when runtime changes must persist.
 *
 * Writes are serialized (one at a time, in call order), pretty JSON with a 2-space indent and a
 * trailing newline, via temp file + fsync + rename with mode 0600. The broker's own writes do
 * not trigger a reload: the watcher compares the file's text with the last text this process
 * wrote or loaded and ignores an unchanged file.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SwitchboardError } from '../../shared/error-catalogue';
import { writeFileAtomic, writeFileAtomicSync } from './atomic-write';

/** Debounce (ms) between a file-system event and the reload it triggers (§12.3). */
export const WATCH_DEBOUNCE_MS = 150;

type Json = Record<string, unknown>;

/** Serializes settings the way the file is written: 2-space JSON plus a newline. */
export function formatSettings(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** V8's JSON errors quote the text around the error, which may hold a secret: drop it. */
function withoutQuotedText(message: string): string {
  return message.replace(/,?\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)?\s*is not valid JSON/, '');
}

/**
 * Parses settings-file text into a JSON object.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` naming `path` when it is not a JSON object.
 */
export function parseSettingsText(text: string, path: string): Json {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Settings file ${path} is not valid JSON: ${withoutQuotedText((err as Error).message)}`,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Settings file ${path} must hold a JSON object`,
    );
  }
  return json as Json;
}

/** Whether process `pid` is alive (EPERM: alive, owned by someone else). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes temp files a killed writer left beside `path` (`.<name>.<pid>.<hex>.tmp`). */
export function removeStaleTempFiles(path: string): void {
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    rmSync(join(dirname(path), name), { force: true });
  }
}

export class SettingsFile {
  /** Text last written or loaded by this process; the watcher ignores a file still equal to it. */
  private known: string | null = null;
  private lastRead: string | null = null;
  private writes: Promise<void> = Promise.resolve();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly path: string) {}

  /**
   * Reads the file synchronously (start-up). A missing file is created from `seed()` and that
   * content returned (§12.3).
   * @throws SwitchboardError `SWB_ERR_VALIDATION` when unreadable or not a JSON object.
   */
  readOrCreateSync(seed: () => Json): { content: Json; created: boolean } {
    removeStaleTempFiles(this.path);
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw this.unreadable(err);
      const content = seed();
      this.known = formatSettings(content);
      return { content, created: true };
    }
    this.known = text;
    return { content: parseSettingsText(text, this.path), created: false };
  }

  /**
   * Reads the file as it is now (reload). Call `accept()` once the content is applied, so the
   * watcher stops reporting it; a rejected file keeps being reported on every edit.
   * @throws SwitchboardError `SWB_ERR_VALIDATION` when unreadable or not a JSON object.
   */
  async read(): Promise<Json> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      throw this.unreadable(err);
    }
    const content = parseSettingsText(text, this.path);
    this.lastRead = text;
    return content;
  }

  /** Marks the text of the last `read()` as applied. */
  accept(): void {
    if (this.lastRead !== null) this.known = this.lastRead;
  }

  /**
   * Queues an atomic rewrite with `value`; resolves when this write is on disk.
   * @throws Error from the file system (the previous content is then intact).
   */
  write(value: unknown): Promise<void> {
    const text = formatSettings(value);
    const run = async () => {
      this.known = text;
      await writeFileAtomic(this.path, text);
    };
    const next = this.writes.then(run, run);
    this.writes = next.catch(() => undefined);
    return next;
  }

  /**
   * Rewrites the file now, synchronously (start-up only, when no write is queued: a queued
   * one would land after it).
   * @throws Error from the file system (the previous content is then intact).
   */
  writeSync(value: unknown): void {
    const text = formatSettings(value);
    this.known = text;
    writeFileAtomicSync(this.path, text);
  }

  /** Resolves when every queued write has finished (successfully or not). */
  flush(): Promise<void> {
    return this.writes;
  }

  /**
   * Calls `onEdit` (debounced by `WATCH_DEBOUNCE_MS`) when the file's text changes to
   * something this process did not write. The directory is watched, so edits that replace
   * the file (editors, our own rename) keep being seen.
   */
  watch(onEdit: () => void): void {
    if (this.watcher) return;
    const name = basename(this.path);
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    this.watcher = watch(dirname(this.path), (_event, filename) => {
      if (filename !== null && filename !== name) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.changed().then((yes) => {
          if (yes) onEdit();
        });
      }, WATCH_DEBOUNCE_MS);
      this.timer.unref();
    });
    this.watcher.on('error', () => undefined);
    this.watcher.unref();
  }

  /** Stops watching and waits for queued writes. */
  async close(): Promise<void> {
    this.watcher?.close();
    this.watcher = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async changed(): Promise<boolean> {
    await this.flush();
    try {
      return (await readFile(this.path, 'utf8')) !== this.known;
    } catch {
      return false;
    }
  }

  private unreadable(err: unknown): SwitchboardError {
    return new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `Cannot read settings file ${this.path}: ${(err as Error).message}`,
    );
  }
}
