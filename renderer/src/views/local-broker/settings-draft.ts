/**
 * The settings editor's unsaved draft, kept while the operator visits other views (trial finding
 * 19: leaving Broker process lost the edits silently). In memory only, for the page's life: the
 * settings file may hold secrets, so the draft never goes to web storage. Keyed by the settings
 * file's path, which names the local broker whose file it is.
 */

/** A draft: the edited text, and the file's text on disk when the editing began. */
export interface SettingsDraft {
  text: string;
  base: string;
}

const drafts = new Map<string, SettingsDraft>();

/** The draft of the file at `path`, if one is kept. */
export function readSettingsDraft(path: string): SettingsDraft | undefined {
  return drafts.get(path);
}

/** Keeps `text` as the draft of `path`; a text equal to `base` (nothing edited) drops it. */
export function keepSettingsDraft(path: string, text: string, base: string): void {
  if (text === base) drafts.delete(path);
  else drafts.set(path, { text, base });
}

/** Drops the draft of `path` (saved, or reloaded from disk). */
export function dropSettingsDraft(path: string): void {
  drafts.delete(path);
}
