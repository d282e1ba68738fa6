/**
 * Checks settings-file text the way the broker will read it, for the console's settings editor:
 * JSON syntax (with line and column), then the broker's own schemas — `SettingsSchema` after the
 * alias folding, and `parseAuthConfig` for the `auth` block — each problem named by its path;
 * then the keys the broker accepts but does not implement (`unsupportedKeys`, the list the
 * broker itself logs), as warnings. Nothing here re-states a rule of the schema.
 *
 * Source: docs/configuration.md (strict validation, "Reload and persistence"), broker/config.
 */
import {
  normalizeSettingsAliases,
  parseAuthConfig,
  RESTART_KEYS,
  SettingsSchema,
  UNSUPPORTED_KEY_MESSAGE,
  unsupportedKeys,
} from '../../broker/index';
import type { SettingsCheck, SettingsIssue } from '../../shared/console-api-local';

/** Most issues reported for one text (the editor shows them all inline). */
const MAX_ISSUES = 20;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** 1-based line and column of character `position` in `text`. */
export function lineColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, position));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/** Parses `text` as a JSON object or returns the one syntax issue. */
function parseObject(text: string): { json: Json } | { issue: SettingsIssue } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const raw = (error as Error).message;
    const position = /at position (\d+)/.exec(raw);
    const where = position ? lineColumn(text, Number(position[1])) : null;
    // V8 may quote the text around the error, which can hold a secret: keep only its reason.
    const message = raw
      .replace(/,?\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)?\s*is not valid JSON/, ' Not valid JSON')
      .replace(/ in JSON at position \d+.*$/, '')
      .trim();
    return {
      issue: {
        path: '(root)',
        message: `Not valid JSON: ${message}`,
        line: where?.line ?? null,
        column: where?.column ?? null,
      },
    };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return {
      issue: {
        path: '(root)',
        message: 'The settings must be one JSON object',
        line: null,
        column: null,
      },
    };
  }
  return { json: json as Json };
}

const issue = (path: readonly PropertyKey[], message: string): SettingsIssue => ({
  path: path.length ? path.map(String).join('.') : '(root)',
  message,
  line: null,
  column: null,
});

/**
 * Validates `text`. `previousText` (the file as it is) is used to list the changed start-up keys
 * (`restartKeys`), which the running broker only applies after a restart.
 */
export function checkSettingsText(text: string, previousText: string | null): SettingsCheck {
  const parsed = parseObject(text);
  if ('issue' in parsed) {
    return { valid: false, issues: [parsed.issue], warnings: [], restartKeys: [] };
  }
  const normalized = normalizeSettingsAliases(parsed.json) as Json;
  const issues: SettingsIssue[] = [];
  const result = SettingsSchema.safeParse(normalized);
  if (!result.success) {
    for (const i of result.error.issues) issues.push(issue(i.path, i.message));
  }
  // On an invalid text the parsed value is missing: the raw blocks still name such keys.
  const ignored = unsupportedKeys(
    result.success
      ? result.data
      : {
          limits: isObject(normalized.limits) ? normalized.limits : undefined,
        },
  );
  const warnings = ignored.map((key) =>
    issue(key.split('.'), `${UNSUPPORTED_KEY_MESSAGE}: the broker ignores it`),
  );
  if (normalized.auth !== undefined) {
    const auth = parseAuthConfig(normalized.auth);
    if (!auth.success) {
      for (const i of auth.error.issues) issues.push(issue(['auth', ...i.path], i.message));
    }
  }
  const before = previousText === null ? null : parseObject(previousText);
  const old = before && 'json' in before ? (normalizeSettingsAliases(before.json) as Json) : {};
  const restartKeys = RESTART_KEYS.filter(
    (key) => JSON.stringify(old[key]) !== JSON.stringify(normalized[key]),
  );
  return {
    valid: issues.length === 0,
    issues: issues.slice(0, MAX_ISSUES),
    warnings: warnings.slice(0, MAX_ISSUES),
    restartKeys,
  };
}
