/**
 * What `switchboard-admin` writes to a terminal is made inert: client-chosen names (realms,
 * client ids and names, events, DLQ reasons) could carry escape sequences that recolour, move
 * the cursor or retitle the terminal, and bidirectional controls (RIGHT-TO-LEFT OVERRIDE…) that
 * make `evil‮txt.exe` read as `evilexe.txt`. Each such character is shown as `\uXXXX` instead.
 *
 * `\uXXXX` is also a JSON escape of the same character, so `--json` output stays valid JSON with
 * the same values (JSON.stringify escapes C0 controls itself, but not DEL, C1 or bidi controls).
 */

/**
 * C0 controls, DEL, C1 controls (0x80–0x9f, where ESC's 8-bit form CSI 0x9b lives), the
 * bidirectional marks, embeddings, overrides and isolates, and the line and paragraph
 * separators; newlines are handled by the callers.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const UNSAFE_BUT_NEWLINE =
  // eslint-disable-next-line no-control-regex -- as above
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const escape = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One table cell or value: every unsafe character escaped, newlines too (one line per row). */
export function inert(text: string): string {
  return text.replace(UNSAFE, escape);
}

/**
 * A whole block of output (table, message, JSON document): unsafe characters escaped, its own
 * line breaks kept.
 */
export function inertLines(text: string): string {
  return text.replace(UNSAFE_BUT_NEWLINE, escape);
}
