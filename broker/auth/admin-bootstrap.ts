/**
 * The global admin token bootstrap and the `.env` file it lives in.
 *
 * Source: `spec/protocol-admin.md` §5 (steps 1–5, the `.env` format) and its note (§18 item 8):
 * the env file is rewritten atomically (temp file + rename) with mode 0600, an existing one is
 * `chmod 600`-ed, and the token itself is never logged — only the file and variable name.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadEnvFile } from '../files/env-file';
import { envFilePath as launcherEnvFile } from '../files/env-settings';
import type { Logger } from '../logging/logger';
import type { AuthState } from './auth-state';

/** Default variable holding the admin token (§5 step 2). */
export const DEFAULT_ADMIN_TOKEN_ENV = 'TYO_MQ_ADMIN_TOKEN';
/** The env file of §5 step 2: `auth.env_file`, else `TYO_MQ_ENV_FILE`, else `.env`. */
export function envFilePath(auth: AuthState, env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, auth.config.env_file ?? launcherEnvFile(env));
}

/** Appends `NAME="value"` to the env file by writing a temp file (0600) and renaming it. */
function appendToEnvFile(path: string, name: string, value: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  text += `${name}="${value}"\n`;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, path);
  chmodSync(path, 0o600);
}

/**
 * Runs §5: with auth enabled and no global admin token (`realm:"*"`, `role:"admin"`), takes the
 * token from the env variable (after loading the env file) or generates 32 random bytes as hex
 * and appends it to the env file (unless `auto_admin_token: false` or
 * `TYO_MQ_AUTO_ADMIN_TOKEN=false`), then merges it into `auth.tokens` (origin `bootstrap`).
 * @returns whether an admin token was merged.
 * @throws on file-system errors writing the env file (the broker must not start without it).
 */
export function bootstrapAdminToken(
  auth: AuthState,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): boolean {
  const config = auth.config;
  if (!config.enabled || auth.adminTokens().length > 0) return false;
  const file = envFilePath(auth, env, cwd);
  const variable = config.admin_token_env ?? DEFAULT_ADMIN_TOKEN_ENV;
  loadEnvFile(file, env);
  let token = env[variable];
  if (!token) {
    if (config.auto_admin_token === false || env.TYO_MQ_AUTO_ADMIN_TOKEN === 'false') return false;
    token = randomBytes(32).toString('hex');
    appendToEnvFile(file, variable, token);
    env[variable] = token;
    logger.warn(
      { file, variable },
      'generated the global admin token and appended it to the env file',
    );
  }
  const value = token;
  auth.update((draft) => {
    draft.tokens.push({ token: value, realm: '*', role: 'admin' });
  }, 'bootstrap');
  return true;
}
