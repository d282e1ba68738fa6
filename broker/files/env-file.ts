/**
 * The `.env` file format of `spec/protocol-admin.md` §5: `KEY=value` lines, `#` comments, blank
 * lines, surrounding single or double quotes stripped (no unescaping). Shared by the launcher
 * (loads `TYO_MQ_ENV_FILE` or `.env` before anything else, §13) and the admin-token bootstrap.
 */
import { readFileSync } from 'node:fs';

/** Valid variable names: what a POSIX shell would accept. Other lines are ignored. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses `.env` text into name → value. Later lines win; malformed lines are skipped. An
 * optional leading `export ` is tolerated, as shells write it.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const name = line
      .slice(0, eq)
      .trim()
      .replace(/^export\s+/, '');
    if (!NAME.test(name)) continue;
    let value = line.slice(eq + 1).trim();
    const q = value[0];
    if (value.length >= 2 && (q === '"' || q === "'") && value.endsWith(q)) {
      value = value.slice(1, -1);
    }
    out[name] = value;
  }
  return out;
}

/**
 * Loads `path` into `env` without overriding variables already set (§5 step 3). A missing file
 * is not an error (returns an empty list).
 * @returns the names that were set.
 * @throws Error when the file exists but cannot be read.
 */
export function loadEnvFile(path: string, env: NodeJS.ProcessEnv = process.env): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const set: string[] = [];
  for (const [name, value] of Object.entries(parseEnvFile(text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
